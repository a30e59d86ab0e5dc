import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../helpers/process.js';

export interface Haproxy {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  stop(): Promise<void>;
}

/**
 * Debian's haproxy in front of the given node ports on loopback, as `./quire.sh cluster` configures it:
 * least connections (in turn among equals), health check on GET /webPDF/health every 250 ms here (a second in quire.sh), a node out
 * after two failed checks, and a request whose connection to a dead node fails is sent to another.
 * It runs in the foreground (-db) and dies with the test process (parent-death SIGKILL).
 */
export async function startHaproxy(nodePorts: readonly number[]): Promise<Haproxy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-haproxy-'));
  const port = await freePort();
  const config = [
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  retries 2',
    '  option redispatch',
    '  retry-on conn-failure',
    'frontend quire',
    `  bind 127.0.0.1:${port}`,
    '  default_backend nodes',
    'backend nodes',
    '  balance leastconn',
    '  http-response set-header X-Quire-Node %s',
    '  option httpchk GET /webPDF/health',
    '  http-check expect status 200',
    ...nodePorts.map((p, i) => `  server node-${i + 1} 127.0.0.1:${p} check inter 250ms fall 2 rise 1`),
    '',
  ].join('\n');
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', 'haproxy', '-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  // Listening and every node checked healthy at least once: a 200 from each of them through the proxy.
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`);
    const ok = await fetch(`${url}/webPDF/health`)
      .then(async (r) => (await r.arrayBuffer(), r.status === 200))
      .catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`haproxy did not answer within 15 s: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
