import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { closeRedis, openRedis, waitForRedis, type RedisClient } from '../../src/storage/redis/connection.js';
import { RedisReadCache } from '../../src/storage/redis/read-cache.js';
import { portOutsideEphemeralRange } from './listening.js';

/**
 * A real `redis-server` (Debian's) for one test: loopback only, a free port, its own temp dir, no RDB
 * snapshots, AOF on unless asked otherwise. It dies with the test process (parent-death SIGKILL), so a
 * crashed test run leaves none behind.
 */
export interface RedisServer {
  /** redis://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Its working directory (the AOF lives here); removed by stop(). */
  dir: string;
  /** SIGTERM (with AOF on, Redis writes its last state) and the directory removed. */
  stop(): Promise<void>;
  /** Stops it (keeping the directory and its AOF) and starts it again on the same port; resolves once PING answers. */
  restart(): Promise<void>;
  /** SIGKILL, as a crash; the directory stays, so restart() can bring it back with what the AOF holds. */
  kill(): Promise<void>;
  /** SIGSTOP: the process and its connections stay, nothing answers (a hung Redis) until resume(). */
  pause(): void;
  /** SIGCONT: it goes on with what its sockets hold. */
  resume(): void;
  /** Whether the process runs now. */
  readonly running: boolean;
}

export interface RedisServerOptions {
  /** Append-only file (fsync every second); default true. */
  appendonly?: boolean;
}

const READY_TIMEOUT_MS = 30_000;

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-redis-'));
  const appendonly = options.appendonly ?? true;
  let port = 0;
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    const args = ['--pdeathsig', 'KILL', '--', 'redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', appendonly ? 'yes' : 'no'];
    args.push('--dir', dir, '--protected-mode', 'yes', '--loglevel', 'warning', '--logfile', path.join(dir, 'redis.log'));
    const started = spawn('setpriv', args, { stdio: 'ignore' });
    child = started;
    const exited = new Promise<never>((_, reject) => {
      started.once('exit', (code, signal) => reject(new Error(`redis-server on port ${port} exited (${signal ?? `code ${code}`}) before it answered; see ${dir}/redis.log`)));
    });
    exited.catch(() => undefined);
    await Promise.race([waitForPing(port), exited]);
  };

  const halt = async (signal: NodeJS.Signals): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(signal);
    await gone;
  };

  // A port picked free can be taken by the time redis-server binds it: try a few.
  for (let attempt = 1; ; attempt++) {
    port = await portOutsideEphemeralRange();
    try {
      await launch();
      break;
    } catch (error) {
      await halt('SIGKILL');
      if (attempt === 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    async stop() {
      await halt('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await halt('SIGTERM');
      await launch();
    },
    async kill() {
      await halt('SIGKILL');
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
  };
}

/** Resolves once `PING` on the port gets `+PONG` (the AOF loaded: a loading server answers -LOADING). */
async function waitForPing(port: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await pingOnce(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${READY_TIMEOUT_MS} ms`);
}

function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

/**
 * Clients of the code under test on a test's redis-server, each a node's own connection (openRedis, a
 * 2 s command timeout), ready when returned; `cache(client)` a node's read cache on one of them, with
 * tracking set up when returned; `closeAll()` closes every one (in afterAll).
 */
export function redisClients(server: () => RedisServer): {
  open(keyPrefix: string, name?: string): Promise<RedisClient>;
  cache(client: RedisClient): Promise<RedisReadCache>;
  closeAll(): Promise<void>;
} {
  const opened: RedisClient[] = [];
  const caches: RedisReadCache[] = [];
  return {
    async open(keyPrefix, name = 'test') {
      const client = openRedis({ url: server().url, keyPrefix, commandTimeoutMs: 2000 }, { name });
      opened.push(client);
      await waitForRedis(client, 10_000);
      return client;
    },
    async cache(client) {
      const cache = new RedisReadCache(client, { name: 'test', maxEntries: 1000 });
      caches.push(cache);
      const deadline = Date.now() + 10_000;
      while (!cache.active) {
        if (Date.now() > deadline) throw new Error('the read cache did not set up tracking within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return cache;
    },
    async closeAll() {
      await Promise.all(caches.splice(0).map((cache) => cache.close()));
      await Promise.all(opened.splice(0).map((client) => closeRedis(client)));
    },
  };
}
