import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { INTERNAL_SESSION_HEADER } from './http/plugins/internal-calls.js';
import { ExternalTokenVerifier } from './auth/external-tokens.js';
import { LoginGuard } from './auth/login-guard.js';
import { TokenService } from './auth/tokens.js';
import { BuiltInUserSource } from './auth/users.js';
import { loadConfig, type Config } from './config/load.js';
import { startEngines } from './engines-wiring.js';
import { HeapCompaction } from './observability/heap-compaction.js';
import { LogFiles } from './observability/log-files.js';
import { createServerLogger } from './observability/logger.js';
import { Metrics } from './observability/metrics.js';
import { OperationEvents } from './observability/operation-events.js';
import { ConfigurationService } from './operations/admin/configuration.js';
import { DataStore } from './operations/admin/datastore.js';
import { ServerStatusService } from './operations/admin/server-status.js';
import { ClusterStatistics } from './operations/admin/cluster-statistics.js';
import { Statistics } from './operations/admin/statistics.js';
import type { ReplayedAnswer, ReplayedCall } from './operations/jobs/async-job.js';
import { SESSION_CLEANUP } from './operations/jobs/payloads.js';
import { sessionCleanupHandler } from './operations/jobs/session-cleanup.js';
import { Webhooks } from './operations/jobs/webhooks.js';
import { openWorkQueue } from './queue-wiring.js';
import { DocumentArchives } from './operations/documents/archives.js';
import { DocumentThumbnails } from './operations/documents/thumbnails.js';
import { PdfRewriter } from './engines/pdf/rewriter.js';
import { RememberedCredentials } from './operations/documents/credentials.js';
import { DocumentDescriber } from './operations/documents/describe.js';
import { DocumentService } from './operations/documents/document-service.js';
import { DocumentProtection } from './operations/documents/protection.js';
import { createWebServices } from './operations/webservices.js';
import type { SignatureService } from './operations/signature/signature-service.js';
import { SessionService } from './sessions/session-service.js';
import { DiskFloor } from './storage/disk-floor.js';
import { MemoryScratch } from './storage/memory-scratch.js';
import { openStores } from './stores-wiring.js';
import { listenHttps, prepareHttps, redirectHttpToHttps, type HttpsListener } from './server-https.js';
import { buildInfo } from './version.js';
import type { ClusterNode } from './cluster/node.js';
import { listenPrivate, type PrivateListener } from './cluster/private-listener.js';
import { consumesQueue, engineConfigFor, servesApi } from './cluster/roles.js';

export interface RunningServer {
  /** The current instance's application (a restart replaces it). */
  readonly app: FastifyInstance;
  /** Base URL the server listens on, e.g. http://127.0.0.1:8080 (kept across restarts). */
  readonly url: string;
  /** Base URL of the HTTPS listener, e.g. https://127.0.0.1:8443, while it is open (https.enabled). */
  readonly httpsUrl?: string | undefined;
  readonly config: Config;
  readonly sessions: SessionService;
  /** Resolves when the engines that warm up in the background (LibreOffice, Chromium) have started or failed to. */
  enginesStarted(): Promise<void>;
  /**
   * Graceful in-process restart: in-flight requests finish, everything is closed, the configuration
   * is read again and a new instance listens on the same port. Sessions and documents live in the
   * data dir and survive. Resolves when the new instance listens.
   */
  restart(): Promise<void>;
  /** Stops accepting, lets in-flight requests finish, flushes state. */
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Lines for the operator's console (the generated admin password); default: the log. */
  announce?: (message: string) => void;
  /** A logger to use instead of the server's own (console + daily files in <dataDir>/logs). */
  logger?: FastifyBaseLogger;
  /** How a restart reads the configuration again; default: `loadConfig()` from the process environment. */
  reloadConfig?: () => Config;
  /**
   * Collect the heap when the server is idle (observability/heap-compaction.ts): the process entry
   * (main.ts) turns it on; servers inside a test process leave the test's heap alone.
   */
  compactHeapWhenIdle?: boolean;
}

