import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './config/load.js';
import { lazyChildLoggerFactory } from './http/lazy-child-logger.js';
import { registerAuth } from './http/plugins/auth.js';
import { registerErrorHandling } from './http/plugins/errors.js';
import { registerBodyDrain } from './http/plugins/body-drain.js';
import { clientErrorHandler, registerClientErrors } from './http/plugins/client-errors.js';
import { registerSecurityHeaders } from './http/plugins/security-headers.js';
import { registerSlowClientGuard } from './http/plugins/slow-clients.js';
import { registerExpectContinue } from './http/plugins/expect-continue.js';
import { registerEmptyBodies } from './http/plugins/empty-bodies.js';
import { registerOpenApi } from './http/plugins/openapi.js';
import { registerRequestLog } from './http/plugins/request-log.js';
import { registerAsyncCalls } from './http/plugins/async-calls.js';
import { forwardedCallTimeoutMs, roleOf } from './cluster/roles.js';
import { registerClientCancellation } from './http/plugins/client-cancellation.js';
import { registerInternalCalls } from './http/plugins/internal-calls.js';
import { registerOperationObserver } from './http/plugins/operation-observer.js';
import { compileValidatorsOnFirstUse, serializersOnFirstUse } from './http/plugins/lazy-schemas.js';
import { adminDlqRoutes } from './http/routes/admin-dlq.js';
import { jobRoutes } from './http/routes/jobs.js';
import type { Webhooks } from './operations/jobs/webhooks.js';
import type { BackgroundQueue } from './operations/queue/background-queue.js';
import { adminConfigurationRoutes } from './http/routes/admin-configuration.js';
import { adminDatastoreRoutes } from './http/routes/admin-datastore.js';
import { adminLogRoutes } from './http/routes/admin-logs.js';
import type { AdminRouteOptions } from './http/routes/admin-options.js';
import { adminServerRoutes } from './http/routes/admin-server.js';
import { adminSessionRoutes } from './http/routes/admin-sessions.js';
import { adminStatisticRoutes } from './http/routes/admin-statistics.js';
import { adminStatusRoutes } from './http/routes/admin-status.js';
import { metricsRoutes } from './http/routes/metrics.js';
import type { AdminServices } from './operations/admin/services.js';
import { webServiceRoutes } from './http/routes/webservices.js';
import { authenticationRoutes } from './http/routes/authentication.js';
import type { SignatureService } from './operations/signature/signature-service.js';
import { documentOperationRoutes } from './http/routes/document-operations.js';
import { documentRoutes } from './http/routes/documents.js';
import { documentThumbnailRoutes } from './http/routes/document-thumbnails.js';
import { healthRoutes } from './http/routes/health.js';
import { openapiRoutes } from './http/routes/openapi.js';
import { portalRoutes } from './http/routes/portal.js';
import { portalApiRoutes } from './http/routes/portal-api.js';
import { PortalProviders } from './operations/portal/providers.js';
import { PortalThemes } from './operations/portal/theme.js';
import type { WebServices } from './operations/webservices.js';
import type { DocumentArchives } from './operations/documents/archives.js';
import type { DocumentThumbnails } from './operations/documents/thumbnails.js';
import type { DocumentDescriber } from './operations/documents/describe.js';
import type { DocumentService } from './operations/documents/document-service.js';
import type { DocumentProtection } from './operations/documents/protection.js';
import type { SessionService } from './sessions/session-service.js';
import type { BuildInfo } from './version.js';

export interface AppDeps {
  config: Config;
  logger: FastifyBaseLogger;
  sessions: SessionService;
  documents: DocumentService;
  describer: DocumentDescriber;
  protection: DocumentProtection;
  archives: DocumentArchives;
  /** Page thumbnails of stored PDFs (the portal's document list). */
  thumbnails: DocumentThumbnails;
  /** The services of the registered web-service modules (operations/webservices.ts). */
  webservices: WebServices;
  build: BuildInfo;
  admin: AdminServices;
  /** The durable work queue (async jobs, webhooks, the replay queue). */
  queue: BackgroundQueue;
  webhooks: Webhooks;
  /** Per-process secret of replayed job calls (see http/plugins/internal-calls.ts). */
  internalSecret: string;
  /** Set when the server shuts down: responses then close their connections. */
  draining?: { active: boolean };
}

