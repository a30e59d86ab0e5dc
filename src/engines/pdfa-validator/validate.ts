/**
 * Validates a file against one PDF/A level's veraPDF profile: open the COS document, walk every model
 * object, check each object's immediate rules, the deferred rules at the end, and tally. The verdict is
 * `compliant` only when every rule of the profile was checked and passed on a document read completely
 * (no COS limit, no walk bound, no deadline): whatever stopped short makes it `inconclusive`, or
 * `non-compliant` when a rule already failed (a failure found stays a failure).
 *
 * Bounded: the file size and parse work by the COS limits, the walk by a model-object count, time by
 * the deadline (checked between objects), memory by keeping no objects but those deferred rules need
 * (capped) and at most `maxFailuresPerRule` distinct failures per rule. The work yields to the event
 * loop every few milliseconds so an in-process caller stays responsive and its AbortSignal can fire.
 */
import { type CosDocument, type CosInput, type CosLimits, openCosDocument } from './cos/index.js';
import { DEFAULT_MAX_MODEL_OBJECTS, IMPLEMENTED_TYPES, type ModelWalk, modelObjects, objectPage, objectPath } from './model/index.js';
import type { PropertyValue } from './expression/value.js';
import { checkRule, type RuleOutcome } from './profile/check-rule.js';
import { loadProfile } from './profile/load.js';
import { type ModelObject, PROFILE_ATTRIBUTION, type PdfaLevel, type Rule } from './profile/model.js';
import { rulesFor } from './profile/rules-for.js';
import { ProfileVariables } from './profile/variables.js';
import { ProfileTally, type RuleStatus, type Verdict } from './profile/verdict.js';
import { PdfaValidateError } from './validate-errors.js';

export interface ValidateOptions {
  /** COS reader limits (file size, parse work, decoded bytes…); defaults: cos/limits.ts. */
  readonly limits?: Partial<CosLimits>;
  /** Epoch milliseconds: past it the validation stops with what it has (never `compliant`). Default: DEFAULT_TIME_LIMIT_MS from the start. */
  readonly deadline?: number;
  /** Cancels: validatePdfa rejects with PdfaValidateError('cancelled'). */
  readonly signal?: AbortSignal;
  /** Longest stretch of work before the event loop gets a turn (and the signal a look). Default 20 ms. */
  readonly sliceMs?: number;
  /** Distinct failures kept per rule (the count of all is kept anyway). Default 100. */
  readonly maxFailuresPerRule?: number;
  /** Model objects walked at most. Default DEFAULT_MAX_MODEL_OBJECTS. */
  readonly maxObjects?: number;
  /** Objects kept for deferred rules at most. Default 100,000. */
  readonly maxDeferredObjects?: number;
}

export interface RuleFailure {
  /** Where: `12 0 obj/Resources/Font/F1`, `document`, `trailer`, `3 0 obj/Contents (content)[17]`… (the first object with this message). */
  object: string;
  /** The page (1-based) of that first object, when the model knows it (content, fonts and glyphs, pages, annotations). */
  page?: number;
  /** The pages of all objects that failed with this message, in the order met (at most MAX_PAGES_PER_FAILURE). */
  pages?: number[];
  message: string;
  /** Objects that failed with this message. */
  count: number;
}

export interface RuleReport {
  id: string;
  clause: string;
  specification: string;
  testNumber: number;
  /** The model type the rule applies to. */
  object: string;
  description: string;
  status: RuleStatus;
  /** Objects that failed the rule (failures lists at most maxFailuresPerRule distinct messages). */
  failedCount: number;
  failures: RuleFailure[];
  /** Why the rule is not-checked, when it is. */
  notCheckedReason?: string;
}

export interface PdfaReport {
  level: PdfaLevel;
  /** veraPDF's profile flavour, e.g. `PDFA_2_B`. */
  flavour: string;
  verdict: Verdict;
  counts: { passed: number; failed: number; notChecked: number };
  rules: RuleReport[];
  attribution: typeof PROFILE_ATTRIBUTION;
  /** Why the document was not read or checked completely (limits, deadline), then notes on broken syntax. */
  problems: string[];
  /** The document was read and walked completely (no limit, bound or deadline stopped it). */
  complete: boolean;
}

