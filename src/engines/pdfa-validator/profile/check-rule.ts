import { ExpressionError, type ExpressionErrorKind } from '../expression/errors.js';
import { evaluate, truthy } from '../expression/evaluate.js';
import { NO_PROPERTIES, NO_VARIABLES, type PropertyScope, type VariableScope, valueText } from '../expression/value.js';
import type { Rule } from './model.js';

/**
 * One rule on one object. `not-checked` whenever the answer is not known, never a pass:
 * - the object does not implement a property the test reads: decided before evaluating, from the
 *   names the test contains, so a short-circuit (`a || b` with `a` true) cannot hide a missing `b`;
 * - a variable the test reads is unknown (variables.ts);
 * - the evaluation failed (a limit, a TypeError such as a method on null).
 */
export type RuleOutcome = { status: 'passed' } | { status: 'failed'; message: string; arguments: string[] } | { status: 'not-checked'; reason: Exclude<ExpressionErrorKind, 'syntax'>; detail: string };

/** The outcome of almost every check, shared: a validation makes tens of thousands (one object each would be garbage). */
const PASSED: RuleOutcome = Object.freeze({ status: 'passed' });

/** Shown for an error argument that cannot be evaluated (the failure itself stands). */
export const UNAVAILABLE_ARGUMENT = '(not available)';

export function checkRule(rule: Rule, object: PropertyScope, variables: VariableScope = NO_VARIABLES): RuleOutcome {
  // Checked for every rule on every object (plain loops: no closure per check); the lists are built only when a name is missing.
  if (!allKnown(rule.properties, object, variables)) {
    const missing = rule.properties.filter((name) => !variables.has(name) && !object.has(name));
    return { status: 'not-checked', reason: 'unknownProperty', detail: `not implemented: ${missing.join(', ')}` };
  }
  if (!allKnown(rule.variables, NO_PROPERTIES, variables)) {
    const absent = rule.variables.filter((name) => !variables.has(name));
    return { status: 'not-checked', reason: 'unknownVariable', detail: `no value for the variable(s) ${absent.join(', ')}` };
  }
  let passed: boolean;
  try {
    passed = truthy(evaluate(rule.test, object, variables));
  } catch (error) {
    if (!(error instanceof ExpressionError) || error.kind === 'syntax') throw error;
    return { status: 'not-checked', reason: error.kind, detail: error.message };
  }
  if (passed) return PASSED;
  const args = rule.error.arguments.map((arg) => {
    try {
      return valueText(evaluate(arg, object, variables));
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      return UNAVAILABLE_ARGUMENT;
    }
  });
  return { status: 'failed', message: formatMessage(rule.error.message, args), arguments: args };
}

/** Every name is a variable or a property `object` implements. */
function allKnown(names: readonly string[], object: PropertyScope, variables: VariableScope): boolean {
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    if (!variables.has(name) && !object.has(name)) return false;
  }
  return true;
}

/** veraPDF's message format: `%1`, `%2`… stand for the arguments; any other `%` is text (`%PDF-1.n`). */
export function formatMessage(message: string, args: readonly string[]): string {
  return message.replace(/%(\d+)/g, (text, digits: string) => {
    const index = Number(digits);
    return index >= 1 && index <= args.length ? args[index - 1]! : text;
  });
}
