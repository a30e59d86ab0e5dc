import { afterAll, beforeAll } from 'vitest';
import { downloadToFile } from './converter.js';
import { openSession, uploadFile, type DocumentFile, type TestSession } from './documents.js';
import { startTestServer, type TestServer } from './server.js';
import { runToolbox, toolboxOk, type ToolboxOutcome } from './toolbox.js';

/**
 * The shared header of an HTTP test file: one real server (startTestServer), one anonymous session on
 * it, and the calls every file makes with the two, started in beforeAll and stopped in afterAll of the
 * describe (or file) where it is called.
 *
 *   const { server, session, upload, download } = useTestServer();
 *
 * `server` and `session` are bound late: they stand for the running server and the session once the
 * beforeAll has run, so tests use them as they used the `let` variables they replace (`server.rest`,
 * `session.token`). Touching them outside a test or hook (at collection time) throws.
 */
export interface ServerFixture {
  server: TestServer;
  session: TestSession;
  /** POST documents; returns the DocumentFile (throws unless 303). */
  upload(content: Buffer, fileName?: string, query?: string): Promise<DocumentFile>;
  /** GET documents/{id} into a temp file; returns its path. */
  download(documentId: string, extension?: string): Promise<string>;
  /** POST toolbox/{id} expecting 303; returns the document's info. */
  toolboxOk(documentId: string, toolbox: unknown[], extra?: Record<string, unknown>): Promise<DocumentFile>;
  /** POST toolbox/{id}; returns the outcome without judging it. */
  runToolbox(documentId: string, toolbox: unknown[], extra?: Record<string, unknown>): Promise<ToolboxOutcome>;
}

export type ServerFixtureOptions = Parameters<typeof startTestServer>[0] & {
  /** Open the anonymous session (default true); without it `session` throws when used. */
  session?: boolean;
  /** Time limit of the start (the beforeAll), when it must differ from vitest's hookTimeout. */
  startTimeoutMs?: number;
};

export function useTestServer(options: ServerFixtureOptions = {}): ServerFixture {
  const { session: withSession = true, startTimeoutMs, ...serverOptions } = options;
  let running: TestServer | undefined;
  let opened: TestSession | undefined;

  beforeAll(async () => {
    running = await startTestServer(serverOptions);
    if (withSession) opened = await openSession(running.rest);
  }, startTimeoutMs);
  afterAll(async () => {
    await running?.stop();
    running = undefined;
    opened = undefined;
  });

  const server = late(() => running, 'the test server');
  const session = late(() => opened, withSession ? 'the test session' : 'a session (useTestServer({ session: false }) opens none)');
  return calls(server, session);
}

/**
 * A fresh anonymous session, opened in the beforeAll of the describe where it is called, on a server
 * another useTestServer() runs (typically one per file, shared by describes that need nothing but a
 * session of their own): a server start costs seconds, a session milliseconds.
 *
 *   const shared = useTestServer({ session: false });               // file level
 *   describe('…', () => { const { server, session } = withOwnSession(shared); … });
 */
export function withOwnSession(fixture: ServerFixture): ServerFixture {
  const { server } = fixture;
  let opened: TestSession | undefined;
  beforeAll(async () => {
    opened = await openSession(server.rest);
  });
  afterAll(() => {
    opened = undefined;
  });
  return calls(
    server,
    late(() => opened, 'the test session'),
  );
}

/** The fixture's calls, made with `server` and `session` when they are called. */
function calls(server: TestServer, session: TestSession): ServerFixture {
  return {
    server,
    session,
    upload: (content, fileName = 'doc.pdf', query = '') => uploadFile(server.rest, session.token, content, fileName, query),
    download: (documentId, extension = 'pdf') => downloadToFile(server.rest, session.token, documentId, extension),
    toolboxOk: (documentId, toolbox, extra = {}) => toolboxOk(server.rest, session.token, documentId, toolbox, extra),
    runToolbox: (documentId, toolbox, extra = {}) => runToolbox(server.rest, session.token, documentId, toolbox, extra),
  };
}

/**
 * An object that forwards every property read to the value `current()` returns when it is read, so a
 * value that exists only after beforeAll can be handed out (and destructured) at collection time.
 */
function late<T extends object>(current: () => T | undefined, what: string): T {
  const target = (): T => {
    const value = current();
    if (!value) throw new Error(`${what} is not running: use it inside a test or hook of the describe that called useTestServer()`);
    return value;
  };
  return new Proxy({} as T, {
    get(_, key) {
      const value = target();
      const property: unknown = Reflect.get(value, key, value);
      return typeof property === 'function' ? (property as (...args: unknown[]) => unknown).bind(value) : property;
    },
    has: (_, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}