/** One instance: the stores, services, engines and HTTP application of one configuration. */
interface Instance {
  app: FastifyInstance;
  config: Config;
  sessions: SessionService;
  port: number;
  /** The HTTPS listener's port, when it is open. */
  httpsPort: number | undefined;
  enginesStarted(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the server for a configuration and keeps it running across admin restarts. The returned
 * object's properties always describe the current instance.
 */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const startedAt = new Date();
  // A cluster node runs on the configuration the cluster stored, not on a file that may be out of date.
  // The cluster's modules (ioredis, BullMQ: ~15 MB of RSS) are loaded only in cluster mode.
  if (config.cluster.mode === 'cluster') {
    const { adoptClusterConfiguration } = await import('./cluster/node.js');
    config = await adoptClusterConfiguration(config, options.reloadConfig ?? (() => loadConfig()));
  }
  let current = await startInstance(config, options, startedAt, () => void restart().catch(() => undefined));
  let restarting: Promise<void> | undefined;
  let closed = false;
  const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? '127.0.0.1' : config.server.host;
  const url = `http://${host}:${current.port}`;
  const httpsHost = (config: Config) => {
    const bound = config.https.host || config.server.host;
    return bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound;
  };

  function restart(): Promise<void> {
    restarting ??= (async () => {
      try {
        const previous = current;
        previous.app.log.warn('restarting: finishing in-flight requests');
        await previous.close();
        if (closed) return;
        let next: Config;
        try {
          next = (options.reloadConfig ?? (() => loadConfig()))();
        } catch (error) {
          // A configuration that no longer loads must not take the server down: keep the one that ran.
          previous.app.log.error({ err: error }, 'restart: the configuration does not load; restarting with the previous one');
          next = previous.config;
        }
        // The listener is re-opened where it was unless the configuration names another port.
        const port = next.server.port === 0 || next.server.port === config.server.port ? previous.port : next.server.port;
        const httpsPort = (next.https.port === 0 || next.https.port === config.https.port) && previous.httpsPort !== undefined ? previous.httpsPort : next.https.port;
        current = await startInstance({ ...next, server: { ...next.server, port }, https: { ...next.https, port: httpsPort } }, options, startedAt, () => void restart().catch(() => undefined));
        current.app.log.warn('restart complete');
      } finally {
        restarting = undefined;
      }
    })();
    return restarting;
  }

  return {
    get app() {
      return current.app;
    },
    url,
    get httpsUrl() {
      return current.httpsPort === undefined ? undefined : `https://${httpsHost(current.config)}:${current.httpsPort}`;
    },
    get config() {
      return current.config;
    },
    get sessions() {
      return current.sessions;
    },
    enginesStarted: () => current.enginesStarted(),
    restart,
    close: async () => {
      closed = true;
      await restarting?.catch(() => undefined);
      await current.close();
    },
  };
}

async function startInstance(config: Config, options: ServerOptions, startedAt: Date, requestRestart: () => void): Promise<Instance> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const logFiles = await LogFiles.open({ dir: path.join(config.dataDir, 'logs'), retentionDays: config.log.retentionDays });
  const logger = options.logger ?? createServerLogger(config, logFiles);
  const announce = options.announce ?? ((message: string) => logger.warn(message));
  // The HTTPS key store is read (or generated) first: a wrong one stops the start before anything runs.
  const httpsSetup = await prepareHttps(config, logger);
  const users = await BuiltInUserSource.create(config, announce);
  const tokens = await TokenService.open(config.dataDir, config.session.issuer);
  // Embedded in the data dir, or in Redis in cluster mode (stores-wiring.ts).
  const stores = await openStores(config, startedAt, { info: (fields, message) => logger.info(fields, message), warn: (fields, message) => logger.warn(fields, message) });
  const { sessionStore, documentStore } = stores;
  // The durable work queue: async jobs replay their call through the app, webhooks report outcomes,
  // expired sessions' storage is deleted in the background. It starts running once the app listens.
  // Cluster mode: BullMQ on Redis, jobs as typed operations any node runs (queue-wiring.ts).
  const work = await openWorkQueue(config, logger);
  const queue = work.queue;
  queue.register(sessionCleanupHandler(documentStore));
  const sessions = new SessionService({
    // Cluster mode: the throttle counts failed logins for the whole cluster (in Redis).
    ...(stores.loginAttempts ? { loginGuard: new LoginGuard(config.security.login, Date.now, stores.loginAttempts) } : {}),
    deferDeletion: async (sessionId) => {
      await queue.enqueue(SESSION_CLEANUP, { sessionId }, { bypassBound: true });
    },
    config,
    store: sessionStore,
    documents: documentStore,
    tokens,
    external: await ExternalTokenVerifier.create(config.oauth.providers),
    users,
    logger,
  });
  await sessions.start();
  const diskFloor = new DiskFloor(
    config.dataDir,
    () => config.documents.minFreeSpace,
    (low, space, required) =>
      low
        ? logger.warn({ freeBytes: space.free, requiredBytes: required }, 'data disk below documents.minFreeSpace: uploads and new results are refused')
        : logger.info({ freeBytes: space.free, requiredBytes: required }, 'data disk above documents.minFreeSpace again'),
  );
  const documents = new DocumentService(
    documentStore,
    {
      limitsFor: (session) => sessions.limitsFor(session),
      isLive: async (id) => (await sessionStore.get(id)) !== undefined,
    },
    diskFloor,
    stores.locks,
  );
  const credentials = new RememberedCredentials();
  sessions.onEnd((sessionId) => credentials.forgetSession(sessionId));
  // An api node starts no warm engines (cluster/roles.ts).
  const engines = await startEngines(engineConfigFor(config), logger);
  const pdf = engines.pdf;
  const describer = new DocumentDescriber(documentStore, pdf, credentials, config.documents.metadataBudgetMs);
  // Metadata still being read in the background is for later calls: none come once the session ended.
  sessions.onEnd((sessionId) => describer.forgetSession(sessionId));
  const protection = new DocumentProtection(documents, describer, pdf, credentials);
  const archives = new DocumentArchives(documents, documentStore, config.documents.archive);
  const thumbnails = new DocumentThumbnails({
    documents,
    credentials,
    pdf: new PdfRewriter({ qpdf: engines.qpdf, timeoutMs: config.documents.toolTimeoutMs }),
    poppler: engines.poppler,
    toolTimeoutMs: config.documents.toolTimeoutMs,
  });
  const memoryScratch = await MemoryScratch.open({ dir: config.toolbox.memoryScratchDir, budgetBytes: config.toolbox.memoryScratchBudget });
  // Every registered web-service module's service (operations/webservices.ts).
  const webservices = createWebServices({ config, documents, credentials, engines, memoryScratch });
  // What a session unlocked of the signing key stores ends with it.
  sessions.onEnd((sessionId) => (webservices.signature as SignatureService).keyStores.forgetSession(sessionId));