/** The HTTP application: infrastructure plugins first, then the route groups, in one explicit list. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  // Which response each socket is writing: a parse error in the middle of one must not add bytes to it.
  const responses = new WeakMap<Duplex, ServerResponse>();
  const headersTimeout = config.server.headersTimeoutMs;
  const app = Fastify({
    loggerInstance: deps.logger,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIds(),
    childLoggerFactory: lazyChildLoggerFactory,
    requestIdHeader: 'x-request-id',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    bodyLimit: config.server.jsonBodyLimit,
    trustProxy: config.server.trustProxy,
    return503OnClosing: true,
    http: {
      headersTimeout,
      // Node's requestTimeout covers the body too and would cut long uploads: bodies are paced by
      // http/plugins/slow-clients.ts instead.
      requestTimeout: 0,
      // How often Node looks for connections past headersTimeout (its default, 30 s, would let a
      // slow-loris hold a connection that much longer).
      connectionsCheckingInterval: headersTimeout > 0 ? Math.max(25, Math.min(1000, Math.floor(headersTimeout / 4))) : 30_000,
      // A missing Host is answered with the exception structure (http/plugins/client-errors.ts).
      requireHostHeader: false,
    },
    clientErrorHandler: clientErrorHandler(deps.logger, responses),
    forceCloseConnections: 'idle',
    keepAliveTimeout: 72_000,
    // Validators and serializers compile on a route's first call, not at start (http/plugins/lazy-schemas.ts).
    ajv: { customOptions: { coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: true }, plugins: [compileValidatorsOnFirstUse] },
    schemaController: { compilersFactory: { buildSerializer: serializersOnFirstUse() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerErrorHandling(app, { debug: config.server.debug });
  registerClientErrors(app, responses);
  // The portal's login providers: their origins go into the portal's Content-Security-Policy.
  const portalProviders = new PortalProviders(config.oauth.providers, config.network, deps.logger);
  registerSecurityHeaders(app, { contextPath: config.server.contextPath, restBase: config.server.restBase, providerOrigins: () => portalProviders.origins() });
  registerBodyDrain(app, { maxBytes: config.server.drainLimit, timeoutMs: config.server.drainTimeoutMs });
  registerSlowClientGuard(app, {
    requestTimeoutMs: config.server.requestTimeoutMs,
    minUploadRate: config.server.minUploadRate,
    uploadRateWindowMs: config.server.uploadRateWindowMs,
  });
  const draining = deps.draining;
  if (draining) {
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (draining.active) reply.header('connection', 'close');
      done(null, payload);
    });
  }
  registerRequestLog(app);
  registerOperationObserver(app, { restBase: config.server.restBase, events: deps.admin.events });
  registerInternalCalls(app, { secret: deps.internalSecret, sessions: deps.sessions });
  registerAuth(app, deps.sessions);
  // An api node forwards synchronous web-service calls to the workers (cluster/roles.ts).
  const forwardSync = roleOf(config) === 'api' ? { timeoutMs: (webservice: string) => forwardedCallTimeoutMs(config, webservice) } : undefined;
  registerAsyncCalls(app, { restBase: config.server.restBase, queue: deps.queue, webhooks: deps.webhooks, documents: deps.documents, forwardSync });
  registerClientCancellation(app, { restBase: config.server.restBase });
  registerExpectContinue(app);
  registerLenientJson(app);
  registerEmptyBodies(app);
  await registerOpenApi(app, { restBase: config.server.restBase, build: deps.build });
  await app.register(multipart);

  await app.register(healthRoutes, { prefix: config.server.contextPath, status: deps.admin.status });
  const admin: AdminRouteOptions = { admin: deps.admin, restBase: config.server.restBase, contextPath: config.server.contextPath, build: deps.build };
  await app.register(metricsRoutes, admin);
  await app.register(
    async (rest) => {
      await rest.register(authenticationRoutes, { sessions: deps.sessions, certificates: (deps.webservices.signature as SignatureService).keyStores });
      await rest.register(documentRoutes, { documents: deps.documents, describer: deps.describer, restBase: config.server.restBase });
      await rest.register(documentOperationRoutes, {
        documents: deps.documents,
        describer: deps.describer,
        protection: deps.protection,
        archives: deps.archives,
        restBase: config.server.restBase,
      });
      await rest.register(documentThumbnailRoutes, { thumbnails: deps.thumbnails });
      await rest.register(webServiceRoutes, { services: deps.webservices, restBase: config.server.restBase });
      await rest.register(adminSessionRoutes, { sessions: deps.sessions, documents: deps.documents });
      await rest.register(adminServerRoutes, admin);
      await rest.register(adminStatusRoutes, admin);
      await rest.register(adminLogRoutes, admin);
      await rest.register(adminStatisticRoutes, admin);
      await rest.register(adminDatastoreRoutes, admin);
      await rest.register(adminConfigurationRoutes, admin);
      await rest.register(jobRoutes, { queue: deps.queue, restBase: config.server.restBase });
      await rest.register(adminDlqRoutes, { queue: deps.queue, restBase: config.server.restBase });
      await rest.register(openapiRoutes);
      await rest.register(portalApiRoutes, { providers: portalProviders, themes: new PortalThemes(deps.admin.datastore), restBase: config.server.restBase });
    },
    { prefix: config.server.restBase },
  );
  if (config.server.portal.enabled) {
    await app.register(portalRoutes, { contextPath: config.server.contextPath, restBase: config.server.restBase, directory: config.server.portal.directory });
  }
  return app;
}

/**
 * JSON bodies as the default parser reads them, except that an empty body counts as no body: the
 * clients send `Content-Type: application/json` on calls without one (refresh, close session).
 */
function registerLenientJson(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  // No route takes text bodies: without this parser they get a clear 415 instead of a confusing type error.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void parse(request, text, done); // answers through done(); the parser type also allows a promise
  });
}

/** Request ids: a random prefix per process and a counter (random bytes per request cost ~6% of GET info). */
function requestIds(): () => string {
  const prefix = randomBytes(4).toString('hex');
  let counter = 0;
  return () => `${prefix}-${(counter++).toString(36)}`;
}
