import { STATUS_CODES } from 'node:http';
import type { ErrorDefinition, ExceptionBody } from '../../core/errors.js';

/**
 * The statuses answered as an HTTP (transport) error instead of a webPDF exception. The official
 * clients raise their server exception (the `errorCode` reaches the caller) when the Content-Type is
 * exactly `application/json` and `errorCode` is not 0, and a plain HTTP error (their -34
 * `HTTP_CUSTOM_ERROR` with the status) otherwise. A status belongs here when the clients' own tests
 * expect that HTTP error, i.e. when webPDF answers it from its HTTP container before any web service
 * sees the call: 415, a body the endpoint cannot read at all (the TypeScript client's testNullEntity
 * posts documents/ with an empty urlencoded body and expects HTTP_CUSTOM_ERROR 415). Every other status keeps the
 * exception structure as `application/json`, which is what the clients' tests expect of them.
 * docs/errors.md states this rule from this set (scripts/docs.ts).
 */
export const TRANSPORT_ERROR_STATUSES: ReadonlySet<number> = new Set([415]);

export const EXCEPTION_TYPE = 'application/json';
export const PROBLEM_TYPE = 'application/problem+json';

/** The exception structure, plus the RFC 9457 members when the status is a transport error. */
export type ErrorAnswerBody = ExceptionBody & Partial<ProblemMembers>;

interface ProblemMembers {
  type: string;
  title: string;
  status: number;
  detail: string;
}

/**
 * What an error answer carries: for a transport-error status an RFC 9457 problem (`application/problem+json`,
 * which the clients do not read as a webPDF exception) that still holds `errorCode`, `errorMessage` and
 * `stackTrace` for a human or a lenient client; for every other status the webPDF exception structure.
 */
export function errorAnswer(definition: ErrorDefinition, message: string, stackTrace: string): { contentType: string; body: ErrorAnswerBody } {
  const exception: ExceptionBody = { errorCode: definition.errorCode, errorMessage: message, stackTrace };
  if (!TRANSPORT_ERROR_STATUSES.has(definition.status)) return { contentType: EXCEPTION_TYPE, body: exception };
  // "about:blank": the status says it all (RFC 9457 §4.2.1); title is then the status phrase.
  const problem: ProblemMembers = { type: 'about:blank', title: STATUS_CODES[definition.status] ?? 'Error', status: definition.status, detail: message };
  return { contentType: PROBLEM_TYPE, body: { ...problem, ...exception } };
}