const DEFAULT_MAX_FAILURES = 100;
/** Without a deadline of the caller's: no validation runs longer (corpus files take ~2 ms; 3M content operands ~5 s). */
export const DEFAULT_TIME_LIMIT_MS = 120_000;
/** A failure message is cut here (arguments may quote a file's strings). */
const MAX_MESSAGE_CHARS = 1000;
const DEFAULT_MAX_DEFERRED = 100_000;
/** Distinct pages listed per failure message. */
const MAX_PAGES_PER_FAILURE = 100;
/** Objects between two looks at the clock. */
const CLOCK_EVERY = 256;
/** Longest stretch of work before giving the event loop a turn. */
const SLICE_MS = 20;

export async function validatePdfa(input: CosInput, level: PdfaLevel, options: ValidateOptions = {}): Promise<PdfaReport> {
  const deadline = options.deadline ?? Date.now() + DEFAULT_TIME_LIMIT_MS;
  const profile = loadProfile(level);
  throwIfCancelled(options.signal);
  const doc = await openCosDocument(input, options.limits);
  throwIfCancelled(options.signal);

  const implementsType = (type: string): boolean => IMPLEMENTED_TYPES.has(type);
  const tally = new ProfileTally(profile, implementsType);
  const variables = new ProfileVariables(profile.variables, implementsType);
  const failures = new FailureLog(options.maxFailuresPerRule ?? DEFAULT_MAX_FAILURES);
  const walk: ModelWalk = { truncated: false, yielded: 0, incomplete: [] };
  const deferred: ModelObject[] = [];
  const maxDeferred = options.maxDeferredObjects ?? DEFAULT_MAX_DEFERRED;
  let deferredDropped = false;
  let stoppedByDeadline = false;

  const passes = new PassMemo();
  const check = (rule: Rule, object: ModelObject): void => {
    const key = passes.key(rule, object);
    if (key !== undefined && passes.has(rule, key)) {
      tally.record(rule, PASSED);
      return;
    }
    const outcome = checkRule(rule, object, variables);
    tally.record(rule, outcome);
    if (outcome.status === 'failed') failures.add(rule, objectPath(object), objectPage(object), outcome.message);
    else if (outcome.status === 'passed' && key !== undefined) passes.add(rule, key);
  };

  // Objects of one kind share their types array: look their rules up once per array, not per object.
  const rulesByTypes = new Map<readonly string[], { immediate: readonly Rule[]; deferred: readonly Rule[] }>();
  const rulesOf = (types: readonly string[]): { immediate: readonly Rule[]; deferred: readonly Rule[] } => {
    let entry = rulesByTypes.get(types);
    if (entry === undefined) {
      entry = { immediate: rulesFor(profile, types, false), deferred: rulesFor(profile, types, true) };
      if (rulesByTypes.size < 10_000) rulesByTypes.set(types, entry);
    }
    return entry;
  };

  const sliceMs = options.sliceMs ?? SLICE_MS;
  let sliceStart = Date.now();
  let n = 0;
  for (const object of modelObjects(doc, walk, {
    maxObjects: options.maxObjects ?? DEFAULT_MAX_MODEL_OBJECTS,
    xmpEdition: level.startsWith('1') ? 2004 : 2005,
    part: level.startsWith('1') ? 1 : level.startsWith('2') ? 2 : 3,
  })) {
    // From the first object on (a deadline already past stops before any rule runs), then every CLOCK_EVERY.
    if (++n % CLOCK_EVERY === 1) {
      const now = Date.now();
      if (now > deadline) {
        stoppedByDeadline = true;
        break;
      }
      if (now - sliceStart > sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        throwIfCancelled(options.signal);
        sliceStart = Date.now();
      }
    }
    variables.observe(object);
    const rules = rulesOf(object.types);
    for (const rule of rules.immediate) check(rule, object);
    if (rules.deferred.length > 0) {
      if (deferred.length < maxDeferred) deferred.push(object);
      else deferredDropped = true;
    }
  }
  if (!stoppedByDeadline) for (const object of deferred) for (const rule of rulesOf(object.types).deferred) check(rule, object);

  const incomplete = incompleteness(doc, walk, stoppedByDeadline, deferredDropped);
  const result = tally.result();
  const rules: RuleReport[] = result.rules.map((t) => {
    // A rule that passed on part of the document has not passed: it was not checked on the rest.
    const status: RuleStatus = t.status === 'passed' && incomplete.length > 0 ? 'not-checked' : t.status;
    const reason = status === 'not-checked' ? (t.notCheckedReason ?? `the document was not checked completely: ${incomplete[0]}`) : undefined;
    return {
      id: t.rule.id,
      clause: t.rule.ruleId.clause,
      specification: t.rule.ruleId.specification,
      testNumber: t.rule.ruleId.testNumber,
      object: t.rule.object,
      description: t.rule.description,
      status,
      failedCount: t.failed,
      failures: failures.of(t.rule),
      ...(reason === undefined ? {} : { notCheckedReason: reason }),
    };
  });
  const counts = { passed: 0, failed: 0, notChecked: 0 };
  for (const r of rules) {
    if (r.status === 'passed') counts.passed++;
    else if (r.status === 'failed') counts.failed++;
    else counts.notChecked++;
  }
  const verdict: Verdict = counts.failed > 0 ? 'non-compliant' : counts.notChecked > 0 ? 'inconclusive' : 'compliant';
  return {
    level,
    flavour: profile.flavour,
    verdict,
    counts,
    rules,
    attribution: PROFILE_ATTRIBUTION,
    problems: [...incomplete, ...doc.problems],
    complete: incomplete.length === 0,
  };
}

