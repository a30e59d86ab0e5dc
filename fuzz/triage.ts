/**
 * What happens to a failure: it is recorded (failures.jsonl, the run's statistics); the first of its
 * signature is isolated when a server-wide invariant broke with several cases in flight (each suspect
 * replayed alone), minimised when that is cheap (5xx and malformed errors always, crashes within a
 * small budget), and saved as a reproducer.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { deleteAll } from './api.js';
import { attachCauses } from './server-log.js';
import type { FuzzCase } from './cases.js';
import { execute, replayableOf, type Replayable, type Violation } from './execute.js';
import { crashViolation, type Harness } from './harness.js';
import { settle } from './invariants.js';
import { minimise } from './minimise.js';
import { signatureOf, slug, type Reproducer, type ResultsDir } from './results.js';
import type { FailureLine, Stats } from './stats.js';

export interface TriageOptions {
  runSeed: number;
  minimise: boolean;
  /** Also minimise crashes (each attempt may cost a server restart). */
  minimiseCrashes: boolean;
  isolate: boolean;
  log: (line: string) => void;
}

/** Replays one case alone and says whether the given invariant broke again. */
type Reproduces = (c: FuzzCase, replay: Replayable) => Promise<boolean>;

export class Triage {
  constructor(
    private readonly harness: Harness,
    private readonly results: ResultsDir,
    private readonly stats: Stats,
    private readonly options: TriageOptions,
  ) {}

  /** A failure of a known case (its own answer, or isolated from a batch). */
  async caseFailure(c: FuzzCase, violation: Violation, extra: Partial<FailureLine> = {}): Promise<void> {
    const signature = signatureOf(violation);
    const line: FailureLine = { caseIndex: c.index, target: c.target, seed: c.seed, mutations: c.mutations, violation, signature, ...extra };
    const isNew = this.stats.addFailure(line);
    this.results.appendFailure({ runSeed: this.options.runSeed, ...line, call: c.call, size: c.input.length });
    if (!isNew) return;
    this.options.log(`  new failure: ${violation.kind} ${violation.target} (case ${c.index}): ${(violation.cause ?? violation.message ?? violation.detail).split('\n')[0]!.slice(0, 200)}`);
    let input = c.input;
    const cheap = violation.kind === '5xx' || violation.kind === 'error-shape' || violation.kind === 'connection';
    if (this.options.minimise && (cheap || ((violation.kind === 'crash' || violation.kind === 'unresponsive') && this.options.minimiseCrashes))) {
      const crash = violation.kind === 'crash' || violation.kind === 'unresponsive';
      const result = await minimise(
        c.input,
        async (candidate) => {
          const replay = replayableOf({ ...c, input: candidate });
          return crash ? this.crashes(replay, c.index) : (await this.replay(replay)).some((v) => signatureOf(v) === signature);
        },
        crash ? { attempts: 6, ms: 240_000 } : { attempts: 48, ms: 90_000 },
      );
      input = result.bytes;
      if (input.length < c.input.length) this.options.log(`    minimised ${c.input.length} → ${input.length} bytes in ${result.attempts} attempts`);
    }
    const reproducer: Reproducer = {
      signature,
      target: c.target,
      group: c.group,
      call: c.call,
      document: c.carrier ? c.carrier.name : 'input',
      fileName: c.carrier ? `carrier.${c.carrier.ext}` : `fuzz.${c.ext}`,
      payload: c.carrier !== undefined,
      broke: [violation],
      foundBy: { runSeed: this.options.runSeed, caseIndex: c.index, seed: c.seed, mutations: c.mutations, originalSize: c.input.length, minimisedSize: input.length },
    };
    const file = this.results.saveReproducer(`${slug(`${violation.kind}-${c.target}`)}-${c.index}`, input, reproducer);
    const distinct = this.stats.distinct.get(signature)!;
    distinct.reproducer = file;
    distinct.minimisedSize = input.length;
    distinct.originalSize = c.input.length;
    line.reproducer = file;
  }

