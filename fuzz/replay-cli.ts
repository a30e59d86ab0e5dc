/**
 * `npm run fuzz -- --replay=<reproducer.json>`: sends one saved reproducer to a fresh server (same
 * harness as a run) and prints what happened — the answers, the violations, the logged cause, a
 * crash's last words, memory above the bounds. For the engineer fixing the defect.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execute } from './execute.js';
import { Harness } from './harness.js';
import type { MemoryBounds } from './monitor.js';
import { loadReproducer } from './replay.js';
import { attachCauses } from './server-log.js';

export async function replayOne(options: { file: string; root: string; settings: Record<string, string>; bounds: MemoryBounds; seedsDir: string; log: (line: string) => void }): Promise<boolean> {
  const saved = loadReproducer(path.resolve(options.file), options.seedsDir);
  const harness = new Harness({
    root: options.root,
    settings: options.settings,
    sessions: 1,
    bounds: options.bounds,
    extraMarginMs: 0,
    sentinelPdf: readFileSync(path.join(options.seedsDir, 'outline.pdf')),
    validPdf: readFileSync(path.join(options.seedsDir, 'minimal.pdf')),
    log: options.log,
  });
  await harness.start();
  try {
    options.log(`replaying ${saved.name}: ${saved.reproducer.target}, ${saved.replay.document.length} B document${saved.replay.payload ? `, ${saved.replay.payload.length} B payload` : ''}`);
    harness.monitor.drain();
    harness.begin(0);
    const mark = harness.server.outputMark();
    const result = await execute(harness.context(0), saved.replay);
    await Promise.race([harness.server.waitExit(), sleep(1_500)]);
    harness.end(0);
    await attachCauses(harness.server, mark, result.violations);
    for (const c of result.calls)
      options.log(`  ${c.target}: ${c.failure ?? c.status}${c.errorCode !== undefined ? ` (${c.errorCode})` : ''} in ${c.ms} ms (limit ${c.limitMs} ms)${c.message ? ` — ${c.message}` : ''}`);
    const death = harness.death();
    if (death) options.log(`  the server ${death.unresponsive ? 'stopped answering and was killed' : `died (code ${death.exit.code}, signal ${death.exit.signal})`}:\n${death.lastWords}`);
    for (const v of result.violations) options.log(`  violation ${v.kind}: ${v.cause ?? v.message ?? v.detail}`);
    const memory = harness.monitor.drain();
    for (const e of memory) options.log(`  memory: ${e.who} ${e.comm}[${e.pid}] ${Math.round(e.rssBytes / 1048576)} MB${e.killed ? ' (killed)' : ''}`);
    return !death && memory.length === 0 && result.violations.length === 0;
  } finally {
    await harness.stop();
  }
}
