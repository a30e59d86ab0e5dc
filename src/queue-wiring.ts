import path from 'node:path';
import type { BaseLogger } from 'pino';
import type { Config } from './config/load.js';
import { Errors, QuireError } from './core/errors.js';
import type { OperationEvents } from './observability/operation-events.js';
import { toDocumentFile } from './http/schemas/documents.js';
import type { DocumentDescriber } from './operations/documents/describe.js';
import type { DocumentService } from './operations/documents/document-service.js';
import { jobHandler, type CallExecutor } from './operations/jobs/async-job.js';
import type { OperationRunner } from './operations/jobs/cluster-job.js';
import type { Webhooks } from './operations/jobs/webhooks.js';
import type { BackgroundQueue } from './operations/queue/background-queue.js';
import { PermanentFailure, WorkQueue, type QueueHandler } from './operations/queue/work-queue.js';
import { REGISTERED, type WebServices } from './operations/webservices.js';
import type { SessionService } from './sessions/session-service.js';
import { FileQueueStore } from './storage/queue/file-queue-store.js';

/**
 * The work queue of this server and the handler of its async web-service jobs, by `cluster.mode`:
 * - `single` (the default): the embedded queue, a journal in the data dir; a job replays its recorded
 *   call in-process (exactly as before cluster mode existed);
 * - `cluster`: BullMQ on `cluster.redis`; a job is typed operation data any node runs through the web
 *   service's route, at most once per document commit. (An `api` node never calls `queue.start()`, so it
 *   runs no BullMQ worker and only enqueues.)
 */
export interface WorkQueueWiring {
  queue: BackgroundQueue;
  jobHandler(deps: JobHandlerWiring): QueueHandler<never>;
  /** After `queue.stop()`: closes the journal or the Redis connections. */
  close(): Promise<void>;
}

export interface JobHandlerWiring {
  documents: DocumentService;
  webhooks: Webhooks;
  /** Embedded: runs a recorded call through the application. */
  execute: CallExecutor;
  /** Cluster: what runs an operation and describes its result. */
  services: WebServices;
  sessions: SessionService;
  describer: DocumentDescriber;
  /** Cluster: a job's run counts in the statistics and metrics as the operation it is (embedded: the replayed call does). */
  events: OperationEvents;
  restBase: string;
}

export async function openWorkQueue(config: Config, logger: Pick<BaseLogger, 'info' | 'warn' | 'error'>): Promise<WorkQueueWiring> {
  const archiveFile = path.join(config.dataDir, 'queue', 'failed-archive.jsonl');
  const log = (level: 'info' | 'warn' | 'error', message: string, detail?: Record<string, unknown>) => logger[level](detail ?? {}, message);
  if (config.cluster.mode !== 'cluster') {
    const store = new FileQueueStore(path.join(config.dataDir, 'queue'));
    await store.open();
    const queue = new WorkQueue(store, { maxPending: config.queue.maxPending, archiveFile, pollMs: 60_000, log });
    return {
      queue,
      jobHandler: (deps) => jobHandler({ config, documents: deps.documents, queue, webhooks: deps.webhooks, execute: deps.execute }) as QueueHandler<never>,
      close: () => store.close(),
    };
  }
  // Loaded only in cluster mode: BullMQ and ioredis cost a single node ~15 MB of RSS for nothing.
  const [{ openBullmqConnections }, { ClusterWorkQueue }, { clusterJobHandler }] = await Promise.all([
    import('./storage/queue/bullmq-connections.js'),
    import('./operations/queue/cluster-work-queue.js'),
    import('./operations/jobs/cluster-job.js'),
  ]);
  const keepResultsMs = config.queue.keepResultsMs;
  const connections = openBullmqConnections(config.cluster.redis, { keepDoneMs: (kind) => (kind === 'job' ? keepResultsMs : 0), log: logger });
  // The archive of purged failed entries is on the data dir, which is the shared mount in cluster mode.
  // The stalled check runs as often as a lock lives: a dead node's job runs again within two lock durations.
  const { lockDurationMs } = config.cluster.queue;
  const queue = new ClusterWorkQueue({
    store: connections.store,
    workerConnection: connections.workerConnection,
    commits: connections.commits,
    maxPending: config.queue.maxPending,
    archiveFile,
    lockDurationMs,
    stalledIntervalMs: lockDurationMs,
    log,
  });
  return {
    queue,
    jobHandler: (deps) =>
      clusterJobHandler({
        config,
        queue,
        commits: connections.commits,
        run: operationRunner(deps),
        documentFile: async (sessionId, documentId) => {
          const record = await deps.documents.info({ id: sessionId }, documentId);
          return toDocumentFile(record, deps.documents.isLocked(record), await deps.describer.describe(record)) as unknown as Record<string, unknown>;
        },
        documentModified: async (sessionId, documentId) => {
          try {
            return (await deps.documents.info({ id: sessionId }, documentId)).lastModified;
          } catch (error) {
            // Deleted (or its session gone): running again reports that as the job's error.
            if (error instanceof QuireError && error.status === 404) return undefined;
            throw error;
          }
        },
      }) as QueueHandler<never>,
    close: () => connections.close(),
  };
}

/**
 * Runs a typed job operation through its web service's route (`operationId`), as the session, without
 * HTTP, and reports it as the HTTP layer reports a call (one OperationEvent: 303 or the error's status).
 */
function operationRunner({ services, sessions, events, restBase }: Pick<JobHandlerWiring, 'services' | 'sessions' | 'events' | 'restBase'>): OperationRunner {
  const routes = new Map(REGISTERED.flatMap((module) => module.routes.map((route) => [route.operationId, { module, route }] as const)));
  return async (operation, sessionId) => {
    const found = routes.get(operation.operationId);
    if (!found) throw new PermanentFailure(`this node has no web-service operation "${operation.operationId}"`);
    const startedAt = Date.now();
    let failure: unknown;
    try {
      const session = await sessions.byId(sessionId);
      const service = (services as Record<string, unknown>)[found.module.name];
      const answer = await found.route.run(service, session, { params: operation.params, query: operation.query, body: operation.body } as never);
      return { documentId: answer.documentId };
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      const statusCode = failure === undefined ? 303 : failure instanceof QuireError ? failure.status : 500;
      events.emit({
        webservice: found.module.name,
        route: `${restBase}/${found.module.name}${found.route.path}`,
        method: found.route.method,
        statusCode,
        ok: statusCode < 400,
        ...(failure === undefined ? {} : { errorCode: failure instanceof QuireError ? failure.errorCode : Errors.INTERNAL.errorCode }),
        startedAt,
        durationMs: Date.now() - startedAt,
        bytesIn: 0,
        bytesOut: 0,
        sessionId,
      });
    }
  };
}
