import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Errors, QuireError } from '../../core/errors.js';
import { isWebservice } from '../../core/webservices.js';
import type { DocumentService } from '../../operations/documents/document-service.js';
import { toJobView } from '../../operations/jobs/job-view.js';
import { JOB, type JobPayload, type JobPayloadBase, type OperationJobPayload } from '../../operations/jobs/payloads.js';
import type { Webhooks } from '../../operations/jobs/webhooks.js';
import type { BackgroundQueue } from '../../operations/queue/background-queue.js';
import type { QueueEntry } from '../../storage/queue/queue-store.js';
import { seeDocumentInfo } from '../replies.js';
import { Job } from '../schemas/jobs.js';
import { ref } from '../schemas/shared.js';
import { INTERNAL_SESSION_HEADER } from './internal-calls.js';

export interface AsyncCallsOptions {
  restBase: string;
  queue: BackgroundQueue;
  webhooks: Webhooks;
  documents: DocumentService;
  /**
   * Cluster mode, an `api` node (no engines): a synchronous web-service call runs on a worker as a queued
   * job, and the call waits for it up to `timeoutMs(webservice)`, answering as if it had run here.
   */
  forwardSync?: { timeoutMs(webservice: string): number } | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the call was accepted as an asynchronous job (202): observers count the job's replay instead. */
    acceptedAsJob?: boolean;
  }
}

/** Webhook target of an asynchronous call (or the query parameter `callbackUrl`). */
export const CALLBACK_HEADER = 'x-quire-callback-url';
/** Query parameters the replayed call goes without: the asynchronous switches, and a token (the job runs as its session). */
const DROPPED_PARAMETERS = ['async', 'callbackUrl', 'Authorization'];
/** The headers a replayed call keeps: what shapes the answer. Never credentials: the job runs as its session. */
const REPLAYED_HEADERS = ['content-type', 'accept', 'accept-language'];

/**
 * Asynchronous web-service calls and back-pressure, as a preHandler: it runs after authentication
 * and schema validation, so a malformed call is refused synchronously (400) and never becomes a job.
 *
 * Web-service operations (POST under `{restBase}/<webservice>/`):
 * - every call is admitted by the work queue first: past `queue.maxPending` waiting or running
 *   entries, synchronous calls are refused (429 QUEUE_FULL) as well as asynchronous ones, so that
 *   they cannot overtake a queue that far behind. Replayed calls are the queue's own work and pass;
 * - with `Prefer: respond-async` (RFC 7240) or `?async=true` the call is stored as a job and answered
 *   202 with the job resource and `Location: {restBase}/jobs/{jobId}`.
 * Other routes: `?async=true` is refused (ASYNC_UNSUPPORTED); a `Prefer: respond-async` is ignored,
 * as RFC 7240 asks of preferences a server cannot honour (the answer has no Preference-Applied).
 */
