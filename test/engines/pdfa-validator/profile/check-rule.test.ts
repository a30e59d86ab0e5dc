import { describe, expect, it } from 'vitest';
import type { PropertyValue } from '../../../../src/engines/pdfa-validator/expression/value.js';
import { checkRule, formatMessage, UNAVAILABLE_ARGUMENT } from '../../../../src/engines/pdfa-validator/profile/check-rule.js';
import { compileProfile, loadProfile } from '../../../../src/engines/pdfa-validator/profile/load.js';
import type { ModelObject, Rule } from '../../../../src/engines/pdfa-validator/profile/model.js';
import type { RuleSource } from '../../../../src/engines/pdfa-validator/profile/source.js';
import { ProfileVariables } from '../../../../src/engines/pdfa-validator/profile/variables.js';
import { ProfileTally } from '../../../../src/engines/pdfa-validator/profile/verdict.js';
import { scopeOf } from '../expression/scope.js';

const profile2b = loadProfile('2b');

function rule(id: string): Rule {
  const found = profile2b.rules.find((r) => r.id === id);
  if (found === undefined) throw new Error(`no rule ${id}`);
  return found;
}

function object(types: string[], properties: Record<string, PropertyValue>): ModelObject {
  return { types, ...scopeOf(properties) };
}

/** A one-rule profile, for tests that need a test the real profiles do not have. */
function ruleOf(test: string, args: string[] = [], message = ''): Rule {
  const source: RuleSource = { object: 'X', deferred: false, tags: [], specification: 'ISO_19005_2', clause: '9.9', testNumber: 1, description: '', test, message, arguments: args, references: [] };
  return compileProfile('2b', { flavour: 'PDFA_2_B', name: '', description: '', rules: [source], variables: [] }).rules[0]!;
}

describe('checkRule', () => {
  it("passes and fails a real rule, with veraPDF's message arguments", () => {
    const header = rule('6.1.2-1');
    expect(checkRule(header, scopeOf({ header: '%PDF-1.7', headerOffset: 0 }))).toEqual({ status: 'passed' });
    const failed = checkRule(header, scopeOf({ header: '%PDF-1.8', headerOffset: 3 }));
    expect(failed).toMatchObject({ status: 'failed', arguments: ['%PDF-1.8', '3'] });
    expect(failed.status === 'failed' && failed.message).toBe(
      "File header %PDF-1.8 (offset = 3) starts at non-zero offset or does not match the pattern %PDF-1.n, where 'n' is a single digit number between 0 and 7",
    );
  });

  it('is not-checked when the object does not implement a property the test reads', () => {
    const outcome = checkRule(rule('6.1.2-1'), scopeOf({ header: '%PDF-1.7' }));
    expect(outcome).toMatchObject({ status: 'not-checked', reason: 'unknownProperty' });
    expect(outcome.status === 'not-checked' && outcome.detail).toContain('headerOffset');
  });

  it('is not-checked for an unimplemented property even where a short-circuit would have passed without reading it', () => {
    const widths = ruleOf('isStandard == true || FirstChar != null');
    expect(checkRule(widths, scopeOf({ isStandard: true }))).toMatchObject({ status: 'not-checked', reason: 'unknownProperty' });
    expect(checkRule(widths, scopeOf({ isStandard: true, FirstChar: null }))).toEqual({ status: 'passed' });
    expect(checkRule(widths, scopeOf({ isStandard: false, FirstChar: null }))).toMatchObject({ status: 'failed' });
  });

  it('is not-checked when the evaluation fails or reaches a limit, never passed', () => {
    const subset = ruleOf('fontName.search(/[A-Z]{6}\\+/) != 0 || CharSet != null');
    expect(checkRule(subset, scopeOf({ fontName: null, CharSet: null }))).toMatchObject({ status: 'not-checked', reason: 'type' });
    const mime = ruleOf('Subtype != null && /^[-\\w+\\.]+\\/[-\\w+\\.]+$/.test(Subtype)');
    expect(checkRule(mime, scopeOf({ Subtype: 'a'.repeat(100_000) }))).toMatchObject({ status: 'not-checked', reason: 'limit' });
  });

  it("reads a property returned as undefined as null (a getter's absent value)", () => {
    expect(checkRule(ruleOf('AS == null'), scopeOf({ AS: undefined }))).toEqual({ status: 'passed' });
  });

  it('still reports a failure when an error argument cannot be evaluated', () => {
    const outcome = checkRule(ruleOf('a == 1', ['a', 'b', 'a.split(",")'], 'a=%1 b=%2 c=%3'), scopeOf({ a: 2 }));
    expect(outcome).toEqual({ status: 'failed', message: `a=2 b=${UNAVAILABLE_ARGUMENT} c=${UNAVAILABLE_ARGUMENT}`, arguments: ['2', UNAVAILABLE_ARGUMENT, UNAVAILABLE_ARGUMENT] });
  });

  it('formats arguments as JavaScript prints them', () => {
    const outcome = checkRule(
      ruleOf('false', ['null', 'x', 'y', "z.split('&').filter(e => e != 'N').toString()", 'F != null ? (F & 2) >> 1 : null'], '%1 %2 %3 %4 %5'),
      scopeOf({ x: true, y: 2.5, z: 'N&D&R', F: 6 }),
    );
    expect(outcome.status === 'failed' && outcome.message).toBe('null true 2.5 D,R 1');
  });
});

