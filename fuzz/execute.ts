/**
 * Runs one case (or a saved reproducer) against the server: upload the document, make the call,
 * and check what one answer can tell: no 5xx, an answer at all, within the limit plus its margin,
 * errors in the webPDF structure, the document exactly as uploaded after a failed call, and a
 * refusal where one is owed (the urlconverter's internal URLs). The server-wide invariants are
 * checked per batch (invariants.ts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { downloadSha256, send, sha256, upload } from './api.js';
import { errorOf, wellFormedError, type Answer } from './http.js';
import { withMargin, type Limits } from './limits.js';
import { fillMarkers, limitMs, MUST_REFUSE, type HttpCall, type TargetGroup } from './targets.js';
import type { FuzzCase } from './cases.js';

export type ViolationKind =
  | 'crash'
  | 'unresponsive'
  | '5xx'
  | 'hang'
  | 'slow'
  | 'connection'
  | 'error-shape'
  /** A failed call left its document other than it was uploaded. */
  | 'document-changed'
  /** A call that must be refused (an internal URL to the urlconverter) was not. */
  | 'accepted'
  | 'memory'
  | 'tmp'
  | 'stray-process'
  | 'sentinel'
  | 'health';

export interface Violation {
  kind: ViolationKind;
  /** The call that showed it (upload, toolbox.scale, …) or "server". */
  target: string;
  detail: string;
  status?: number;
  errorCode?: number;
  message?: string;
  /** The error the server logged for it (type, message, first frames), when it logged one. */
  cause?: string;
}

export interface CallRecord {
  target: string;
  status: number;
  ms: number;
  limitMs: number;
  failure?: 'timeout' | 'connection';
  errorCode?: number;
  message?: string;
}

/** What is sent: the document, the call, and the payload that may travel inside it. */
export interface Replayable {
  target: string;
  group: TargetGroup;
  call: HttpCall;
  document: Buffer;
  fileName: string;
  payload?: Buffer;
}

export interface Execution {
  calls: CallRecord[];
  violations: Violation[];
  /** Whether the call itself was made (the upload may have been refused). */
  called: boolean;
}

export interface ExecuteContext {
  rest: string;
  token: string;
  limits: Limits;
  extraMarginMs: number;
  /** A valid PDF for the options that insert one (merge, portfolio): the committed minimal seed. */
  validPdf: Buffer;
}

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`../test/fixtures/pdf/${name}`, import.meta.url))).toString('base64');
const CERT = fixture('recipient.cert.pem');
/** A signer for signer.keyPair: the test recipient's certificate and key (RSA). */
const SIGNER = { SIGNCERT: CERT, SIGNKEY: fixture('recipient.key.pem') };

export function replayableOf(c: FuzzCase): Replayable {
  return c.carrier
    ? { target: c.target, group: c.group, call: c.call, document: c.carrier.bytes, fileName: `carrier.${c.carrier.ext}`, payload: c.input }
    : { target: c.target, group: c.group, call: c.call, document: c.input, fileName: `fuzz-${c.index}.${c.ext}` };
}

function record(target: string, answer: Answer, limit: number): CallRecord {
  const error = errorOf(answer);
  return {
    target,
    status: answer.status,
    ms: Math.round(answer.ms),
    limitMs: limit,
    ...(answer.failure ? { failure: answer.failure } : {}),
    ...(error?.errorCode !== undefined ? { errorCode: error.errorCode } : {}),
    ...(error?.errorMessage !== undefined ? { message: error.errorMessage.slice(0, 500) } : {}),
  };
}

/** The violations one answer shows; `mustRefuse`: only an error answer is right. */
export function judge(call: CallRecord, answer: Answer, mustRefuse = false): Violation[] {
  const base = { target: call.target, status: call.status, ...(call.errorCode !== undefined ? { errorCode: call.errorCode } : {}), ...(call.message ? { message: call.message } : {}) };
  if (call.failure === 'timeout') return [{ ...base, kind: 'hang', detail: `no answer within ${call.limitMs} ms` }];
  if (call.failure === 'connection') return [{ ...base, kind: 'connection', detail: answer.failureMessage ?? 'connection failed' }];
  const out: Violation[] = [];
  if (call.status >= 500) out.push({ ...base, kind: '5xx', detail: `status ${call.status}` });
  if (call.ms > call.limitMs) out.push({ ...base, kind: 'slow', detail: `${call.ms} ms > ${call.limitMs} ms` });
  if (mustRefuse && call.status < 400) out.push({ ...base, kind: 'accepted', detail: `status ${call.status} where a refusal is owed` });
  if (!wellFormedError(answer))
    out.push({ ...base, kind: 'error-shape', detail: `status ${call.status}, content-type ${String(answer.headers['content-type'])}: ${answer.body.toString('utf8').slice(0, 200)}` });
  return out;
}

/**
 * A failed operation leaves the stored document as it was (the document transaction): after an
 * error answer the document must still be the bytes that were uploaded. Calls without an answer
 * (hung, connection lost) are not judged: their work may still be running.
 */
export async function changedAfterFailure(rest: string, token: string, documentId: string, uploaded: Buffer, made: CallRecord): Promise<Violation | undefined> {
  if (made.status < 400 || made.failure) return undefined;
  const stored = await downloadSha256(rest, token, documentId);
  if (stored === sha256(uploaded)) return undefined;
  return {
    target: made.target,
    status: made.status,
    ...(made.errorCode !== undefined ? { errorCode: made.errorCode } : {}),
    ...(made.message ? { message: made.message } : {}),
    kind: 'document-changed',
    detail: stored ? `the call failed with ${made.status} but the document's bytes changed (sha256 ${stored})` : `the call failed with ${made.status} and the document cannot be read any more`,
  };
}

export async function execute(context: ExecuteContext, r: Replayable): Promise<Execution> {
  const { rest, token, limits, extraMarginMs } = context;
  const uploadLimit = withMargin(limitMs('upload', limits), extraMarginMs);
  // The client waits a little longer than the limit, so that "slow" and "no answer" are told apart.
  const uploaded = await upload(rest, token, r.document, r.fileName, uploadLimit + 30_000);
  const uploadCall = record('upload', uploaded.answer, uploadLimit);
  const calls = [uploadCall];
  const violations = judge(uploadCall, uploaded.answer);
  if (!uploaded.documentId) return { calls, violations, called: false };
  const documentId = uploaded.documentId;
  const markers = {
    DOCID: documentId,
    SELFID: Buffer.from(documentId).toString('base64'),
    CARRIER: (r.payload ? r.document : context.validPdf).toString('base64'),
    PAYLOAD: r.payload?.toString('base64') ?? '',
    // Inside a JSON string: escaped as JSON escapes it (invalid UTF-8 becomes U+FFFD on the way).
    PAYLOADTEXT: JSON.stringify(r.payload?.toString('utf8') ?? '').slice(1, -1),
    CERT,
    ...SIGNER,
  };
  const path = r.call.path.replace('@@DOCID@@', documentId);
  const body = fillMarkers(r.call.body, markers);
  const limit = withMargin(limitMs(r.group, limits), extraMarginMs);
  const answer = await send(rest, token, r.call.method, path, body, limit + 30_000);
  const made = record(r.target, answer, limit);
  calls.push(made);
  violations.push(...judge(made, answer, MUST_REFUSE.has(r.group)));
  const changed = await changedAfterFailure(rest, token, documentId, r.document, made);
  if (changed) violations.push(changed);
  return { calls, violations, called: true };
}
