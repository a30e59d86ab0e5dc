import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { HtmlJob } from '../../../src/engines/chromium/index.js';

/** A directory for one test file: inputs, outputs and the browsers' profiles. */
export function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'quire-chromium-test-'));
}

let counter = 0;

/** Writes `html` to a file in `dir` and returns an A4 job for it (no network, no scripts) with `overrides`. */
export function htmlJob(dir: string, html: string | Buffer, overrides: Partial<HtmlJob> = {}): HtmlJob {
  const name = `doc-${++counter}`;
  const inputPath = path.join(dir, `${name}.html`);
  writeFileSync(inputPath, html);
  return {
    inputPath,
    outputPath: path.join(dir, `${name}.pdf`),
    page: { width: 210, height: 297, marginTop: 10, marginRight: 10, marginBottom: 10, marginLeft: 10 },
    preferCSSPageSize: false,
    printBackground: false,
    javascript: false,
    network: { allowRemote: false, policy: {} },
    ...overrides,
  };
}

export function pdfText(file: string): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
}

export function pdfInfo(file: string): { pages: number; width: number; height: number } {
  const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
  const size = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info);
  return { pages: Number(/Pages:\s+(\d+)/.exec(info)?.[1]), width: Number(size?.[1]), height: Number(size?.[2]) };
}

/** Left edge (pt) of the first word of page 1 that contains `word`, from `pdftotext -bbox`. */
export function wordLeft(file: string, word: string): number {
  const xhtml = execFileSync('pdftotext', ['-bbox', '-f', '1', '-l', '1', file, '-'], { encoding: 'utf8' });
  const match = new RegExp(`<word xMin="([\\d.]+)"[^>]*>[^<]*${word}`).exec(xhtml);
  if (!match) throw new Error(`${word} not on page 1`);
  return Number(match[1]);
}

/** RGB of the pixel at (x, y) of page 1 rendered at 20 dpi (pdftoppm writes plain PPM to stdout). */
export function pixel(file: string, x: number, y: number): [number, number, number] {
  const ppm = execFileSync('pdftoppm', ['-r', '20', '-f', '1', '-l', '1', file]);
  // Header: "P6\n<width> <height>\n255\n", then RGB triples.
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 40).toString('latin1'));
  if (!header) throw new Error('not a PPM');
  const offset = header[0].length + (y * Number(header[1]) + x) * 3;
  return [ppm[offset]!, ppm[offset + 1]!, ppm[offset + 2]!];
}

export interface TestServer {
  port: number;
  url: (path: string) => string;
  /** Paths requested so far (WebSocket upgrades as "upgrade <path>"). */
  requests: string[];
  close: () => Promise<void>;
}

/**
 * A local HTTP server that records what it gets and answers with a 1×1 PNG, a 404 for /missing, and
 * whatever `handle` decides to answer itself (return true).
 */
export async function testServer(handle?: (request: http.IncomingMessage, response: http.ServerResponse) => boolean): Promise<TestServer> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(request.url ?? '');
    if (handle?.(request, response)) return;
    if (request.url === '/missing') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
  });
  server.on('upgrade', (request, socket) => {
    requests.push(`upgrade ${request.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (p) => `http://127.0.0.1:${port}${p}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/**
 * Processes whose command line mentions `dir`: the browsers of an engine whose tempDir it is, their
 * helpers, and Chromium's crash handlers (which keep their database in the profile, but daemonise
 * into groups of their own).
 */
export function processesUnder(dir: string): { pid: number; pgid: number; name: string }[] {
  const found: { pid: number; pgid: number; name: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(dir)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      found.push({ pid: Number(name), pgid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]), name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** Process group ids of the running browsers under `dir` (each browser leads its group). */
export function browserGroups(dir: string): number[] {
  return processesUnder(dir)
    .filter((p) => p.pid === p.pgid)
    .map((p) => p.pid);
}

export async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
