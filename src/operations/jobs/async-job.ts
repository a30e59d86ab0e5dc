import type { Config } from '../../config/load.js';
import { Errors, QuireError, type ExceptionBody } from '../../core/errors.js';
import type { DocumentRecord } from '../../storage/document-store.js';
import type { QueueEntry } from '../../storage/queue/queue-store.js';
import type { DocumentService } from '../documents/document-service.js';
import type { BackgroundQueue } from '../queue/background-queue.js';
import { PermanentFailure, type QueueHandler, type RecoveryDecision } from '../queue/work-queue.js';
import { failureMessage, toJobView, type JobOutcome } from './job-view.js';
import { JOB, WEBHOOK, type JobPayload, type JobPayloadBase, type WebhookPayload } from './payloads.js';
import type { Webhooks } from './webhooks.js';

/** A replayed web-service call and its answer (server.ts runs it through Fastify's inject). */
export interface ReplayedCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface ReplayedAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** Runs a call as the session `sessionId` would (no token needed: the call never leaves the process). */
export type CallExecutor = (call: ReplayedCall, sessionId: string) => Promise<ReplayedAnswer>;

export interface JobHandlerDeps {
  config: Config;
  execute: CallExecutor;
  documents: DocumentService;
  queue: BackgroundQueue;
  webhooks: Webhooks;
}

/**
 * The "job" queue handler: an accepted asynchronous web-service call is replayed as it was made, as
 * its session, and its answer becomes the job's result. Answers that a later attempt may change
 * (429 engine busy, 5xx) are retried with backoff; any other error answer is the job's result
 * (state failed), not a failure of the queue: replaying the same call would fail the same way.
 */
export function jobHandler(deps: JobHandlerDeps): QueueHandler<JobPayload> {
  return {
    kind: JOB,
    concurrency: deps.config.queue.jobWorkers,
    maxAttempts: deps.config.queue.maxAttempts,
    backoff: { baseMs: deps.config.queue.retryDelayMs, maxMs: deps.config.queue.maxRetryDelayMs },
    keepDoneMs: deps.config.queue.keepResultsMs,
    recover: async (entry) => recoverJob(deps.documents, entry.payload, entry.sessionId),
    run: async (entry) => {
      if (entry.sessionId === undefined) throw new PermanentFailure('the job belongs to no session');
      return runJob(deps.execute, entry.payload, entry.sessionId);
    },
    settled: (entry) => enqueueCompletionWebhook(deps.queue, entry),
  };
}

/**
 * Enqueues the `job.completed` delivery of a finished job that named a callback URL. The outcome is
 * told even when the queue is full: the job was accepted, its webhook belongs to it. The dedupe key
 * (per job and per requeue) lets the cluster queue store one delivery when a settle hook runs again
 * because a node died after it; the embedded queue settles once and ignores the key.
 */
export async function enqueueCompletionWebhook(queue: BackgroundQueue, entry: QueueEntry<JobPayloadBase>): Promise<void> {
  const url = entry.payload.callbackUrl;
  if (url === undefined) return;
  const requeues = entry.history.filter((event) => event.event === 'requeued').length;
  await queue.enqueue<WebhookPayload>(WEBHOOK, { url, event: 'job.completed', body: toJobView(entry), subject: entry.id }, { bypassBound: true, dedupeKey: `job.completed:${entry.id}:${requeues}` });
}

async function runJob(execute: CallExecutor, payload: JobPayload, sessionId: string): Promise<JobOutcome> {
  const answer = await execute(payload.call, sessionId);
  if (answer.statusCode === 303) {
    // The webPDF answer of a call that produced a document: its information is the job's result.
    const location = header(answer.headers.location);
    if (location === undefined) throw new PermanentFailure('the call answered 303 without a Location');
    return outcome(await execute({ method: 'GET', url: location, headers: { accept: 'application/json' } }, sessionId));
  }
  return outcome(answer);
}

/** A successful answer's DocumentFile, or the error answer as the job's failure (thrown when retrying can help). */
function outcome(answer: ReplayedAnswer): JobOutcome {
  const body = parseObject(answer.body);
  if (answer.statusCode >= 200 && answer.statusCode < 300) {
    if (!body) throw new PermanentFailure(`the call answered ${answer.statusCode} without a JSON document`);
    return { status: 'succeeded', documentFile: body };
  }
  return failedOutcome(answer.statusCode, exceptionOf(answer.statusCode, body));
}

/** A job whose call failed with this status and error: its result (state failed), or thrown when retrying can help. */
export function failedOutcome(statusCode: number, error: ExceptionBody): JobOutcome {
  // 401: the session ended (logged out, expired, closed): nothing can run as it any more.
  if (statusCode === 401) throw new PermanentFailure(failureMessage(error));
  if (statusCode === 429 || statusCode >= 500) throw new Error(failureMessage(error));
  return { status: 'failed', error };
}

/**
 * A job a crash interrupted runs again only if its document is unchanged since the job was
 * accepted: the web services commit their result by one atomic rename, so an unchanged document
 * means the interrupted attempt did not commit. A changed one may carry the attempt's result (or
 * another call's change), and running the call again could apply it twice.
 */
async function recoverJob(documents: DocumentService, payload: JobPayload, sessionId: string | undefined): Promise<RecoveryDecision> {
  const { documentId, documentModified } = payload;
  if (documentId === undefined || documentModified === undefined || sessionId === undefined) return { retry: true };
  let record: DocumentRecord;
  try {
    record = await documents.info({ id: sessionId }, documentId);
  } catch (error) {
    // Gone with its session or deleted: running again reports that as the job's error.
    if (error instanceof QuireError) return { retry: true };
    throw error;
  }
  if (record.lastModified === documentModified) return { retry: true };
  return { retry: false, reason: 'interrupted by a server stop after it may have changed the document; check it and resubmit' };
}

function exceptionOf(statusCode: number, body: Record<string, unknown> | undefined): ExceptionBody {
  if (body && typeof body.errorCode === 'number' && typeof body.errorMessage === 'string') {
    return { errorCode: body.errorCode, errorMessage: body.errorMessage, stackTrace: typeof body.stackTrace === 'string' ? body.stackTrace : '' };
  }
  return { errorCode: Errors.INTERNAL.errorCode, errorMessage: `The call answered HTTP ${statusCode} without an error structure.`, stackTrace: '' };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function header(value: string | string[] | number | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : String(first);
}
