/** What a run counts: cases, the status histogram per target, the slowest calls, the failures. */
import type { CallRecord, Violation } from './execute.js';

export interface FailureLine {
  caseIndex: number;
  target: string;
  seed: string;
  mutations: string[];
  violation: Violation;
  signature: string;
  /** Path of the reproducer saved for this signature (the first occurrence). */
  reproducer?: string;
  /** Cases that were in flight or in the batch when a server-wide invariant broke and no single culprit was found. */
  suspects?: number[];
}

export interface Distinct {
  signature: string;
  count: number;
  first: FailureLine;
  reproducer?: string;
  minimisedSize?: number;
  originalSize?: number;
}

export class Stats {
  readonly startedAt = Date.now();
  cases = 0;
  readonly histogram = new Map<string, Map<string, number>>();
  readonly slowest: (CallRecord & { caseIndex: number })[] = [];
  readonly failures: FailureLine[] = [];
  readonly distinct = new Map<string, Distinct>();
  crashes = 0;

  addCalls(caseIndex: number, calls: CallRecord[]): void {
    for (const c of calls) {
      const label = c.failure ?? String(c.status);
      const row = this.histogram.get(c.target) ?? new Map<string, number>();
      row.set(label, (row.get(label) ?? 0) + 1);
      this.histogram.set(c.target, row);
      this.slowest.push({ ...c, caseIndex });
    }
    this.slowest.sort((a, b) => b.ms - a.ms);
    this.slowest.length = Math.min(this.slowest.length, 15);
  }

  /** Records a failure; returns whether its signature is new. */
  addFailure(line: FailureLine): boolean {
    this.failures.push(line);
    if (line.violation.kind === 'crash') this.crashes++;
    const known = this.distinct.get(line.signature);
    if (known) {
      known.count++;
      return false;
    }
    this.distinct.set(line.signature, { signature: line.signature, count: 1, first: line });
    return true;
  }

  countOf(kind: Violation['kind']): number {
    return this.failures.filter((f) => f.violation.kind === kind).length;
  }
}
