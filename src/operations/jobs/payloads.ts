/**
 * The payloads of the queue kinds of background work, shared by whoever enqueues and whoever runs them.
 */

/** Kind "job": a web-service call accepted with `Prefer: respond-async`, replayed later as it was made. */
export interface JobPayload {
  /** The web service (converter, toolbox, ...), for listings and statistics. */
  webservice: string;
  /** The replayed call: method, URL (path + query, without the async switch), the headers that matter, the parsed JSON body. */
  call: { method: string; url: string; headers: Record<string, string>; body?: unknown };
  /** The document the call works on, if any (path parameter documentId), and its lastModified when the job was accepted. */
  documentId?: string;
  documentModified?: number;
  /** Webhook target told about the outcome, if the caller gave one. */
  callbackUrl?: string;
}

/** Kind "webhook": one delivery of an event to a receiver. */
export interface WebhookPayload {
  url: string;
  /** e.g. "job.completed". */
  event: string;
  /** The JSON body POSTed (signed as sent). */
  body: unknown;
  /** The entry the event is about (a job id), for the DLQ listing. */
  subject?: string;
}

/** Queue kinds. */
export const JOB = 'job';
export const WEBHOOK = 'webhook';
export const SESSION_CLEANUP = 'session-cleanup';
export const STATISTICS_FLUSH = 'statistics-flush';