describe('formatMessage', () => {
  it('replaces %1…%n and leaves any other % as text', () => {
    expect(formatMessage('%1 byte(s) after %%EOF', ['5'])).toBe('5 byte(s) after %%EOF');
    expect(formatMessage('pattern %PDF-1.n, %2 and %10', ['a', 'b'])).toBe('pattern %PDF-1.n, b and %10');
  });
});

describe('profile variables', () => {
  const rgb = rule('6.2.4.3-2');
  const outputIntent = (properties: Record<string, PropertyValue>) => object(['ICCOutputProfile'], properties);

  it('start at their default and take the value of the last object of their type', () => {
    const variables = new ProfileVariables(profile2b.variables, () => true);
    expect(variables.get('gOutputCS')).toBe(null);
    expect(checkRule(rgb, scopeOf({}), variables)).toMatchObject({ status: 'failed' });
    variables.observe(outputIntent({ S: 'GTS_PDFA1', colorSpace: 'RGB ' }));
    expect(checkRule(rgb, scopeOf({}), variables)).toEqual({ status: 'passed' });
    // An output intent of another subtype keeps the value (the expression names gOutputCS itself).
    variables.observe(outputIntent({ S: 'GTS_PDFX', colorSpace: 'CMYK' }));
    expect(variables.get('gOutputCS')).toBe('RGB ');
    variables.observe(outputIntent({ S: 'GTS_PDFA1', colorSpace: 'CMYK' }));
    expect(checkRule(rgb, scopeOf({}), variables)).toMatchObject({ status: 'failed' });
    // Objects of other types do not touch it.
    variables.observe(object(['PDDeviceRGB'], { S: 'GTS_PDFA1', colorSpace: 'GRAY' }));
    expect(variables.get('gOutputCS')).toBe('CMYK');
  });

  it('make the rules that read them not-checked when their type is not implemented, instead of using the default', () => {
    const variables = new ProfileVariables(profile2b.variables, (type) => type !== 'ICCOutputProfile');
    expect(variables.unknownReason('gOutputCS')).toContain('ICCOutputProfile');
    expect(checkRule(rgb, scopeOf({}), variables)).toMatchObject({ status: 'not-checked', reason: 'unknownVariable' });
  });

  it('become unknown for good when an object of their type lacks a property their value reads', () => {
    const variables = new ProfileVariables(profile2b.variables, () => true);
    variables.observe(outputIntent({ colorSpace: 'RGB ' }));
    variables.observe(outputIntent({ S: 'GTS_PDFA1', colorSpace: 'RGB ' }));
    expect(checkRule(rgb, scopeOf({}), variables)).toMatchObject({ status: 'not-checked', reason: 'unknownVariable' });
  });

  it('are not-checked when the caller gives none to a rule that reads one', () => {
    expect(checkRule(rgb, scopeOf({}))).toMatchObject({ status: 'not-checked', reason: 'unknownVariable' });
  });
});

describe('ProfileTally', () => {
  const everything = () => true;

  function tallyAll(outcome: Parameters<ProfileTally['record']>[1], implementsType: (type: string) => boolean = everything) {
    const tally = new ProfileTally(profile2b, implementsType);
    for (const r of profile2b.rules) tally.record(r, outcome);
    return tally;
  }

  it('is compliant only when every rule passed', () => {
    expect(tallyAll({ status: 'passed' }).result().verdict).toBe('compliant');
    // No object of an implemented type: passed, as in veraPDF.
    expect(new ProfileTally(profile2b, everything).result().verdict).toBe('compliant');
  });

  it('is inconclusive when one rule on one object was not checked, non-compliant when one failed', () => {
    const tally = tallyAll({ status: 'passed' });
    tally.record(rule('6.1.3-1'), { status: 'not-checked', reason: 'unknownProperty', detail: 'not implemented: lastID' });
    const result = tally.result();
    expect(result.verdict).toBe('inconclusive');
    expect(result.rules.filter((r) => r.status === 'not-checked').map((r) => [r.rule.id, r.notCheckedReason])).toEqual([['6.1.3-1', 'not implemented: lastID']]);
    tally.record(rule('6.1.2-1'), { status: 'failed', message: 'bad header', arguments: [] });
    expect(tally.result().verdict).toBe('non-compliant');
    expect(tally.result().rules.find((r) => r.rule.id === '6.1.2-1')).toMatchObject({ status: 'failed', failed: 1, passed: 1, failures: ['bad header'] });
  });

  it('counts a rule on a type the model does not implement as not-checked, even with no outcome recorded', () => {
    const result = tallyAll({ status: 'passed' }, (type) => type !== 'Glyph').result();
    const glyphRules = result.rules.filter((r) => r.rule.object === 'Glyph');
    expect(glyphRules.length).toBeGreaterThan(0);
    expect(glyphRules.every((r) => r.status === 'not-checked')).toBe(true);
    expect(result.verdict).toBe('inconclusive');
    expect(new ProfileTally(profile2b, (type) => type !== 'Glyph').result().verdict).toBe('inconclusive');
  });
});
