import { mkdir } from 'node:fs/promises';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ExternalTokenVerifier } from './auth/external-tokens.js';
import { TokenService } from './auth/tokens.js';
import { BuiltInUserSource } from './auth/users.js';
import type { Config } from './config/load.js';
import { createPdfInspector } from './engines/pdf/index.js';
import { DocumentArchives } from './operations/documents/archives.js';
import { RememberedCredentials } from './operations/documents/credentials.js';
import { DocumentDescriber } from './operations/documents/describe.js';
import { DocumentService } from './operations/documents/document-service.js';
import { DocumentProtection } from './operations/documents/protection.js';
import { FileSessionStore } from './sessions/file-session-store.js';
import { SessionService } from './sessions/session-service.js';
import { FileDocumentStore } from './storage/file-document-store.js';
import { buildInfo } from './version.js';
import { startEngines } from './engines-wiring.js';
import { ConverterService } from './operations/converter/converter-service.js';
import { TOOLBOX_REGISTRY } from './operations/toolbox/registry.js';
import { ToolboxService } from './operations/toolbox/toolbox-service.js';
import path from 'node:path';

export interface RunningServer {
  app: FastifyInstance;
  /** Base URL the server listens on, e.g. http://127.0.0.1:8080 */
  url: string;
  config: Config;
  sessions: SessionService;
  /** Stops accepting, lets in-flight requests finish, flushes state. */
  close(): Promise<void>;
}

/** Wires the stores, services and HTTP application for a configuration and starts listening. */
export async function startServer(
  config: Config,
  logger: FastifyBaseLogger,
  announce: (message: string) => void = (message) => logger.warn(message),
): Promise<RunningServer> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const users = await BuiltInUserSource.create(config, announce);
  const tokens = await TokenService.open(config.dataDir, config.session.issuer);
  const documentStore = new FileDocumentStore(config.dataDir);
  const sessionStore = new FileSessionStore(path.join(config.dataDir, 'sessions'));
  await sessionStore.open();
  await documentStore.open();
  const sessions = new SessionService({
    config,
    store: sessionStore,
    documents: documentStore,
    tokens,
    external: new ExternalTokenVerifier(config.oauth.providers),
    users,
    logger,
  });
  await sessions.start();
  const documents = new DocumentService(documentStore, {
    limitsFor: (session) => sessions.limitsFor(session),
    isLive: async (id) => (await sessionStore.get(id)) !== undefined,
  });
  const credentials = new RememberedCredentials();
  sessions.onEnd((sessionId) => credentials.forgetSession(sessionId));
  const pdf = createPdfInspector({ timeoutMs: config.documents.toolTimeoutMs });
  const describer = new DocumentDescriber(documentStore, pdf, credentials, config.documents.metadataBudgetMs);
  const protection = new DocumentProtection(documents, describer, pdf, credentials);
  const archives = new DocumentArchives(documents, documentStore, config.documents.archive);
  const engines = await startEngines(config, logger);
  const converter = new ConverterService(documents, credentials, engines.converter);
  const toolbox = new ToolboxService(
    documents,
    credentials,
    {
      rewriter: engines.converter.rewriter,
      ghostscript: engines.converter.ghostscript,
      toolTimeoutMs: config.documents.toolTimeoutMs,
      fontEnv: engines.fonts.env,
      ...(config.toolbox.printCommand.length > 0 ? { printCommand: config.toolbox.printCommand } : {}),
    },
    TOOLBOX_REGISTRY,
    config.toolbox.timeoutMs,
  );
  const draining = { active: false };
  const app = await buildApp({ config, logger, sessions, documents, describer, protection, archives, converter, toolbox, build: buildInfo(), draining });
  try {
    await app.listen({ host: config.server.host, port: config.server.port });
  } catch (error) {
    await engines.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.server.port;
  const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? '127.0.0.1' : config.server.host;
  let closing: Promise<void> | undefined;
  return {
    app,
    url: `http://${host}:${port}`,
    config,
    sessions,
    close: () => {
      closing ??= (async () => {
        // Keep-alive clients would hold their connections open past the last response: answer them
        // with Connection: close, and drop connections as soon as they fall idle.
        draining.active = true;
        const sweeper = setInterval(() => app.server.closeIdleConnections(), 100);
        try {
          await app.close();
        } finally {
          clearInterval(sweeper);
        }
        await engines.close();
        await sessions.stop();
      })();
      return closing;
    },
  };
}
