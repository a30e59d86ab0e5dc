/**
 * validatePdfa on small hand-made files (each checked with qpdf to be a readable PDF first): one fault
 * fails its rule, a clean file fails no COS rule and is still not compliant while the XMP and PD rules
 * cannot be checked, and nothing that stopped short (limits, deadline) can ever end compliant.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { COS_TYPES } from '../../../src/engines/pdfa-validator/model/cos/index.js';
import { IMPLEMENTED_TYPES } from '../../../src/engines/pdfa-validator/model/index.js';
import { PROFILE_ATTRIBUTION } from '../../../src/engines/pdfa-validator/profile/model.js';
import { validatePdfa } from '../../../src/engines/pdfa-validator/validate.js';
import { PdfaValidateError } from '../../../src/engines/pdfa-validator/validate-errors.js';
import { BASE_OBJECTS, buildPdf, streamBody } from './cos/build-pdf.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pdfa-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes the file and checks that qpdf reads it without error (so a failed rule is ours to explain). */
function written(bytes: Buffer, name: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  const check = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
  expect(check.status, check.stdout + check.stderr).toBe(0);
  return file;
}

const clean = (): Buffer => buildPdf(BASE_OBJECTS).bytes;

describe('validatePdfa', () => {
  it('a header after junk bytes fails 6.1.2-1 on the document: non-compliant', async () => {
    const file = written(Buffer.concat([Buffer.from('junk\n'), clean()]), 'junk-header.pdf');
    const report = await validatePdfa(file, '1b');
    expect(report.verdict).toBe('non-compliant');
    const rule = report.rules.find((r) => r.id === '6.1.2-1');
    expect(rule?.status).toBe('failed');
    expect(rule?.failedCount).toBe(1);
    expect(rule?.failures[0]?.object).toBe('document');
    expect(report.counts.failed).toBe(report.rules.filter((r) => r.status === 'failed').length);
    expect(report.attribution).toBe(PROFILE_ATTRIBUTION);
  });

  it('a clean minimal file fails no COS rule, and every rule is checked', async () => {
    const file = written(clean(), 'clean.pdf');
    for (const level of ['1b', '2b', '3b'] as const) {
      const report = await validatePdfa(file, level);
      expect(report.complete).toBe(true);
      const cosRules = report.rules.filter((r) => COS_TYPES.includes(r.object));
      expect(cosRules.length).toBeGreaterThan(15);
      expect(cosRules.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.status} ${r.notCheckedReason ?? ''}`)).toEqual([]);
      // Every type the profiles have rules on is implemented now: nothing is not-checked for want of a model type.
      expect(report.rules.filter((r) => !IMPLEMENTED_TYPES.has(r.object)).map((r) => r.id)).toEqual([]);
      expect(report.rules.filter((r) => r.status === 'not-checked').map((r) => `${r.id}: ${r.notCheckedReason ?? ''}`)).toEqual([]);
      expect(report.counts.passed + report.counts.failed + report.counts.notChecked).toBe(report.rules.length);
    }
  });

  it('content-stream operands are COS objects: an integer beyond 2^31 in /Contents fails 6.1.12-1 there', async () => {
    const content = Buffer.from('BT /F1 12 Tf 3000000000 0 Td (x) Tj ET');
    const pdf = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>',
      streamBody(`/Length ${deflateSync(content).length} /Filter /FlateDecode`, deflateSync(content)),
    ]);
    const file = written(pdf.bytes, 'big-int.pdf');
    const report = await validatePdfa(file, '1b');
    const rule = report.rules.find((r) => r.id === '6.1.12-1');
    expect(rule?.status).toBe('failed');
    expect(rule?.failures[0]?.object).toBe('3 0 obj/Contents (content)[4]');
    expect(rule?.failures[0]?.message).toContain('3000000000');
  });

  it('keeps at most maxFailuresPerRule distinct failures, counting all', async () => {
    // 30 names of 128…157 bytes: 30 distinct messages ("Name length (128) exceeded 127"…).
    const names = Array.from({ length: 30 }, (_, i) => `/${'N'.repeat(128 + i)} 1`).join(' ');
    const file = written(buildPdf([...BASE_OBJECTS, `<< ${names} >>`]).bytes, 'long-names.pdf');
    const report = await validatePdfa(file, '1b', { maxFailuresPerRule: 10 });
    const rule = report.rules.find((r) => r.id === '6.1.12-4');
    expect(rule?.failedCount).toBe(30);
    expect(rule?.failures.length).toBe(10);
    expect(rule?.failures.map((f) => f.message)).toContain('Name length (128) exceeded 127');
    expect(rule?.failures.every((f) => f.count === 1)).toBe(true);
    expect(rule?.failures[0]?.object).toMatch(/^4 0 obj \(key N{40}…\)$/);
  });

  it('a value that passed a one-property rule is not evaluated again, and every failing object still counts (pass memo)', async () => {
    // The same short name 50 times passes 6.1.12-4; the same long name 3 times, between them, fails it 3 times;
    // the same big integer in the content and in a dictionary fails 6.1.12-1 on both, with their own paths.
    const long = `/${'L'.repeat(130)}`;
    const content = Buffer.from(`${'/S 1 '.repeat(25)}${long} 1 ${'/S 1 '.repeat(25)}3000000000 0 Td`);
    const pdf = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>',
      streamBody(`/Length ${content.length}`, content),
      `<< ${long} 3000000000 /A ${long} /B ${long} >>`,
    ]);
    const report = await validatePdfa(written(pdf.bytes, 'repeated-values.pdf'), '1b');
    const names = report.rules.find((r) => r.id === '6.1.12-4');
    expect(names?.failedCount).toBe(4); // object 5: its long key and two values; the content: one operand
    expect(names?.failures).toHaveLength(1);
    expect(names?.failures[0]?.count).toBe(4);
    const ints = report.rules.find((r) => r.id === '6.1.12-1');
    expect(ints?.failedCount).toBe(2);
    expect(ints?.failures[0]?.count).toBe(2);
    expect(ints?.failures[0]?.object).toBe(`5 0 obj/${long.slice(1)}`);
  });

  it('a COS limit reached: the report says why, and no rule that was not failed counts as passed', async () => {
    const file = written(buildPdf([...BASE_OBJECTS, `[${'1 '.repeat(500)}]`]).bytes, 'many-tokens.pdf');
    const report = await validatePdfa(file, '1b', { limits: { maxTokens: 100 } });
    expect(report.complete).toBe(false);
    expect(report.problems[0]).toMatch(/limits reached \(.*maxTokens/);
    expect(report.verdict).not.toBe('compliant');
    expect(report.counts.passed).toBe(0);
  });

  it('a deadline already past stops the walk: inconclusive, nothing passed', async () => {
    const file = written(buildPdf([...BASE_OBJECTS, `[${'1 '.repeat(2000)}]`]).bytes, 'deadline.pdf');
    const report = await validatePdfa(file, '1b', { deadline: Date.now() - 1 });
    expect(report.complete).toBe(false);
    expect(report.problems).toContain('the validation stopped at its deadline');
    expect(report.verdict).toBe('inconclusive');
    expect(report.counts.passed).toBe(0);
  });

  it('a cancelled signal rejects with PdfaValidateError cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await validatePdfa(clean(), '1b', { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfaValidateError);
    expect((error as PdfaValidateError).kind).toBe('cancelled');
  });
});