export function registerAsyncCalls(app: FastifyInstance, options: AsyncCallsOptions): void {
  const { restBase, queue, webhooks, documents, forwardSync } = options;
  // Every web-service operation may answer 202 with the job: the OpenAPI document says so.
  app.addHook('onRoute', (route: RouteOptions) => {
    if (![route.method].flat().some((method) => webserviceOf(route.url, method, restBase))) return;
    const response = { ...(route.schema?.response as object | undefined), 202: ref(Job) };
    route.schema = { ...route.schema, response } as RouteOptions['schema'];
  });
  // Callback-style with a synchronous path for every call that is not a web-service operation (GET info,
  // downloads, lists…): an async hook would cost each of them a promise.
  app.addHook('preHandler', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (route === undefined) {
      done();
      return;
    }
    const webservice = webserviceOf(route, request.method, restBase);
    if (webservice === undefined) {
      const search = request.url.includes('?') ? splitUrl(request.url)[1] : undefined;
      if (search && asyncParameter(new URLSearchParams(search))) {
        done(
          new QuireError(
            'ASYNC_UNSUPPORTED',
            `${request.method} ${route} cannot run asynchronously: only web-service operations can (POST converter, toolbox, pdfa, signature, ocr, barcode, urlconverter).`,
          ),
        );
        return;
      }
      done();
      return;
    }
    if (request.headers[INTERNAL_SESSION_HEADER] !== undefined) {
      done();
      return;
    }
    // A hook that answers (202) does not call done: the reply is sent.
    acceptAsJob(request, reply, webservice).then((accepted) => {
      if (!accepted) done();
    }, done);
  });

  /** Admits a web-service call; answers 202 with its job and returns true when it was asked to run asynchronously. */
  async function acceptAsJob(request: FastifyRequest, reply: FastifyReply, webservice: string): Promise<boolean> {
    const [path = '', search = ''] = splitUrl(request.url);
    const query = new URLSearchParams(search);
    const asyncQuery = asyncParameter(query);
    queue.admit();
    const preferred = prefersAsync(request.headers.prefer);
    const callbackUrl = callbackOf(request, query);
    const synchronous = !asyncQuery && !preferred;
    if (synchronous) {
      if (callbackUrl !== undefined) throw new QuireError('PARAMETER', 'A webhook (X-Quire-Callback-Url or callbackUrl) needs an asynchronous call: add Prefer: respond-async or async=true.');
      if (!forwardSync || queue.jobPayloads !== 'operation') return false;
    }
    if (callbackUrl !== undefined) await webhooks.checkCallbackUrl(callbackUrl);
    const session = request.session;
    if (!session) throw new QuireError('TOKEN_MISSING', 'This call needs an access token: Authorization: Bearer <token>.');
    const documentId = (request.params as { documentId?: unknown } | undefined)?.documentId;
    const target = typeof documentId === 'string' ? await documents.info(session, documentId) : undefined;
    for (const name of DROPPED_PARAMETERS) query.delete(name);
    const common: JobPayloadBase = {
      webservice,
      ...(target ? { documentId: target.id, documentModified: target.lastModified } : {}),
      ...(callbackUrl === undefined ? {} : { callbackUrl }),
      ...(synchronous ? { synchronous: true } : {}),
    };
    // Cluster mode: typed operation data any node runs without HTTP; embedded: the call, replayed in-process.
    const payload: JobPayload | OperationJobPayload =
      queue.jobPayloads === 'operation'
        ? { ...common, operation: operationOf(request) }
        : {
            ...common,
            call: {
              method: request.method,
              url: query.size > 0 ? `${path}?${query.toString()}` : path,
              headers: replayedHeaders(request),
              ...(request.body === undefined ? {} : { body: request.body }),
            },
          };
    const entry = await queue.enqueue(JOB, payload, { sessionId: session.id });
    request.log.info({ jobId: entry.id, webservice, documentId: target?.id }, synchronous ? 'call forwarded to the workers' : 'job accepted');
    request.acceptedAsJob = true;
    if (synchronous && forwardSync) {
      await answerForwarded(reply, await settledJob(queue, entry.id, forwardSync.timeoutMs(webservice)), restBase);
      return true;
    }
    reply.code(202).header('location', `${restBase}/jobs/${entry.id}`);
    if (preferred) reply.header('preference-applied', 'respond-async');
    reply.send(toJobView(entry));
    return true;
  }
}

/** Polls the shared queue until the job settled (it runs on another node), or cancels it and fails past the deadline. */
async function settledJob(queue: BackgroundQueue, id: string, timeoutMs: number): Promise<QueueEntry<JobPayloadBase>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const entry = await queue.get(id);
    if (entry && (entry.state === 'DONE' || entry.state === 'FAILED_PERMANENT')) return entry as QueueEntry<JobPayloadBase>;
    if (Date.now() >= deadline) {
      await queue.cancel(id).catch(() => false);
      throw new QuireError('PROCESSING_TIMEOUT', `The call did not finish on a worker node within ${Math.round(timeoutMs / 1000)} s.`);
    }
    await new Promise((resolve) => setTimeout(resolve, FORWARD_POLL_MS));
  }
}

