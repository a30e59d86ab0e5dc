import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadProfile, profileFile } from '../../../../src/engines/pdfa-validator/profile/load.js';
import { PDFA_LEVELS, PROFILE_ATTRIBUTION } from '../../../../src/engines/pdfa-validator/profile/model.js';
import { profileJson, readProfileXml } from '../../../../src/engines/pdfa-validator/profile/profile-xml.js';

function xmlOf(level: string): string {
  return readFileSync(new URL(`../../../../resources/pdfa/profiles/PDFA-${level.toUpperCase()}.xml`, import.meta.url), 'utf8');
}

/** Counted in the raw text, independently of the XML reader. */
function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

describe('the shipped PDF/A profiles', () => {
  for (const level of PDFA_LEVELS) {
    it(`${level}: loads with as many rules, deferred rules and variables as the XML has`, () => {
      const xml = xmlOf(level);
      const profile = loadProfile(level);
      expect(profile.level).toBe(level);
      expect(profile.flavour).toBe(`PDFA_${level[0]}_${level[1]!.toUpperCase()}`);
      expect(profile.rules).toHaveLength(count(xml, /<rule /g));
      expect(profile.rules.length).toBeGreaterThanOrEqual(129);
      expect(profile.rules.length).toBeLessThanOrEqual(155);
      expect(profile.rules.filter((rule) => rule.deferred)).toHaveLength(count(xml, /<rule [^>]*deferred="true"/g));
      expect(profile.variables).toHaveLength(count(xml, /<variable /g));
      expect(new Set(profile.rules.map((rule) => rule.id)).size).toBe(profile.rules.length);
      expect(profile.rules.reduce((n, rule) => n + rule.error.arguments.length, 0)).toBe(count(xml, /<argument>/g));
      expect([...profile.rulesByObject.values()].reduce((n, rules) => n + rules.length, 0)).toBe(profile.rules.length);
    });

    it(`${level}: the checked-in JSON is what the XML says (regenerate: node --import tsx scripts/pdfa-profiles.ts)`, () => {
      expect(readFileSync(profileFile(level), 'utf8')).toBe(profileJson(readProfileXml(xmlOf(level))));
    });
  }

  it('reads a rule completely: id, object, description, test, message, arguments, references', () => {
    const rule = loadProfile('2b').rules.find((r) => r.id === '6.1.2-1')!;
    expect(rule.ruleId).toEqual({ specification: 'ISO_19005_2', clause: '6.1.2', testNumber: 1 });
    expect(rule.object).toBe('CosDocument');
    expect(rule.deferred).toBe(false);
    expect(rule.description).toMatch(/^The file header shall begin at byte zero/);
    expect(rule.test.source).toBe('headerOffset == 0 && /^%PDF-1\\.[0-7]$/.test(header)');
    expect(rule.properties).toEqual(['header', 'headerOffset']);
    expect(rule.error.message).toMatch(/^File header %1 \(offset = %2\)/);
    expect(rule.error.arguments.map((arg) => arg.source)).toEqual(['header', 'headerOffset']);
    const withReference = loadProfile('2b').rules.find((r) => r.id === '6.1.3-1')!;
    expect(withReference.references).toEqual([{ specification: 'ISO 32000-1:2008', clause: '14.4' }]);
  });

  it('models the gOutputCS variable and the rules that read it', () => {
    const profile = loadProfile('2b');
    expect(profile.variables).toHaveLength(1);
    const variable = profile.variables[0]!;
    expect(variable).toMatchObject({ name: 'gOutputCS', object: 'ICCOutputProfile', properties: ['S', 'colorSpace'] });
    expect(variable.defaultValue.source).toBe('null');
    const readers = profile.rules.filter((rule) => rule.variables.includes('gOutputCS')).map((rule) => rule.id);
    expect(readers).toEqual(expect.arrayContaining(['6.2.4.3-2', '6.2.4.3-3', '6.2.4.3-4']));
    for (const rule of profile.rules) expect(rule.properties).not.toContain('gOutputCS');
  });

  it('uses no %N in a message beyond its arguments', () => {
    for (const level of PDFA_LEVELS) {
      for (const rule of loadProfile(level).rules) {
        for (const [, digits] of rule.error.message.matchAll(/%(\d+)/g)) expect([rule.id, Number(digits) <= rule.error.arguments.length]).toEqual([rule.id, true]);
      }
    }
  });

  it('compiles a profile once per process', () => {
    expect(loadProfile('1b')).toBe(loadProfile('1b'));
    expect(() => loadProfile('4' as never)).toThrow(/no PDF\/A profile/);
  });

  it('ships the attribution the licence requires next to the profiles', () => {
    expect(PROFILE_ATTRIBUTION).toBe('veraPDF validation profiles, © veraPDF Consortium, CC BY 4.0');
    expect(readFileSync(new URL('../../../../resources/pdfa/profiles/README.md', import.meta.url), 'utf8')).toContain(PROFILE_ATTRIBUTION);
  });
});
