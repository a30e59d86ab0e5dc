import vm from 'node:vm';
import picomatch from 'picomatch';
import { ArchiveError } from './errors.js';
import { MAX_ENTRY_NAME_LENGTH, baseName } from './names.js';

/**
 * The file filter of `Document_FileFilter`: which archive members (or documents) a call selects.
 *
 * A name is selected when there are no include rules or at least one include rule matches, and no
 * exclude rule matches. Rules:
 *
 * - `suffix`: the name ends with the pattern, case-insensitively (`.PDF` selects `dir/a.pdf`).
 * - `glob`: picomatch syntax (`*`, `?`, `[...]`, `{a,b}`, `**`), case-sensitive, `*` also matches
 *   names starting with a dot; extglobs (`+(...)`) and `!` negation are off (literal characters).
 *   A pattern WITHOUT `/` is matched against the base name of the entry, so `*.pdf` and
 *   `{logo.png,form.pdf}` also select `docs/logo.png`; a pattern WITH `/` is matched against the whole
 *   path (`docs/*.pdf` selects `docs/a.pdf` but not `x/docs/a.pdf`; use `**\/docs/*.pdf` for that).
 * - `regex`: a JavaScript regular expression (with the `u` flag when the pattern is valid with it,
 *   else without), searched in the whole path (`RegExp.test`, so `\.pdf$` and `.*\.pdf` both work;
 *   anchor with `^...$` for an exact match). Case-sensitive.
 *
 * ReDoS defence for the two pattern types that compile to backtracking regular expressions: patterns
 * are bounded in length; regexes with backreferences or nested quantifiers (star height > 1, such as
 * `(a+)+`) are refused up front; names longer than {@link MAX_ENTRY_NAME_LENGTH} are never matched;
 * and every evaluation of regex/glob rules runs in a `vm` script with a time budget, so even a
 * pattern the static checks cannot recognise (`(a|a)*b`, `*a*a*a*a*a*b`) costs at most the budget
 * and ends in a `badFilter` error instead of blocking the event loop.
 */

export type FileFilterRuleType = 'suffix' | 'regex' | 'glob';

export interface FileFilterRule {
  rulePattern: string;
  ruleType: FileFilterRuleType | string;
}

export interface FileFilter {
  includeRules?: readonly FileFilterRule[] | null;
  excludeRules?: readonly FileFilterRule[] | null;
}

export const MAX_REGEX_PATTERN_LENGTH = 512;
export const MAX_GLOB_PATTERN_LENGTH = 1024;
export const MAX_SUFFIX_PATTERN_LENGTH = 1024;
/** Rules per list (include or exclude). */
export const MAX_FILTER_RULES = 64;
/** `*` runs per glob; each is a lazy `[^/]*?` in the compiled regex. */
export const MAX_GLOB_STARS = 16;
/** Default time budget of one evaluation over all names. */
export const DEFAULT_FILTER_TIMEOUT_MS = 1000;

export interface CompiledFilter {
  /** True when the filter has no rules at all (selects everything). */
  readonly selectsAll: boolean;
  /** One boolean per name, evaluated within the time budget. */
  select(names: readonly string[]): boolean[];
  matches(name: string): boolean;
}

export interface CompileFilterOptions {
  /** Time budget of one `select` call over all its names (default {@link DEFAULT_FILTER_TIMEOUT_MS}). */
  timeoutMs?: number;
}

type Predicate = (name: string) => boolean;

interface CompiledRule {
  test: Predicate;
  /** Backtracking regex inside: evaluate under the time budget. */
  guarded: boolean;
}

const GLOB_OPTIONS = { dot: true, noextglob: true, nonegate: true, windows: false } as const;
const RUN = new vm.Script('run()', { filename: 'quire-file-filter' });

/** Whether `name` passes `filter`. Compiles the filter each time: use {@link compileFilter} for many names. */
export function matchesFilter(name: string, filter: FileFilter | undefined | null, options?: CompileFilterOptions): boolean {
  return compileFilter(filter, options).matches(name);
}

