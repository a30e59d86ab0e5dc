import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { startDeadlineMs, type QuireProcess } from './process.js';

/**
 * Ports of a spawned Quire that are not chosen before the start. A port found free by the test
 * (freePort) can be bound by another test's server before Quire binds it; a listener configured with
 * port 0 binds a free one itself and Quire reports it in its "Quire is listening" log line.
 */

export interface ListeningAddresses {
  /** e.g. http://127.0.0.1:41234/webPDF/rest */
  url: string;
  /** e.g. https://127.0.0.1:41235/webPDF/rest, when the HTTPS listener is on. */
  httpsUrl?: string;
  /** The bound HTTPS port, when the HTTPS listener is on. */
  httpsPort?: number;
}

/** The addresses of the process's "Quire is listening" log line, once it is written (it follows the first healthy answer closely). */
export async function listeningAddresses(quire: QuireProcess): Promise<ListeningAddresses> {
  const deadline = Date.now() + (await startDeadlineMs());
  for (;;) {
    // Whole lines only: the last one may still be being written.
    for (const line of quire.stdout.split('\n').slice(0, -1)) {
      if (!line.includes('"Quire is listening"')) continue;
      const entry = JSON.parse(line) as { url: string; httpsUrl?: string };
      return { url: entry.url, ...(entry.httpsUrl ? { httpsUrl: entry.httpsUrl, httpsPort: Number(new URL(entry.httpsUrl).port) } : {}) };
    }
    if (!quire.running || Date.now() > deadline) {
      const end = quire.running ? 'still running' : `exited (${quire.child.signalCode ?? `code ${quire.child.exitCode}`})`;
      throw new Error(`Quire wrote no "Quire is listening" line (${end}).\nstdout:\n${quire.stdout}\nstderr:\n${quire.stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The bound HTTPS port of a process started with `https.port` 0. */
export async function boundHttpsPort(quire: QuireProcess): Promise<number> {
  const { httpsPort } = await listeningAddresses(quire);
  if (httpsPort === undefined) throw new Error(`Quire reports no HTTPS listener.\nstdout:\n${quire.stdout}`);
  return httpsPort;
}

/**
 * A free port below the kernel's ephemeral range, for a test that must name a port in advance (one
 * that a configuration change moves a listener to). Listeners on port 0 and outgoing connections get
 * their ports from the ephemeral range only, so no other test's server takes this one meanwhile.
 */
export async function portOutsideEphemeralRange(): Promise<number> {
  const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const first = 20_000;
  const last = Math.min(low ?? 32_768, 65_536) - 1;
  if (last - first < 1000) throw new Error(`the ephemeral port range starts at ${low}: no room below it`);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = first + Math.floor(Math.random() * (last - first + 1));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port found between ${first} and ${last}`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
