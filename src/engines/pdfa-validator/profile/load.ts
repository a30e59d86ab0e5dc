import { readFileSync } from 'node:fs';
import { compile, type CompiledExpression } from '../expression/evaluate.js';
import { PDFA_LEVELS, type PdfaLevel, type Profile, type Rule, type Variable } from './model.js';
import type { ProfileSource, RuleSource, VariableSource } from './source.js';

/**
 * The profiles ship as compact JSON generated from veraPDF's XML (resources/pdfa/profiles/, both
 * checked in; scripts/pdfa-profiles.ts regenerates, a test keeps them equal). A profile is read and its
 * expressions compiled on first use, once per process: nothing at server start.
 */
const cache = new Map<PdfaLevel, Profile>();

export function profileFile(level: PdfaLevel): URL {
  // resources/ is two levels above both src/engines and dist/engines, like the other resources.
  return new URL(`../../../../resources/pdfa/profiles/PDFA-${level.toUpperCase()}.json`, import.meta.url);
}

export function loadProfile(level: PdfaLevel): Profile {
  if (!PDFA_LEVELS.includes(level)) throw new Error(`no PDF/A profile for level ${String(level)}`);
  let profile = cache.get(level);
  if (profile === undefined) {
    profile = compileProfile(level, JSON.parse(readFileSync(profileFile(level), 'utf8')) as ProfileSource);
    cache.set(level, profile);
  }
  return profile;
}

/** Compiles every expression of a profile; throws (an ExpressionError `syntax`) when one is outside the supported subset. */
export function compileProfile(level: PdfaLevel, source: ProfileSource): Profile {
  const variableNames = new Set(source.variables.map((variable) => variable.name));
  const rules = source.rules.map((rule) => compileRule(rule, variableNames));
  const ids = new Set<string>();
  for (const rule of rules) {
    if (ids.has(rule.id)) throw new Error(`profile ${source.flavour}: two rules have the id ${rule.id}`);
    ids.add(rule.id);
  }
  const rulesByObject = new Map<string, Rule[]>();
  for (const rule of rules) {
    const list = rulesByObject.get(rule.object);
    if (list === undefined) rulesByObject.set(rule.object, [rule]);
    else list.push(rule);
  }
  return {
    level,
    flavour: source.flavour,
    name: source.name,
    description: source.description,
    rules,
    variables: source.variables.map((variable) => compileVariable(variable, variableNames)),
    rulesByObject,
  };
}

function compileRule(source: RuleSource, variableNames: ReadonlySet<string>): Rule {
  const id = `${source.clause}-${source.testNumber}`;
  const test = compileNamed(source.test, `rule ${id} test`);
  return {
    id,
    ruleId: { specification: source.specification, clause: source.clause, testNumber: source.testNumber },
    object: source.object,
    deferred: source.deferred,
    tags: source.tags,
    description: source.description,
    test,
    error: { message: source.message, arguments: source.arguments.map((arg, i) => compileNamed(arg, `rule ${id} argument ${i + 1}`)) },
    references: source.references,
    properties: test.names.filter((name) => !variableNames.has(name)),
    variables: test.names.filter((name) => variableNames.has(name)),
  };
}

function compileVariable(source: VariableSource, variableNames: ReadonlySet<string>): Variable {
  const value = compileNamed(source.value, `variable ${source.name} value`);
  return {
    name: source.name,
    object: source.object,
    defaultValue: compileNamed(source.defaultValue, `variable ${source.name} default`),
    value,
    properties: value.names.filter((name) => !variableNames.has(name)),
  };
}

function compileNamed(source: string, what: string): CompiledExpression {
  try {
    return compile(source);
  } catch (error) {
    (error as Error).message = `${what}: ${(error as Error).message}`;
    throw error;
  }
}
