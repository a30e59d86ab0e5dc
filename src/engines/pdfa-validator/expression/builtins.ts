import { ExpressionError } from './errors.js';
import { LIMITS } from './limits.js';
import type { Value } from './value.js';

/**
 * The only methods an expression can call, with JavaScript's behaviour for the receiver's type, plus a
 * Java compatibility layer: the profiles were written for veraPDF's Rhino engine, where strings are
 * also Java strings (`lastID.length()`, `.equals`, `.contains`, `.isEmpty()`). Arguments are coerced as
 * JavaScript coerces them (String(x), Number(x)). A regex argument must be a regex literal: no pattern is
 * ever built from a value. Everything else is a `type` error, as JavaScript's TypeError would be.
 *
 * The eight PDF/A profiles use: `.length`, `.length()`, `.test()`, `.search()`, `.split()`, `.filter()`,
 * `.toString()`, `.indexOf()` and `Math.abs()` (test/engines/pdfa-validator/expression/profiles.test.ts).
 */
export type Callback = (element: Value) => Value;
export type Argument = Value | Callback;

export interface Budget {
  /** Counts work proportional to a value's size (elements a split makes or a filter visits). */
  charge(steps: number): void;
}

type Method<R> = (receiver: R, args: Argument[], budget: Budget) => Value;

const STRING_METHODS: Record<string, Method<string>> = {
  length: (s) => s.length,
  indexOf: (s, args) => s.indexOf(text(args[0]), position(args[1])),
  lastIndexOf: (s, args) => s.lastIndexOf(text(args[0]), args[1] === undefined ? undefined : position(args[1])),
  includes: (s, args) => s.includes(text(args[0]), position(args[1])),
  contains: (s, args) => s.includes(text(args[0])),
  startsWith: (s, args) => s.startsWith(text(args[0]), position(args[1])),
  endsWith: (s, args) => s.endsWith(text(args[0]), args[1] === undefined ? undefined : position(args[1])),
  charAt: (s, args) => s.charAt(position(args[0])),
  substring: (s, args) => s.substring(position(args[0]), args[1] === undefined ? undefined : position(args[1])),
  toLowerCase: (s) => s.toLowerCase(),
  toUpperCase: (s) => s.toUpperCase(),
  trim: (s) => s.trim(),
  toString: (s: string) => s,
  equals: (s, args) => typeof args[0] === 'string' && args[0] === s,
  isEmpty: (s) => s.length === 0,
  search: (s, args) => regexInput(s).search(regex(args[0], 'search')),
  match: (s, args) => {
    const found = regexInput(s).match(regex(args[0], 'match')) as (string | undefined)[] | null;
    return found === null ? null : [...found];
  },
  split: (s, args, budget) => {
    const separator = args[0];
    const limit = args[1] === undefined ? undefined : Number(args[1]) >>> 0;
    let parts: string[];
    if (separator === undefined) parts = [s];
    else if (separator instanceof RegExp) parts = regexInput(s).split(regex(separator, 'split'), limit);
    else parts = s.split(text(separator), limit);
    budget.charge(parts.length);
    return parts;
  },
};

const ARRAY_METHODS: Record<string, Method<Value[]>> = {
  length: (a) => a.length,
  filter: (a, args, budget) => {
    const keep = args[0];
    if (typeof keep !== 'function') throw new ExpressionError('type', 'filter() takes a function (element => condition)');
    budget.charge(a.length);
    return a.filter((element) => Boolean(keep(element)));
  },
  indexOf: (a, args) => a.indexOf(value(args[0])),
  includes: (a, args) => a.includes(value(args[0])),
  join: (a, args) => checkedLength(a.join(args[0] === undefined ? ',' : text(args[0]))),
  toString: (a: Value[]) => checkedLength(String(a)),
};

const REGEX_METHODS: Record<string, Method<RegExp>> = {
  test: (re, args) => {
    re.lastIndex = 0;
    return re.test(regexInput(text(args[0])));
  },
  toString: (re: RegExp) => String(re),
};

const OTHER_METHODS: Record<string, Method<number | boolean>> = {
  toString: (v: number | boolean) => String(v),
};

export const METHODS: ReadonlySet<string> = new Set([...Object.keys(STRING_METHODS), ...Object.keys(ARRAY_METHODS), ...Object.keys(REGEX_METHODS)]);

const MATH: Record<string, (...numbers: number[]) => number> = {
  abs: Math.abs,
  min: Math.min,
  max: Math.max,
  floor: Math.floor,
  ceil: Math.ceil,
  round: Math.round,
};

export const MATH_METHODS: ReadonlySet<string> = new Set(Object.keys(MATH));

export function callMethod(receiver: Value, method: string, args: Argument[], budget: Budget): Value {
  if (receiver === null || receiver === undefined) throw new ExpressionError('type', `cannot call ${method}() on ${receiver}`);
  const table: Record<string, Method<never>> = typeof receiver === 'string' ? STRING_METHODS : Array.isArray(receiver) ? ARRAY_METHODS : receiver instanceof RegExp ? REGEX_METHODS : OTHER_METHODS;
  // Own keys only: a method name is never looked up on a prototype.
  const implementation = Object.hasOwn(table, method) ? table[method] : undefined;
  if (implementation === undefined) throw new ExpressionError('type', `a ${kindOf(receiver)} has no method ${method}()`);
  if (typeof receiver === 'string') checkedLength(receiver);
  return implementation(receiver as never, args, budget);
}

export function callMath(method: string, args: Value[]): number {
  const implementation = Object.hasOwn(MATH, method) ? MATH[method] : undefined;
  if (implementation === undefined) throw new ExpressionError('type', `Math.${method} is not supported`);
  return implementation(...args.map((arg) => Number(arg)));
}

/** `.length` of a string or array; JavaScript gives undefined for other values, which no profile means: a type error. */
export function lengthOf(value: Value): number {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  throw new ExpressionError('type', `a ${kindOf(value)} has no length`);
}

export function checkedLength<T extends Value>(result: T): T {
  if (typeof result === 'string' && result.length > LIMITS.stringLength) throw new ExpressionError('limit', `a string is longer than ${LIMITS.stringLength} characters`);
  return result;
}

function kindOf(value: Value): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'array';
  if (value instanceof RegExp) return 'regular expression';
  return typeof value;
}

function value(arg: Argument): Value {
  if (typeof arg === 'function') throw new ExpressionError('type', 'a function is not a value');
  return arg;
}

function text(arg: Argument): string {
  return String(value(arg));
}

function position(arg: Argument): number {
  return Number(value(arg));
}

function regex(arg: Argument, method: string): RegExp {
  if (!(arg instanceof RegExp)) throw new ExpressionError('type', `${method}() takes a regular expression literal`);
  arg.lastIndex = 0;
  return arg;
}

function regexInput(input: string): string {
  if (input.length > LIMITS.regexInput) throw new ExpressionError('limit', `a regular expression is run on at most ${LIMITS.regexInput} characters (got ${input.length})`);
  return input;
}
