/**
 * The fuzz loop: cases in batches, `concurrency` of them at a time (one fuzz session each), the
 * documents of a case deleted after it; after each batch the server-wide invariants, and after a
 * crash the suspects isolated and the server brought back. Runs for a duration (the long run) or a
 * fixed case list (the slice).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { deleteAll } from './api.js';
import { buildCase, type CaseChoice, type FuzzCase } from './cases.js';
import type { Corpus, Seed } from './corpus/corpus.js';
import { execute, replayableOf, type Violation } from './execute.js';
import { Harness, crashViolation, type HarnessOptions } from './harness.js';
import { attachCauses } from './server-log.js';
import { settle } from './invariants.js';
import type { ResultsDir } from './results.js';
import { Stats } from './stats.js';
import { Triage, type TriageOptions } from './triage.js';

export interface CampaignOptions {
  harness: Omit<HarnessOptions, 'sessions' | 'log'>;
  corpus: Corpus;
  /** Committed seed PDFs that carry payload cases. */
  carriers: Seed[];
  runSeed: number;
  /** Stop after this many cases… */
  cases?: number;
  /** …or when this time has passed. */
  durationMs?: number;
  /** The slice's plan of targets and first mutators (by case index). */
  plan?: CaseChoice[];
  batchSize: number;
  concurrency: number;
  settleMs: number;
  triage: Omit<TriageOptions, 'runSeed' | 'log'>;
  results: ResultsDir;
  log: (line: string) => void;
}

export interface CampaignResult {
  stats: Stats;
  harness: Harness;
  durationMs: number;
}

export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const { log } = options;
  const harness = new Harness({ ...options.harness, sessions: options.concurrency, log });
  const stats = new Stats();
  const triage = new Triage(harness, options.results, stats, { ...options.triage, runSeed: options.runSeed, log });
  const known = new Set<string>();
  const deadline = options.durationMs ? Date.now() + options.durationMs : Infinity;
  const total = options.cases ?? Infinity;
  let next = 0;
  // Ctrl-C finishes the current batch (then the summary); SIGTERM and a second Ctrl-C stop at once,
  // taking the server and its processes down (they must not outlive the fuzzer).
  let stopped = false;
  const stopOnSignal = () => {
    log('interrupted: finishing the current batch (Ctrl-C again to stop now)');
    stopped = true;
    process.once('SIGINT', killNow);
  };
  const killNow = () => {
    harness.killEverything();
    process.exit(130);
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', killNow);
  await harness.start();
  log(`server pid ${harness.server.pid} on ${harness.server.origin}, data dir ${harness.server.dataDir}`);
  log(
    `limits (ms): upload ${harness.limits.uploadMs}, info ${harness.limits.infoMs}, converter ${harness.limits.converterMs}, toolbox ${harness.limits.toolboxMs}, extract ${harness.limits.extractMs}, pdfa ${harness.limits.pdfaMs}, signature ${harness.limits.signatureMs}, ocr ${harness.limits.ocrMs}, barcode ${harness.limits.barcodeMs}, urlconverter ${harness.limits.urlconverterMs}`,
  );
  try {
    while (!stopped && next < total && Date.now() < deadline) {
      const first = next;
      const last = Math.min(total, first + options.batchSize);
      const batch = await runBatch(options, harness, stats, triage, first, last, deadline);
      // Cases the batch did not reach because the server died run in the next batch.
      next = Math.max(next, batch.resumeAt);
      await afterBatch(options, harness, triage, batch.ran, batch.hung, known);
      log(
        `cases ${stats.cases}, failures ${stats.failures.length} (${stats.distinct.size} distinct), crashes ${stats.crashes}, peak RSS server ${mb(harness.monitor.peakServer)} child ${mb(harness.monitor.peakChild.rssBytes)} (${harness.monitor.peakChild.comm || '-'})`,
      );
    }
  } finally {
    process.removeListener('SIGINT', stopOnSignal);
    process.removeListener('SIGINT', killNow);
    process.removeListener('SIGTERM', killNow);
    await harness.stop();
  }
  return { stats, harness, durationMs: Date.now() - stats.startedAt };
}

