import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compile } from '../../../../src/engines/pdfa-validator/expression/evaluate.js';

/**
 * Every expression of the eight shipped veraPDF profiles compiles. The expressions are taken from the
 * XML with plain regular expressions (not with the profile reader under test), so a rule the reader
 * missed still counts.
 */
const LEVELS = ['1A', '1B', '2A', '2B', '2U', '3A', '3B', '3U'];
const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function expressionsOf(xml: string): { what: string; source: string }[] {
  const found: { what: string; source: string }[] = [];
  for (const element of ['test', 'argument', 'defaultValue', 'value']) {
    for (const match of xml.matchAll(new RegExp(`<${element}>([\\s\\S]*?)</${element}>`, 'g'))) {
      found.push({ what: element, source: match[1]!.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => XML_ENTITIES[name]!) });
    }
  }
  return found;
}

describe('the expressions of the PDF/A profiles', () => {
  const all = LEVELS.flatMap((level) => expressionsOf(readFileSync(new URL(`../../../../resources/pdfa/profiles/PDFA-${level}.xml`, import.meta.url), 'utf8')).map((e) => ({ ...e, level })));

  it('finds the expressions independently: one test per rule, plus arguments and variables', () => {
    const tests = all.filter((e) => e.what === 'test').length;
    expect(tests).toBe(135 + 129 + 153 + 144 + 146 + 155 + 146 + 148);
    expect(all.filter((e) => e.what === 'value' || e.what === 'defaultValue')).toHaveLength(16);
    expect(all.filter((e) => e.what === 'argument')).toHaveLength(1096);
  });

  it('compiles 100 % of them', () => {
    const failures: string[] = [];
    for (const { level, what, source } of all) {
      try {
        compile(source);
      } catch (error) {
        failures.push(`${level} ${what} ${source}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('uses exactly these builtins (the set the evaluator must get right)', () => {
    const builtins = new Set(all.flatMap(({ source }) => compile(source).builtins));
    expect([...builtins].sort()).toEqual(['.filter()', '.indexOf()', '.length', '.length()', '.search()', '.split()', '.test()', '.toString()', 'Math.abs()']);
  });
});
