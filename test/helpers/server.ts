import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { startServer, type RunningServer } from '../../src/server.js';

export const ADMIN_PASSWORD = 'admin-secret';

/** How long stop() lets busy connections finish before it cuts them and fails. */
const STOP_GRACE_MS = 15_000;

/** Two local users: alice (password wonderland) and the administrator root (password toor). */
export const ALICE_AND_ROOT_YAML = `
users:
  - name: alice
    password: wonderland
    roles: [user]
  - name: root
    password: toor
    roles: [admin]
`;

export interface TestServer extends RunningServer {
  /** e.g. http://127.0.0.1:41234/webPDF/rest */
  rest: string;
  dataDir: string;
  /** Lines the server announced on its console (the generated admin password, ...). */
  announcements: string[];
  stop(): Promise<void>;
}

/**
 * Starts a real server on a free loopback port with a fresh data dir. `yaml` is written to a config
 * file; `env` adds overrides exactly as the process environment would. The conversion engines
 * (LibreOffice, Chromium) start only with `engines: true`: most suites do not convert, and warm
 * pools cost a second and some hundred megabytes per server.
 */
export async function startTestServer(options: { yaml?: string; env?: Record<string, string>; dataDir?: string; engines?: boolean } = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'quire-test-'));
  const env: Record<string, string> = {
    QUIRE_DATA_DIR: dataDir,
    QUIRE_SERVER__HOST: '127.0.0.1',
    PORT: '0',
    QUIRE_LOG__LEVEL: 'silent',
    QUIRE_ADMIN_PASSWORD: ADMIN_PASSWORD,
    ...(options.engines ? {} : { QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false', QUIRE_ENGINES__CHROMIUM__ENABLED: 'false' }),
    ...options.env,
  };
  if (options.yaml !== undefined) {
    const file = path.join(dataDir, 'quire.yaml');
    writeFileSync(file, options.yaml);
    env.QUIRE_CONFIG = file;
  }
  const config = loadConfig(env);
  const announcements: string[] = [];
  const server = await startServer(config, {
    announce: (message) => announcements.push(message),
    reloadConfig: () => loadConfig({ ...env, PORT: '0' }),
  });
  // The server listens before LibreOffice and Chromium are warm; suites that asked for them want them running.
  if (options.engines) await server.enginesStarted();
  return {
    get app() {
      return server.app;
    },
    url: server.url,
    get config() {
      return server.config;
    },
    get sessions() {
      return server.sessions;
    },
    enginesStarted: () => server.enginesStarted(),
    restart: () => server.restart(),
    close: () => server.close(),
    rest: `${server.url}${config.server.restBase}`,
    dataDir,
    announcements,
    stop: async () => {
      // A connection that is not idle (a response body the test never read) holds the close up until
      // the hook's time limit, with no hint why: cut it after a grace and say what to fix.
      let stuck = false;
      const watchdog = setTimeout(() => {
        stuck = true;
        server.app.server.closeAllConnections();
      }, STOP_GRACE_MS);
      try {
        await server.close();
      } finally {
        clearTimeout(watchdog);
      }
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (stuck) throw new Error(`the server's close waited ${STOP_GRACE_MS / 1000} s for busy connections: a test left a response body unread (await response.arrayBuffer())`);
    },
  };
}