const mb = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;

/** Runs cases [first, last) with `concurrency` workers; returns the cases that ran and the first that did not. */
async function runBatch(
  options: CampaignOptions,
  harness: Harness,
  stats: Stats,
  triage: Triage,
  first: number,
  last: number,
  deadline: number,
): Promise<{ ran: FuzzCase[]; hung: FuzzCase[]; resumeAt: number }> {
  const ran: FuzzCase[] = [];
  const hung: FuzzCase[] = [];
  let cursor = first;
  const worker = async (session: number) => {
    while (cursor < last && Date.now() < deadline && harness.server.alive) {
      const index = cursor++;
      const c = buildCase(options.runSeed, index, options.corpus, options.carriers, options.plan?.[index] ?? {});
      ran.push(c);
      harness.begin(index);
      const mark = harness.server.outputMark();
      const result = await execute(harness.context(session), replayableOf(c));
      // A dead server resets every connection in flight: that is the crash, reported once per batch.
      // The reset arrives before the exit is seen: the case stays in flight until then (a suspect).
      if (result.violations.some((v) => v.kind === 'connection')) await Promise.race([harness.server.waitExit(), sleep(1_500)]);
      harness.end(index);
      await attachCauses(harness.server, mark, result.violations);
      stats.cases++;
      stats.addCalls(index, result.calls);
      if (result.violations.some((v) => v.kind === 'hang')) hung.push(c);
      const own = harness.death() ? result.violations.filter((v) => v.kind !== 'connection') : result.violations;
      for (const violation of own) await triage.caseFailure(c, violation);
      if (harness.server.alive) await deleteAll(harness.server.rest, harness.token(session)).catch(() => 0);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, session) => worker(session)));
  return { ran, hung, resumeAt: cursor };
}

async function afterBatch(options: CampaignOptions, harness: Harness, triage: Triage, batch: FuzzCase[], hung: FuzzCase[], known: Set<string>): Promise<void> {
  const byIndex = new Map(batch.map((c) => [c.index, c]));
  // A server that answers nothing after the batch (a call that timed out on our side still blocks
  // its event loop) is killed, like one that stops answering while cases run.
  const status = harness.server.alive ? await harness.ensureResponsive() : 0;
  const death = harness.death();
  if (death) {
    const reaped = await harness.recover();
    const violation = crashViolation(death, reaped);
    let suspects = death.suspects.map((i) => byIndex.get(i)).filter((c): c is FuzzCase => c !== undefined);
    if (!suspects.length) suspects = hung.length ? hung : batch;
    options.log(
      `${death.unresponsive ? 'server unresponsive, killed' : `server died (code ${death.exit.code}, signal ${death.exit.signal})`}; suspects ${suspects.map((c) => c.index).join(', ')}; restarted`,
    );
    await triage.batchFailure(violation, suspects, triage.reproducesCrash);
  } else if (status !== 200) {
    await triage.batchFailure({ kind: 'health', target: 'server', detail: `GET health answered ${status}`, status }, []);
  }
  for (const event of harness.monitor.drain()) {
    const violation: Violation = {
      kind: 'memory',
      target: 'server',
      detail: `${event.who === 'server' ? 'server' : `child ${event.comm}[${event.pid}]`} resident memory ${Math.round(event.rssBytes / 1048576)} MB${event.killed ? ' (killed by the fuzzer: above the hard limit)' : ''}`,
    };
    await triage.batchFailure(
      violation,
      event.suspects.map((i) => byIndex.get(i)).filter((c): c is FuzzCase => c !== undefined),
      triage.reproducesMemory,
    );
  }
  for (const violation of await settle(harness.server, options.settleMs, known)) {
    const kind = violation.kind === 'tmp' ? 'tmp' : 'stray-process';
    await triage.batchFailure(violation, batch, triage.reproducesLeftovers(kind, options.settleMs));
  }
  const sentinel = await harness.checkSentinel();
  if (sentinel) await triage.batchFailure(sentinel, batch, triage.reproducesSentinel);
}
