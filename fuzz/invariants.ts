/**
 * The server-wide invariants checked after each batch, once the calls have settled: the server is
 * alive and healthy, its tmp dir is empty, no short-lived tool process (qpdf, gs, poppler…) outlives
 * the calls, and another session's document is unchanged. Memory bounds are watched all along by the
 * MemoryMonitor.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { downloadSha256, login, sha256, upload } from './api.js';
import type { Violation } from './execute.js';
import type { ProcInfo } from './proc.js';
import type { ServerUnderTest } from './server.js';

/** The engine pools' long-lived workers; every other descendant is a tool run for one call. */
export function isPoolWorker(proc: ProcInfo): boolean {
  return /^chrom/.test(proc.comm) || ['python3', 'soffice.bin', 'soffice', 'oosplash', 'cat'].includes(proc.comm);
}

function listTree(dir: string, limit = 20): string[] {
  const out: string[] = [];
  const walk = (current: string) => {
    let entries: string[];
    try {
      entries = readdirSync(current);
    } catch {
      return;
    }
    for (const name of entries) {
      if (out.length >= limit) return;
      const full = path.join(current, name);
      try {
        const stat = statSync(full);
        out.push(`${path.relative(dir, full)}${stat.isDirectory() ? '/' : ` (${stat.size} B)`}`);
        if (stat.isDirectory()) walk(full);
      } catch {
        // removed meanwhile
      }
    }
  };
  walk(dir);
  return out;
}

function tmpEntries(server: ServerUnderTest): string[] {
  try {
    return readdirSync(server.tmpDir);
  } catch {
    return [];
  }
}

/**
 * Waits up to `settleMs` for the tmp dir to empty and the tool processes to end, then reports what
 * is left. `known` are leftovers already reported (they are not reported again).
 */
export async function settle(server: ServerUnderTest, settleMs: number, known: Set<string>): Promise<Violation[]> {
  const deadline = Date.now() + settleMs;
  for (;;) {
    const tmp = tmpEntries(server).filter((e) => !known.has(`tmp:${e}`));
    const stray = server.descendants().filter((p) => !isPoolWorker(p) && !known.has(`proc:${p.pid}:${p.startTime}`));
    if ((tmp.length === 0 && stray.length === 0) || Date.now() > deadline || !server.alive) {
      const out: Violation[] = [];
      if (tmp.length) {
        for (const e of tmp) known.add(`tmp:${e}`);
        out.push({ kind: 'tmp', target: 'server', detail: `tmp not empty ${Math.round(settleMs / 1000)} s after the batch: ${listTree(server.tmpDir).join(', ')}` });
      }
      if (stray.length && server.alive) {
        for (const p of stray) known.add(`proc:${p.pid}:${p.startTime}`);
        out.push({
          kind: 'stray-process',
          target: 'server',
          detail: `tool processes still running ${Math.round(settleMs / 1000)} s after the batch: ${stray.map((p) => `${p.comm}[${p.pid}] ${Math.round(p.rssBytes / 1048576)} MB`).join(', ')}`,
        });
      }
      return out;
    }
    await sleep(250);
  }
}

/**
 * A document in another session (the admin's) whose bytes must not change whatever the fuzz
 * sessions do. After a violation it is uploaded again, so that one loss is reported once.
 */
export class Sentinel {
  private token = '';
  private documentId = '';
  private readonly expected: string;

  constructor(
    private readonly server: ServerUnderTest,
    private readonly content: Buffer,
  ) {
    this.expected = sha256(content);
  }

  async setup(): Promise<void> {
    this.token = await login(this.server.rest, { name: 'admin', password: this.server.adminPassword });
    const { documentId, answer } = await upload(this.server.rest, this.token, this.content, 'sentinel.pdf', 60_000);
    if (!documentId) throw new Error(`the sentinel upload answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
    this.documentId = documentId;
  }

  async check(): Promise<Violation | undefined> {
    if (!this.server.alive) return undefined;
    const actual = await downloadSha256(this.server.rest, this.token, this.documentId);
    if (actual === this.expected) return undefined;
    const detail = actual ? `the sentinel document changed (sha256 ${actual})` : 'the sentinel document cannot be read any more';
    await this.setup().catch(() => undefined);
    return { kind: 'sentinel', target: 'server', detail };
  }
}
