import { Errors, type ExceptionBody } from '../../core/errors.js';
import type { QueueEntry } from '../../storage/queue/queue-store.js';
import type { JobPayloadBase } from './payloads.js';

/**
 * The job resource (a Quire extension, docs/jobs.md): what `GET jobs/{jobId}` answers, the 202 of an
 * asynchronous call and the body of the `job.completed` webhook, derived from the job's queue entry.
 */
export type JobState = 'queued' | 'running' | 'succeeded' | 'failed';

/** The result a job's DONE entry keeps: the DocumentFile the call produced, or the error it answered. */
export type JobOutcome = { status: 'succeeded'; documentFile: Record<string, unknown> } | { status: 'failed'; error: ExceptionBody };

export interface JobView {
  jobId: string;
  state: JobState;
  /** 0–100. */
  progress: number;
  webservice: string;
  documentId?: string;
  /** ISO 8601. */
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  attempts: number;
  /** The DocumentFile of the result (state succeeded). */
  result?: Record<string, unknown>;
  /** Why the job failed (state failed). */
  error?: ExceptionBody;
  callbackUrl?: string;
}

const STATES: Record<QueueEntry['state'], JobState> = { PENDING: 'queued', RUNNING: 'running', DONE: 'succeeded', FAILED_PERMANENT: 'failed' };

export function toJobView(entry: QueueEntry<JobPayloadBase>): JobView {
  const { payload } = entry;
  const finished = entry.finishedAt ?? entry.failedAt;
  const view: JobView = {
    jobId: entry.id,
    state: STATES[entry.state],
    progress: entry.progress,
    webservice: payload.webservice,
    ...(payload.documentId === undefined ? {} : { documentId: payload.documentId }),
    createdAt: iso(entry.createdAt),
    ...(entry.startedAt === undefined ? {} : { startedAt: iso(entry.startedAt) }),
    ...(finished === undefined || entry.state === 'PENDING' || entry.state === 'RUNNING' ? {} : { finishedAt: iso(finished) }),
    attempts: entry.attempts,
    ...(payload.callbackUrl === undefined ? {} : { callbackUrl: payload.callbackUrl }),
  };
  if (entry.state === 'DONE') {
    const outcome = isOutcome(entry.result) ? entry.result : undefined;
    if (outcome?.status === 'succeeded') view.result = outcome.documentFile;
    else {
      view.state = 'failed';
      view.error = outcome?.error ?? { errorCode: Errors.INTERNAL.errorCode, errorMessage: 'The job finished without a result.', stackTrace: '' };
    }
  } else if (entry.state === 'FAILED_PERMANENT') {
    view.error = failureFromMessage(entry.lastError);
  }
  return view;
}

/**
 * A queue entry keeps a failure as one line (`lastError`, shown by the replay queue too); the job's
 * error code travels in it as a prefix so that the job resource can answer the error structure.
 */
export function failureMessage(error: Pick<ExceptionBody, 'errorCode' | 'errorMessage'>): string {
  return `errorCode ${error.errorCode}: ${error.errorMessage}`;
}

/** The error structure of a failed entry; failures without a code (a crash, a server stop) are -1. */
export function failureFromMessage(message: string | undefined): ExceptionBody {
  const match = /^errorCode (-?\d+): ([\s\S]*)$/.exec(message ?? '');
  if (match) return { errorCode: Number(match[1]), errorMessage: match[2]!, stackTrace: '' };
  return { errorCode: Errors.INTERNAL.errorCode, errorMessage: message ?? 'The job failed.', stackTrace: '' };
}

function isOutcome(value: unknown): value is JobOutcome {
  if (typeof value !== 'object' || value === null) return false;
  const status = (value as { status?: unknown }).status;
  return status === 'succeeded' || status === 'failed';
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
