import { EngineError } from '../../engine-error.js';

/**
 * Why an expression could not be compiled or evaluated. None of these reaches a client as such: a
 * profile expression that does not compile is a defect of the shipped profile data (the tests compile
 * all of them), and an evaluation that fails makes its rule `not-checked` (profile/check-rule.ts).
 *
 * - `syntax`: the source is not in the supported subset (or over a compile limit).
 * - `unknownProperty`: the expression reads a property the model object does not implement.
 * - `unknownVariable`: it reads a profile variable whose value could not be established.
 * - `limit`: an evaluation limit was reached (steps, string or regex input length).
 * - `type`: what JavaScript would throw as a TypeError (a method called on null, a method the value
 *   does not have), or a model value of a type the evaluator does not take.
 */
export type ExpressionErrorKind = 'syntax' | 'unknownProperty' | 'unknownVariable' | 'limit' | 'type';

export class ExpressionError extends EngineError<ExpressionErrorKind> {}
