import { describe, expect, it } from 'vitest';
import { loadProfile } from '../../../../src/engines/pdfa-validator/profile/load.js';
import { rulesFor } from '../../../../src/engines/pdfa-validator/profile/rules-for.js';

describe('rulesFor', () => {
  const profile = loadProfile('1b');

  it('gives the rules of every type an object is, once each, in profile order', () => {
    const font = ['PDType1Font', 'PDSimpleFont', 'PDFont'];
    const rules = rulesFor(profile, font, false);
    const expected = profile.rules.filter((rule) => !rule.deferred && font.includes(rule.object));
    expect(rules.map((rule) => rule.id)).toEqual(expected.map((rule) => rule.id));
    expect(rules.some((rule) => rule.object === 'PDFont')).toBe(true);
    expect(rules.some((rule) => rule.object === 'PDSimpleFont')).toBe(true);
    expect(new Set(rules).size).toBe(rules.length);
  });

  it('keeps deferred rules apart', () => {
    const deferred = rulesFor(profile, ['PDType1Font', 'PDFont'], true);
    expect(deferred.length).toBeGreaterThan(0);
    expect(deferred.every((rule) => rule.deferred)).toBe(true);
    expect(rulesFor(profile, ['PDType1Font', 'PDFont'], false).every((rule) => !rule.deferred)).toBe(true);
  });

  it('gives nothing for a type no rule names', () => {
    expect(rulesFor(profile, ['NoSuchType'], false)).toEqual([]);
  });
});
