import type { RuleOutcome } from './check-rule.js';
import type { Profile, Rule } from './model.js';

export type RuleStatus = 'passed' | 'failed' | 'not-checked';
export type Verdict = 'compliant' | 'non-compliant' | 'inconclusive';

export interface RuleTally {
  rule: Rule;
  status: RuleStatus;
  passed: number;
  failed: number;
  notChecked: number;
  /** The first failures' messages (at most FAILURE_SAMPLES), for the report. */
  failures: string[];
  /** Why the rule is not-checked (the first reason met), when it is. */
  notCheckedReason: string | undefined;
}

const FAILURE_SAMPLES = 10;

/**
 * Collects the outcomes of one validation into a status per rule and the document's verdict, so that
 * a rule nobody checked can never count as passed:
 * - a rule whose object type the model does not implement is `not-checked` (zero objects of a type the
 *   model cannot enumerate proves nothing); zero objects of an implemented type is a pass, as in veraPDF;
 * - a rule is `failed` when any object failed it, else `not-checked` when any object could not be
 *   checked, else `passed`;
 * - the verdict is `non-compliant` when any rule failed, `inconclusive` when none failed but some were
 *   not checked, and `compliant` only when every rule of the profile passed.
 */
export class ProfileTally {
  private readonly tallies = new Map<Rule, RuleTally>();

  constructor(
    private readonly profile: Profile,
    private readonly implementsType: (type: string) => boolean,
  ) {
    for (const rule of profile.rules) {
      this.tallies.set(rule, { rule, status: 'passed', passed: 0, failed: 0, notChecked: 0, failures: [], notCheckedReason: undefined });
    }
  }

  record(rule: Rule, outcome: RuleOutcome): void {
    const tally = this.tallies.get(rule);
    if (tally === undefined) throw new Error(`rule ${rule.id} is not in profile ${this.profile.flavour}`);
    if (outcome.status === 'passed') tally.passed++;
    else if (outcome.status === 'failed') {
      tally.failed++;
      if (tally.failures.length < FAILURE_SAMPLES) tally.failures.push(outcome.message);
    } else {
      tally.notChecked++;
      tally.notCheckedReason ??= outcome.detail;
    }
  }

  result(): { verdict: Verdict; rules: RuleTally[] } {
    const rules = [...this.tallies.values()].map((tally): RuleTally => {
      if (tally.failed > 0) return { ...tally, status: 'failed' };
      if (tally.notChecked > 0) return { ...tally, status: 'not-checked' };
      if (!this.implementsType(tally.rule.object)) return { ...tally, status: 'not-checked', notCheckedReason: `the model does not implement ${tally.rule.object}` };
      return { ...tally, status: 'passed' };
    });
    const verdict: Verdict = rules.some((rule) => rule.status === 'failed') ? 'non-compliant' : rules.some((rule) => rule.status === 'not-checked') ? 'inconclusive' : 'compliant';
    return { verdict, rules };
  }
}
