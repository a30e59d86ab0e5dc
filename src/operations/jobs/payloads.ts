/**
 * The payloads of the queue kinds of background work, shared by whoever enqueues and whoever runs them.
 */

/** What every job of kind "job" (a web-service call accepted with `Prefer: respond-async`) carries besides how it runs. */
export interface JobPayloadBase {
  /** The web service (converter, toolbox, ...), for listings and statistics. */
  webservice: string;
  /** The document the call works on, if any (path parameter documentId), and its lastModified when the job was accepted. */
  documentId?: string;
  documentModified?: number;
  /** Webhook target told about the outcome, if the caller gave one. */
  callbackUrl?: string;
  /** A synchronous call an `api` node forwarded to the workers: its caller waits, so it fails as the call would (a locked document: 409 at once). */
  synchronous?: true;
}

/** Kind "job", embedded: the call is replayed later in-process as it was made. */
export interface JobPayload extends JobPayloadBase {
  /** The replayed call: method, URL (path + query, without the async switch), the headers that matter, the parsed JSON body. */
  call: { method: string; url: string; headers: Record<string, string>; body?: unknown };
}

/** Kind "job", cluster: typed operation data that any node runs through the web service's route, without HTTP. */
export interface OperationJobPayload extends JobPayloadBase {
  operation: JobOperation;
}

/** A web-service route's input as validated when the call was accepted (schema defaults filled in). */
export interface JobOperation {
  /** The route's operationId (e.g. `toolbox`, `toolboxNew`): names the module's route that runs it. */
  operationId: string;
  params: Record<string, unknown>;
  /** Without the asynchronous switches and without a token (`Authorization`): the job runs as its session. */
  query: Record<string, unknown>;
  body?: unknown;
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