  // The administration: every service gets the same bag of dependencies and takes what it needs.
  const build = buildInfo();
  const events = new OperationEvents();
  // Cluster mode: membership heartbeat and configuration sync over Redis (src/cluster); started once the node listens.
  const cluster: ClusterNode | undefined =
    config.cluster.mode === 'cluster'
      ? new (await import('./cluster/node.js')).ClusterNode(config, { version: build.version, startedAt }, (level, message, detail) => logger[level](detail ?? {}, message))
      : undefined;
  const base = {
    config,
    logger,
    dataDir: config.dataDir,
    events,
    queue,
    sessions,
    sessionStore,
    documents,
    documentStore,
    engines,
    users,
    logFiles,
    build,
    startedAt,
    reloadConfig: options.reloadConfig,
    cluster,
    central: cluster?.configuration,
  };
  const metrics = new Metrics(base);
  // Cluster mode: the persistent statistics are the cluster's counters (in Redis), not the data dir's file.
  const statistics = stores.statistics ? ClusterStatistics.open({ ...base, store: stores.statistics }) : await Statistics.open(base);
  const datastore = await DataStore.open(base);
  const configuration = new ConfigurationService(base);
  const status = new ServerStatusService(base);
  const admin = { config, events, metrics, logFiles, statistics, datastore, configuration, status, restart: requestRestart };