const PASSED: RuleOutcome = Object.freeze({ status: 'passed' });
/** Values remembered per rule (a document has a few hundred distinct numbers and names). */
const MAX_PASSES_PER_RULE = 4096;
/** Longer strings are checked each time (not kept as keys). */
const MAX_KEY_CHARS = 256;

/**
 * The values that passed each rule whose test reads one property of its object and no variable: the same
 * value passes again without evaluating the test (a 100-page document has ~10,000 numbers, strings and names
 * in its content, most of them alike). Only passes are remembered: a failure is checked on its own object, for
 * its message and path. Exact: such a test's outcome depends on that one value (expressions have no other
 * input, builtins no state); -0 is left out (a Map takes it for 0).
 */
class PassMemo {
  private readonly byRule = new Map<Rule, Set<PropertyValue>>();

  /** The object's value for the rule's one property, when the rule can be remembered. */
  key(rule: Rule, object: ModelObject): PropertyValue | undefined {
    if (rule.properties.length !== 1 || rule.variables.length !== 0) return undefined;
    const name = rule.properties[0] as string;
    if (!object.has(name)) return undefined;
    const value = object.get(name) ?? null;
    if (typeof value === 'string' ? value.length > MAX_KEY_CHARS : Object.is(value, -0)) return undefined;
    return value;
  }

  has(rule: Rule, key: PropertyValue): boolean {
    return this.byRule.get(rule)?.has(key) === true;
  }

  add(rule: Rule, key: PropertyValue): void {
    let set = this.byRule.get(rule);
    if (set === undefined) {
      set = new Set();
      this.byRule.set(rule, set);
    }
    if (set.size < MAX_PASSES_PER_RULE) set.add(key);
  }
}

/** Why the document was not seen whole: each reason keeps `compliant` out of reach. */
function incompleteness(doc: CosDocument, walk: ModelWalk, deadline: boolean, deferredDropped: boolean): string[] {
  const out: string[] = [];
  if (doc.limitsHit.size > 0) out.push(`the file was not read completely: limits reached (${[...doc.limitsHit].join(', ')})`);
  if (walk.truncated) out.push(`the model walk stopped after ${walk.yielded} objects`);
  out.push(...(walk.incomplete ?? []));
  if (deadline) out.push('the validation stopped at its deadline');
  if (deferredDropped) out.push('too many objects for the document-wide rules');
  return out;
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new PdfaValidateError('cancelled', 'The validation was cancelled', { cause: signal.reason });
}

/** Per rule: distinct failure messages (at most `max`), each with the first object and a count. */
class FailureLog {
  private readonly byRule = new Map<Rule, Map<string, RuleFailure>>();

  constructor(private readonly max: number) {}

  add(rule: Rule, object: string, page: number | undefined, message: string): void {
    let entries = this.byRule.get(rule);
    if (entries === undefined) {
      entries = new Map();
      this.byRule.set(rule, entries);
    }
    const text = message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
    const known = entries.get(text);
    if (known !== undefined) {
      known.count++;
      if (page !== undefined) {
        known.pages ??= [];
        if (known.pages.length < MAX_PAGES_PER_FAILURE && !known.pages.includes(page)) known.pages.push(page);
      }
    } else if (entries.size < this.max) entries.set(text, { object, ...(page === undefined ? {} : { page, pages: [page] }), message: text, count: 1 });
  }

  of(rule: Rule): RuleFailure[] {
    return [...(this.byRule.get(rule)?.values() ?? [])];
  }
}