/** Validates and compiles a filter; throws `ArchiveError('badFilter')` naming the offending rule. */
export function compileFilter(filter: FileFilter | undefined | null, options?: CompileFilterOptions): CompiledFilter {
  if (filter !== undefined && filter !== null && (typeof filter !== 'object' || Array.isArray(filter))) {
    throw new ArchiveError('badFilter', 'fileFilter must be an object with includeRules and excludeRules');
  }
  const include = compileRules(filter?.includeRules, 'includeRules');
  const exclude = compileRules(filter?.excludeRules, 'excludeRules');
  const timeoutMs = options?.timeoutMs ?? DEFAULT_FILTER_TIMEOUT_MS;
  const selectsAll = include.length === 0 && exclude.length === 0;
  const guarded = [...include, ...exclude].some((rule) => rule.guarded);

  const accept = (name: string): boolean => {
    if (selectsAll) return true;
    if (name.length > MAX_ENTRY_NAME_LENGTH) return false;
    if (include.length > 0 && !include.some((rule) => rule.test(name))) return false;
    return !exclude.some((rule) => rule.test(name));
  };

  let context: vm.Context | undefined;
  let pending: readonly string[] = [];
  const runAll = (): boolean[] => pending.map(accept);

  const select = (names: readonly string[]): boolean[] => {
    if (selectsAll) return names.map(() => true);
    if (!guarded) return names.map(accept);
    context ??= vm.createContext({ run: runAll });
    pending = names;
    try {
      return RUN.runInContext(context, { timeout: timeoutMs }) as boolean[];
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
        throw new ArchiveError('badFilter', `the file filter took more than ${timeoutMs} ms to evaluate on ${names.length} name(s); simplify its regex or glob patterns`, { cause: error });
      }
      throw error;
    } finally {
      pending = [];
    }
  };

  return { selectsAll, select, matches: (name) => select([name])[0]! };
}

function compileRules(rules: readonly FileFilterRule[] | undefined | null, list: string): CompiledRule[] {
  if (rules === undefined || rules === null) return [];
  if (!Array.isArray(rules)) throw new ArchiveError('badFilter', `${list} must be an array of rules`);
  if (rules.length > MAX_FILTER_RULES) throw new ArchiveError('badFilter', `${list} has ${rules.length} rules; at most ${MAX_FILTER_RULES} are allowed`);
  return rules.map((rule: unknown, index) => compileRule(rule, `${list}[${index}]`));
}

function compileRule(rule: unknown, where: string): CompiledRule {
  if (typeof rule !== 'object' || rule === null) throw new ArchiveError('badFilter', `${where} must be an object with rulePattern and ruleType`);
  const { rulePattern: pattern, ruleType: type } = rule as Record<string, unknown>;
  if (typeof type !== 'string') throw new ArchiveError('badFilter', `${where}: ruleType is missing (expected suffix, regex or glob)`);
  if (typeof pattern !== 'string') throw new ArchiveError('badFilter', `${where}: rulePattern must be a string`);
  const label = `${where} (${type} ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern)})`;
  if (pattern.length === 0) throw new ArchiveError('badFilter', `${label}: rulePattern is empty`);
  switch (type) {
    case 'suffix':
      return compileSuffix(pattern, label);
    case 'glob':
      return compileGlob(pattern, label);
    case 'regex':
      return compileRegex(pattern, label);
    default:
      throw new ArchiveError('badFilter', `${where}: unknown ruleType ${JSON.stringify(type)} (expected suffix, regex or glob)`);
  }
}

function compileSuffix(pattern: string, label: string): CompiledRule {
  if (pattern.length > MAX_SUFFIX_PATTERN_LENGTH) throw new ArchiveError('badFilter', `${label}: longer than ${MAX_SUFFIX_PATTERN_LENGTH} characters`);
  const suffix = pattern.toLowerCase();
  return { test: (name) => name.toLowerCase().endsWith(suffix), guarded: false };
}

function compileGlob(pattern: string, label: string): CompiledRule {
  if (pattern.length > MAX_GLOB_PATTERN_LENGTH) throw new ArchiveError('badFilter', `${label}: longer than ${MAX_GLOB_PATTERN_LENGTH} characters`);
  const stars = pattern.match(/\*+/g)?.length ?? 0;
  if (stars > MAX_GLOB_STARS) throw new ArchiveError('badFilter', `${label}: more than ${MAX_GLOB_STARS} wildcards`);
  let matcher: Predicate;
  try {
    matcher = picomatch(pattern, GLOB_OPTIONS);
  } catch (error) {
    throw new ArchiveError('badFilter', `${label}: invalid glob: ${(error as Error).message}`, { cause: error });
  }
  const wholePath = pattern.includes('/');
  return { test: wholePath ? matcher : (name) => matcher(baseName(name)), guarded: true };
}