  const draining = { active: false };
  const webhooks = await Webhooks.open(base);
  queue.register(webhooks.handler());
  const internalSecret = randomBytes(32).toString('hex');
  const app = await buildApp({ config, logger, sessions, documents, describer, protection, archives, thumbnails, webservices, build, admin, queue, webhooks, internalSecret, draining });
  queue.register(
    work.jobHandler({
      documents,
      webhooks,
      execute: (call, sessionId) => replay(app, call, sessionId, internalSecret),
      services: webservices,
      sessions,
      describer,
      events,
      restBase: config.server.restBase,
    }),
  );
  const stopServices = async () => {
    // Leave the cluster first: a node that stops is not lost, and its heartbeat must not outlive it.
    await cluster?.stop();
    // Running jobs finish first (they need the engines); sessions that expire now queue their deletion for the next start.
    describer.close();
    await queue.stop(config.server.shutdownTimeoutMs);
    await sessions.stop();
    // Before the stores close: the cluster's statistics push their last counts to Redis.
    await statistics.close();
    await stores.close();
    await work.close();
    await engines.close();
    await memoryScratch.close();
    metrics.close();
    await logFiles.close();
  };
  let https: HttpsListener | undefined;
  let privateListener: PrivateListener | undefined;
  const compaction = options.compactHeapWhenIdle ? new HeapCompaction() : undefined;
  try {
    // Start-up and the engines' warm-up leave dead objects behind that V8 would keep for the life of the server.
    if (compaction) void engines.started().then(() => compaction.compactWhenQuiet());
    await app.ready();
    compaction?.compactNow();
    if (servesApi(config)) await app.listen({ host: config.server.host, port: config.server.port });
    else {
      // A worker: the application runs its queued jobs in-process; only health and metrics are reachable.
      const paths = [`${config.server.contextPath}/health`, `${config.server.contextPath}/metrics`];
      privateListener = await listenPrivate({ host: config.server.host, port: config.server.port, paths, call: (request) => app.inject(request) });
    }
    if (httpsSetup && !privateListener) {
      try {
        https = await listenHttps(app, config, httpsSetup, config.https.port);
      } catch (error) {
        await app.close();
        throw error;
      }
      if (config.https.redirectHttp) redirectHttpToHttps(app, https.port, config.server.hostName);
    }
    if (consumesQueue(config)) await queue.start();
    await cluster?.start({
      port: privateListener?.port ?? listeningPort(app, config),
      snapshot: () => status.memberSnapshot(),
      applyConfiguration: (text, keys) => configuration.applyCentral(text, keys),
    });
    compaction?.watch(app.server, ...(https ? [https.server] : []));
  } catch (error) {
    compaction?.stop();
    // A node that could not join the cluster (Redis away at start) must not stay listening.
    await privateListener?.close();
    await app.close().catch(() => undefined);
    await stopServices();
    throw error;
  }
  const port = privateListener?.port ?? listeningPort(app, config);
  let closing: Promise<void> | undefined;
  return {
    app,
    config,
    sessions,
    port,
    httpsPort: https?.port,
    enginesStarted: () => engines.started(),
    close: () => {
      compaction?.stop();
      closing ??= (async () => {
        // Keep-alive clients would hold their connections open past the last response: answer them
        // with Connection: close, and drop connections as soon as they fall idle.
        draining.active = true;
        const sweeper = setInterval(() => {
          app.server.closeIdleConnections();
          https?.server.closeIdleConnections();
        }, 100);
        try {
          await Promise.all([app.close(), https?.close(), privateListener?.close()]);
        } finally {
          clearInterval(sweeper);
        }
        await stopServices();
      })();
      return closing;
    },
  };
}

/** The port the application listens on (the configured one, or the one the system chose for port 0). */
function listeningPort(app: FastifyInstance, config: Config): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : config.server.port;
}

/** Runs a job's call through the application in-process, as its session. */
async function replay(app: FastifyInstance, call: ReplayedCall, sessionId: string, secret: string): Promise<ReplayedAnswer> {
  const response = await app.inject({
    method: call.method as 'POST',
    url: call.url,
    headers: { ...call.headers, [INTERNAL_SESSION_HEADER]: `${sessionId}:${secret}` },
    ...(call.body === undefined ? {} : { payload: JSON.stringify(call.body) }),
  });
  return { statusCode: response.statusCode, headers: response.headers, body: response.body };
}
