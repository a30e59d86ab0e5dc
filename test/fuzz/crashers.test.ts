/**
 * Every reproducer the fuzzer found and `npm run fuzz -- --save-crashers` committed to
 * test/fixtures/fuzz/crashers/ is replayed through a real server (the built one, as the slice runs
 * it): no 5xx, no malformed error, an answer within the configured limit plus the margin, the
 * server still up and healthy afterwards, no process above its memory bound meanwhile, and no tmp
 * entry or tool process left once it settled.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../fuzz/build.js';
import { execute } from '../../fuzz/execute.js';
import { Harness } from '../../fuzz/harness.js';
import { settle } from '../../fuzz/invariants.js';
import { DEFAULT_BOUNDS } from '../../fuzz/profile.js';
import { loadReproducers } from '../../fuzz/replay.js';
import { CRASHERS_DIR, SEEDS_DIR, SERVER_ROOT, SLICE_PROFILE, validPdf } from '../../fuzz/slice.js';

const saved = loadReproducers(CRASHERS_DIR, SEEDS_DIR);

describe('fuzz crashers', () => {
  let harness: Harness;

  beforeAll(async () => {
    if (saved.length === 0) return;
    ensureBuilt(SERVER_ROOT, (line) => process.stderr.write(`[fuzz crashers] ${line}\n`));
    harness = new Harness({
      root: SERVER_ROOT,
      settings: SLICE_PROFILE,
      sessions: 1,
      bounds: DEFAULT_BOUNDS,
      extraMarginMs: 0,
      sentinelPdf: readFileSync(path.join(SEEDS_DIR, 'outline.pdf')),
      validPdf: validPdf(),
      log: () => undefined,
    });
    await harness.start();
  }, 180_000);

  afterAll(async () => {
    await harness?.stop();
  }, 60_000);

  if (saved.length === 0) it.skip('has no committed crashers yet', () => undefined);

  for (const { name, reproducer, replay } of saved) {
    it(`${name}: ${reproducer.broke[0]?.kind ?? ''} in ${reproducer.target} stays fixed`, async () => {
      await harness.ensureUp();
      // What is left over already is not this reproducer's doing.
      const known = new Set<string>();
      await settle(harness.server, 0, known);
      harness.monitor.drain();
      // In flight for the watchdog: a server that stops answering is killed, not waited for.
      harness.begin(0);
      const result = await execute(harness.context(0), replay);
      // A server that dies of the request may take a moment to exit after the connection drops.
      await Promise.race([harness.server.waitExit(), sleep(1_000)]);
      harness.end(0);
      const death = harness.death();
      expect(harness.server.alive, death ? (death.unresponsive ? `the server stopped answering for ${death.unresponsive.seconds} s` : `the server died: ${death.lastWords}`) : '').toBe(true);
      expect(await harness.server.health()).toBe(200);
      const broken = result.violations.map((v) => `${v.kind} ${v.target}: ${v.status ?? ''} ${v.message ?? ''} ${v.detail}`.slice(0, 400));
      expect(broken).toEqual([]);
      const memory = harness.monitor.drain().map((e) => `${e.who} ${e.comm} ${Math.round(e.rssBytes / 1048576)} MB${e.killed ? ' (killed)' : ''}`);
      expect(memory, 'resident memory above the bound while it ran').toEqual([]);
      const leftovers = (await settle(harness.server, 10_000, known)).map((v) => v.detail);
      expect(leftovers, 'tmp entries or tool processes left behind').toEqual([]);
    }, 240_000);
  }
});