/** How often an api node looks at a forwarded call's job: a few Redis reads per second per waiting call. */
const FORWARD_POLL_MS = 50;

/** A forwarded call's job as the synchronous answer: 303 to the document's information, or the job's error structure. */
async function answerForwarded(reply: FastifyReply, entry: QueueEntry<JobPayloadBase>, restBase: string): Promise<void> {
  const view = toJobView(entry);
  const documentId = (view.result as { documentId?: unknown } | undefined)?.documentId;
  if (typeof documentId === 'string') {
    seeDocumentInfo(reply, restBase, documentId);
    return;
  }
  const error = view.error ?? { errorCode: Errors.INTERNAL.errorCode, errorMessage: 'The forwarded call finished without a result.', stackTrace: '' };
  const status = Object.values(Errors).find((definition) => definition.errorCode === error.errorCode)?.status ?? 500;
  await reply.code(status).type('application/json').send(error);
}

/** The route's input as validated (defaults filled in), without the asynchronous switches and the token. */
function operationOf(request: FastifyRequest): OperationJobPayload['operation'] {
  const query = { ...(request.query as Record<string, unknown> | undefined) };
  for (const name of DROPPED_PARAMETERS) delete query[name];
  return {
    operationId: String(request.routeOptions.schema?.operationId ?? ''),
    params: { ...(request.params as Record<string, unknown> | undefined) },
    query,
    ...(request.body === undefined ? {} : { body: request.body }),
  };
}

/** The web service of an operation route (POST `{restBase}/<webservice>/...`), else undefined. */
function webserviceOf(route: string, method: string, restBase: string): string | undefined {
  if (method !== 'POST' || !route.startsWith(`${restBase}/`)) return undefined;
  const [name, operation] = route.slice(restBase.length + 1).split('/');
  return name !== undefined && operation !== undefined && isWebservice(name) ? name : undefined;
}

/** `async=true` / `async=false` (or absent); anything else is a parameter error. */
function asyncParameter(query: URLSearchParams): boolean {
  const values = query.getAll('async');
  for (const value of values) {
    if (value !== 'true' && value !== 'false') throw new QuireError('PARAMETER', `Invalid parameter querystring.async: must be true or false, not "${value}".`);
  }
  return values.includes('true');
}

/** Whether a Prefer header (RFC 7240: comma-separated preferences, each `name[=value]` with `;` parameters) asks for respond-async. */
function prefersAsync(header: string | string[] | undefined): boolean {
  const fields = header === undefined ? [] : [header].flat();
  return fields.some((field) => splitOutsideQuotes(field, ',').some((preference) => preference.split(/[=;]/)[0]!.trim().toLowerCase() === 'respond-async'));
}

/** The webhook target: the X-Quire-Callback-Url header or the callbackUrl query parameter (one of them, or both alike). */
function callbackOf(request: FastifyRequest, query: URLSearchParams): string | undefined {
  const header = request.headers[CALLBACK_HEADER];
  const fromHeader = typeof header === 'string' && header.trim() !== '' ? header.trim() : undefined;
  const fromQuery = query.get('callbackUrl') ?? undefined;
  if (fromHeader !== undefined && fromQuery !== undefined && fromHeader !== fromQuery) {
    throw new QuireError('PARAMETER', 'The call names two different webhooks (X-Quire-Callback-Url and callbackUrl); give one.');
  }
  return fromHeader ?? fromQuery;
}

function replayedHeaders(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

function splitUrl(url: string): [string, string] {
  const question = url.indexOf('?');
  return question < 0 ? [url, ''] : [url.slice(0, question), url.slice(question + 1)];
}

/** Splits at `separator` except inside double-quoted strings (a quoted preference value may hold commas). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && quoted) {
      current += c + (text[i + 1] ?? '');
      i++;
    } else if (c === '"') {
      quoted = !quoted;
      current += c;
    } else if (c === separator && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}
