import { describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../src/engines/archive/errors.js';
import { compileFilter, matchesFilter, unsafeRegexReason } from '../../../src/engines/archive/filter.js';
import type { FileFilter, FileFilterRule } from '../../../src/engines/archive/filter.js';

const glob = (rulePattern: string): FileFilterRule => ({ rulePattern, ruleType: 'glob' });
const regex = (rulePattern: string): FileFilterRule => ({ rulePattern, ruleType: 'regex' });
const suffix = (rulePattern: string): FileFilterRule => ({ rulePattern, ruleType: 'suffix' });

function select(names: string[], filter: FileFilter | undefined): string[] {
  const chosen = compileFilter(filter).select(names);
  return names.filter((_, index) => chosen[index]);
}

function badFilter(run: () => unknown): ArchiveError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).kind).toBe('badFilter');
    return error as ArchiveError;
  }
  throw new Error('expected a bad-filter error');
}

const FILES = ['logo.png', 'form.pdf', 'readme.txt'];
const TREE = ['logo.png', 'docs/form.pdf', 'docs/sub/Report.PDF', 'img/logo.png', '.hidden.pdf', 'x/docs/a.pdf'];

describe('file filter', () => {
  it('selects everything without rules ({} / null / undefined / empty lists)', () => {
    expect(select(FILES, {})).toEqual(FILES);
    expect(select(FILES, undefined)).toEqual(FILES);
    expect(select(FILES, { includeRules: [], excludeRules: null })).toEqual(FILES);
    expect(compileFilter({}).selectsAll).toBe(true);
  });

  it('the reference example: glob {logo.png,form.pdf} selects 2 of 3 files', () => {
    expect(select(FILES, { includeRules: [glob('{logo.png,form.pdf}')] })).toEqual(['logo.png', 'form.pdf']);
  });

  it('a glob without / matches base names, also in sub-folders; with / it matches the whole path', () => {
    expect(select(TREE, { includeRules: [glob('{logo.png,form.pdf}')] })).toEqual(['logo.png', 'docs/form.pdf', 'img/logo.png']);
    expect(select(TREE, { includeRules: [glob('*.pdf')] })).toEqual(['docs/form.pdf', '.hidden.pdf', 'x/docs/a.pdf']);
    expect(select(TREE, { includeRules: [glob('docs/*.pdf')] })).toEqual(['docs/form.pdf']);
    expect(select(TREE, { includeRules: [glob('docs/**')] })).toEqual(['docs/form.pdf', 'docs/sub/Report.PDF']);
    expect(select(TREE, { includeRules: [glob('**/docs/*.pdf')] })).toEqual(['docs/form.pdf', 'x/docs/a.pdf']);
    expect(select(TREE, { includeRules: [glob('*.[Pp][Dd][Ff]')] })).toEqual(['docs/form.pdf', 'docs/sub/Report.PDF', '.hidden.pdf', 'x/docs/a.pdf']);
  });

  it('globs are case-sensitive; extglob and ! negation are off', () => {
    expect(matchesFilter('a.PDF', { includeRules: [glob('*.pdf')] })).toBe(false);
    expect(matchesFilter('a', { includeRules: [glob('+(a)')] })).toBe(false);
    expect(matchesFilter('+(a)', { includeRules: [glob('+(a)')] })).toBe(true);
    expect(matchesFilter('b', { includeRules: [glob('!a')] })).toBe(false);
    expect(matchesFilter('!a', { includeRules: [glob('!a')] })).toBe(true);
  });

  it('suffix is case-insensitive on the name', () => {
    expect(select(TREE, { includeRules: [suffix('.pdf')] })).toEqual(['docs/form.pdf', 'docs/sub/Report.PDF', '.hidden.pdf', 'x/docs/a.pdf']);
    expect(select(TREE, { includeRules: [suffix('LOGO.PNG')] })).toEqual(['logo.png', 'img/logo.png']);
  });

  it('regex is searched in the whole path and case-sensitive; anchors make it exact', () => {
    expect(select(TREE, { includeRules: [regex('\\.pdf$')] })).toEqual(['docs/form.pdf', '.hidden.pdf', 'x/docs/a.pdf']);
    expect(select(TREE, { includeRules: [regex('^docs/')] })).toEqual(['docs/form.pdf', 'docs/sub/Report.PDF']);
    expect(select(TREE, { includeRules: [regex('.*\\.png')] })).toEqual(['logo.png', 'img/logo.png']);
    expect(select(TREE, { includeRules: [regex('^logo\\.png$')] })).toEqual(['logo.png']);
    expect(matchesFilter('dokument-ä.pdf', { includeRules: [regex('^\\p{L}+-\\p{L}\\.pdf$')] })).toBe(true);
    // Not valid with the u flag (identity escape), valid without: accepted.
    expect(matchesFilter('a-b', { includeRules: [regex('a\\-b')] })).toBe(true);
  });

  it('exclude rules win over include rules; exclude alone keeps the rest', () => {
    expect(select(TREE, { includeRules: [suffix('.pdf')], excludeRules: [glob('docs/**')] })).toEqual(['.hidden.pdf', 'x/docs/a.pdf']);
    expect(select(TREE, { excludeRules: [glob('.*'), regex('/')] })).toEqual(['logo.png']);
    expect(select(TREE, { includeRules: [glob('*.png'), suffix('form.pdf')] })).toEqual(['logo.png', 'docs/form.pdf', 'img/logo.png']);
  });

  it('refuses invalid rules with a typed error naming the rule', () => {
    expect(badFilter(() => compileFilter({ includeRules: [glob('*.pdf'), regex('(unclosed')] })).message).toMatch(/includeRules\[1\] \(regex "\(unclosed"\): invalid regular expression/);
    expect(badFilter(() => compileFilter({ excludeRules: [{ rulePattern: 'x', ruleType: 'wildcard' }] })).message).toMatch(/excludeRules\[0\]: unknown ruleType "wildcard"/);
    expect(badFilter(() => compileFilter({ includeRules: [suffix('')] })).message).toMatch(/includeRules\[0\].*empty/);
    expect(badFilter(() => compileFilter({ includeRules: [{ rulePattern: 'x' } as unknown as FileFilterRule] })).message).toMatch(/ruleType is missing/);
    expect(badFilter(() => compileFilter({ includeRules: [null as unknown as FileFilterRule] })).message).toMatch(/includeRules\[0\] must be an object/);
    expect(badFilter(() => compileFilter({ includeRules: 'x' as unknown as FileFilterRule[] })).message).toMatch(/includeRules must be an array/);
    expect(badFilter(() => compileFilter({ includeRules: [regex('a'.repeat(513))] })).message).toMatch(/longer than 512/);
    expect(badFilter(() => compileFilter({ includeRules: Array.from({ length: 65 }, () => suffix('x')) })).message).toMatch(/at most 64/);
    expect(badFilter(() => compileFilter({ includeRules: [glob('*a'.repeat(17))] })).message).toMatch(/more than 16 wildcards/);
  });

  it('refuses ReDoS-prone regexes (nested quantifiers, backreferences) at once', () => {
    const evil = ['(a+)+$', '^(a*)*b', '(?:[a-z]+\\.)*x', '(x{2,}){3}', '(a|b+)*', '((ab)*c)+', '(?<n>a)\\k<n>', '(a)\\1', '^(\\w+\\s?)*$', '(.*a){12}'];
    for (const pattern of evil) {
      const started = performance.now();
      const error = badFilter(() => matchesFilter('a'.repeat(1000), { includeRules: [regex(pattern)] }));
      expect(performance.now() - started).toBeLessThan(50);
      expect(error.message).toMatch(/refused, (nested quantifiers|backreferences)/);
    }
    const fine = ['^docs/.*\\.pdf$', '(foo|bar)\\.txt', '[a-z]+\\.(pdf|png)', '(ab)+', '(a?)+', '\\d{4}-\\d{2}', '[(+*]+', 'a{2}b{1,3}', '(?=x)x+', '\\p{Lu}{2,}'];
    for (const pattern of fine) expect(unsafeRegexReason(pattern), pattern).toBeUndefined();
  });

  it('a pattern the static check cannot recognise is stopped by the time budget', () => {
    // (a|a)*b and many stars in a glob backtrack exponentially / polynomially on a long name of a's.
    const name = `${'a'.repeat(40)}!`;
    for (const rule of [regex('^(a|a)*b$'), glob('*a*a*a*a*a*a*a*a*a*a*a*b')]) {
      const filter = compileFilter({ includeRules: [rule] }, { timeoutMs: 150 });
      const started = performance.now();
      const error = badFilter(() => filter.select(['fine.txt', name]));
      expect(error.message).toMatch(/took more than 150 ms/);
      expect(performance.now() - started).toBeLessThan(1500);
    }
  });

  it('never matches names longer than 1024 characters with any rule', () => {
    const long = `${'d/'.repeat(600)}x.pdf`;
    expect(matchesFilter(long, { includeRules: [suffix('.pdf')] })).toBe(false);
    expect(matchesFilter(long, { includeRules: [regex('pdf')] })).toBe(false);
    expect(matchesFilter(long, {})).toBe(true);
  });

  it('evaluates 10,000 names quickly', () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `folder${i % 50}/file-${i}.${i % 3 === 0 ? 'pdf' : 'png'}`);
    const filter = compileFilter({ includeRules: [glob('*.pdf'), regex('^folder1/')], excludeRules: [suffix('-9.png')] });
    const started = performance.now();
    const chosen = filter.select(names);
    expect(performance.now() - started).toBeLessThan(500);
    expect(chosen.filter(Boolean).length).toBeGreaterThan(3000);
  });
});