  /**
   * A server-wide invariant broke with these cases in flight or in the batch: replay them one at a
   * time; the first that breaks it again is the culprit. Without one, the failure is recorded
   * against the first suspect, with the others listed.
   */
  async batchFailure(violation: Violation, suspects: FuzzCase[], reproduces?: Reproduces): Promise<void> {
    if (suspects.length === 0) {
      const line: FailureLine = { caseIndex: -1, target: violation.target, seed: '', mutations: [], violation, signature: signatureOf(violation) };
      if (this.stats.addFailure(line)) this.options.log(`  new failure: ${violation.kind}: ${violation.detail.slice(0, 160)}`);
      this.results.appendFailure({ runSeed: this.options.runSeed, ...line });
      return;
    }
    // One suspect is the culprit; a suspect whose target already broke this way is taken for it
    // (replaying every suspect of a known failure again would cost minutes for nothing new).
    let culprit: FuzzCase | undefined = suspects.length === 1 ? suspects[0] : suspects.find((s) => this.stats.distinct.has(signatureOf({ ...violation, target: s.target })));
    if (!culprit && reproduces && this.options.isolate) {
      const deadline = Date.now() + 300_000;
      for (const suspect of suspects.slice(0, 16)) {
        if (Date.now() > deadline) break;
        if (await reproduces(suspect, replayableOf(suspect))) {
          culprit = suspect;
          this.options.log(`    isolated: case ${suspect.index} (${suspect.target}) breaks it alone`);
          break;
        }
      }
    }
    const blamed = culprit ?? suspects[0]!;
    await this.caseFailure(blamed, { ...violation, target: blamed.target }, culprit ? {} : { suspects: suspects.map((s) => s.index) });
  }

  /**
   * Replays a case alone on session 0; returns the violations of its own answers. When the server
   * dies of the replay (isolating a memory bound, say), that crash is recorded against the case and
   * the server brought back.
   */
  async replay(replay: Replayable, c?: FuzzCase): Promise<Violation[]> {
    await this.harness.ensureUp();
    const mark = this.harness.server.outputMark();
    if (c) this.harness.begin(c.index);
    const result = await execute(this.harness.context(0), replay);
    if (result.violations.some((v) => v.kind === 'connection')) await Promise.race([this.harness.server.waitExit(), sleep(1_500)]);
    if (c) this.harness.end(c.index);
    const death = this.harness.death();
    if (death) {
      const reaped = await this.harness.recover();
      if (c) await this.caseFailure(c, { ...crashViolation(death, reaped), target: c.target });
      return [];
    }
    await attachCauses(this.harness.server, mark, result.violations);
    await deleteAll(this.harness.server.rest, this.harness.token(0)).catch(() => 0);
    return result.violations;
  }

  /**
   * Replays a case alone and says whether the server died of it, or stopped answering (the watchdog
   * kills it then: the case counts as in flight for it); brings it back either way.
   */
  async crashes(replay: Replayable, index = -1): Promise<boolean> {
    await this.harness.ensureUp();
    this.harness.begin(index);
    await execute(this.harness.context(0), replay).finally(() => this.harness.end(index));
    await Promise.race([this.harness.server.waitExit(), sleep(1_000)]);
    if (this.harness.server.alive && (await this.harness.ensureResponsive()) !== 0) {
      await deleteAll(this.harness.server.rest, this.harness.token(0)).catch(() => 0);
      return false;
    }
    await this.harness.recover();
    return true;
  }

  /** Reproduces: the server dies or stops answering. */
  readonly reproducesCrash: Reproduces = (c, replay) => this.crashes(replay, c.index);

  /** Reproduces: a memory bound is passed while the case runs alone. */
  readonly reproducesMemory: Reproduces = async (c, replay) => {
    this.harness.monitor.drain();
    const watch = setInterval(() => this.harness.monitor.sample(), 100);
    try {
      await this.replay(replay, c);
      await sleep(500);
    } finally {
      clearInterval(watch);
    }
    return this.harness.monitor.drain().length > 0;
  };

  /** Reproduces: tmp entries or tool processes are left after the case ran alone. */
  readonly reproducesLeftovers =
    (kind: 'tmp' | 'stray-process', settleMs: number): Reproduces =>
    async (c, replay) => {
      const known = new Set<string>();
      await settle(this.harness.server, 1_000, known); // what is left already does not count
      await this.replay(replay, c);
      return (await settle(this.harness.server, settleMs, known)).some((v) => v.kind === kind);
    };

  /** Reproduces: the sentinel document changes. */
  readonly reproducesSentinel: Reproduces = async (c, replay) => {
    await this.replay(replay, c);
    return (await this.harness.checkSentinel()) !== undefined;
  };
}