function compileRegex(pattern: string, label: string): CompiledRule {
  if (pattern.length > MAX_REGEX_PATTERN_LENGTH) throw new ArchiveError('badFilter', `${label}: longer than ${MAX_REGEX_PATTERN_LENGTH} characters`);
  const unsafe = unsafeRegexReason(pattern);
  if (unsafe !== undefined) throw new ArchiveError('badFilter', `${label}: refused, ${unsafe}`);
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, 'u');
  } catch {
    try {
      regex = new RegExp(pattern);
    } catch (error) {
      throw new ArchiveError('badFilter', `${label}: invalid regular expression: ${(error as Error).message}`, { cause: error });
    }
  }
  return { test: (name) => regex.test(name), guarded: true };
}

interface GroupFrame {
  /** A repeating quantifier (max > 1) occurs somewhere inside. */
  repeats: boolean;
}

/**
 * Why a regex is refused before it ever runs, or undefined. Refused: backreferences (`\1`, `\k<x>`),
 * which make matching NP-hard, and nested repetition, a repeated group that itself contains a
 * repeated atom (`(a+)+`, `(a*b?)*`, `(x{2,}){3}`, `(?:[a-z]+\.)*`), the classic exponential case.
 * A repetition is a quantifier whose maximum is above 1 (`*`, `+`, `{n,}`, `{n,m}` with m > 1).
 */
export function unsafeRegexReason(pattern: string): string | undefined {
  const stack: GroupFrame[] = [{ repeats: false }];
  /** What the last atom was, for the quantifier that may follow it. */
  let last: { kind: 'none' } | { kind: 'atom' } | { kind: 'group'; repeats: boolean } = { kind: 'none' };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next !== undefined && next >= '1' && next <= '9') return 'backreferences are not allowed';
      if (next === 'k' && pattern[i + 2] === '<') return 'backreferences are not allowed';
      if ((next === 'p' || next === 'P' || next === 'u') && pattern[i + 2] === '{') {
        const close = pattern.indexOf('}', i + 3);
        i = close === -1 ? pattern.length : close + 1;
      } else {
        i += 2;
      }
      last = { kind: 'atom' };
      continue;
    }
    if (c === '[') {
      i++;
      if (pattern[i] === '^') i++;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      i++;
      last = { kind: 'atom' };
      continue;
    }
    if (c === '(') {
      stack.push({ repeats: false });
      i++;
      if (pattern[i] === '?') {
        // (?:  (?=  (?!  (?<=  (?<!  (?<name>
        if (pattern[i + 1] === '<' && pattern[i + 2] !== '=' && pattern[i + 2] !== '!') {
          const close = pattern.indexOf('>', i);
          i = close === -1 ? pattern.length : close + 1;
        } else {
          i += pattern[i + 1] === '<' ? 3 : 2;
        }
      }
      last = { kind: 'none' };
      continue;
    }
    if (c === ')') {
      const frame = stack.length > 1 ? stack.pop()! : { repeats: false };
      const parent = stack[stack.length - 1]!;
      parent.repeats ||= frame.repeats;
      last = { kind: 'group', repeats: frame.repeats };
      i++;
      continue;
    }
    const quantifier = readQuantifier(pattern, i);
    if (quantifier !== undefined) {
      i = quantifier.end;
      if (pattern[i] === '?') i++; // lazy
      if (quantifier.max > 1) {
        if (last.kind === 'group' && last.repeats) return 'nested quantifiers (a repeated group containing a repetition, such as (a+)+) are not allowed';
        stack[stack.length - 1]!.repeats = true;
      }
      last = { kind: 'atom' };
      continue;
    }
    last = c === '|' ? { kind: 'none' } : { kind: 'atom' };
    i++;
  }
  return undefined;
}

/** A quantifier at `i`: its maximum (Infinity when unbounded) and where it ends; `{` not forming one is a literal. */
function readQuantifier(pattern: string, i: number): { max: number; end: number } | undefined {
  const c = pattern[i];
  if (c === '*' || c === '+') return { max: Infinity, end: i + 1 };
  if (c === '?') return { max: 1, end: i + 1 };
  if (c !== '{') return undefined;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 32));
  if (!match) return undefined;
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
  return { max, end: i + match[0].length };
}
