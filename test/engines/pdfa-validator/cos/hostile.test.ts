/**
 * Hostile and broken input: the COS layer must never throw on bad bytes, never hang, and never allocate
 * what a file merely declares. Each case breaks one thing of an otherwise valid file (the valid base is
 * checked with qpdf) and checks the facts still read, and the limit reached is reported.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { CosError, cosDocumentProperties, openCosBytes, openCosDocument } from '../../../../src/engines/pdfa-validator/cos/index.js';
import { BASE_OBJECTS, buildPdf, streamBody } from './build-pdf.js';
import { CORPUS, corpusFiles } from './cos-rules.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'cos-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function qpdfCheckOk(bytes: Buffer): boolean {
  const file = path.join(dir, `check-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, bytes);
  return spawnSync('qpdf', ['--check', file], { encoding: 'utf8' }).status === 0;
}

describe('COS layer on hostile input', () => {
  it('the test builder writes valid files (qpdf --check), read back with the expected facts', () => {
    const pdf = buildPdf([...BASE_OBJECTS, streamBody('/Length 5', Buffer.from('hello'))]);
    expect(qpdfCheckOk(pdf.bytes)).toBe(true);
    const doc = openCosBytes(pdf.bytes);
    expect(doc.reconstructed).toBe(false);
    expect(doc.nrIndirects).toBe(4);
    const s = doc.getObject(4)?.value;
    expect(s?.kind).toBe('stream');
    if (s?.kind !== 'stream') return;
    expect(s.facts).toEqual({ Length: 5, realLength: 5, streamKeywordCRLFCompliant: true, endstreamKeywordEOLCompliant: true });
    expect(cosDocumentProperties(doc).postEOFDataSize).toBe(0);
  });

  it('a truncated file opens at every cut, keeps its header facts and rebuilds what is left', async () => {
    const file = corpusFiles(`${CORPUS}/PDF_A-1b/6.1 File structure/6.1.2 File header`).find((f) => f.pass)?.file as string;
    const bytes = readFileSync(file);
    const header = openCosBytes(bytes).header.header;
    for (let k = 1; k < 20; k++) {
      const cut = bytes.subarray(0, Math.floor((bytes.length * k) / 20));
      const doc = openCosBytes(cut);
      expect(doc.header.header).toBe(header);
      expect(doc.eof.postEOFDataSize).toBeNull(); // no %%EOF left
      for (const o of doc.indirectObjects()) expect(o.num).toBeGreaterThan(0);
    }
    const half = openCosBytes(bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect(half.reconstructed).toBe(true);
    expect(half.nrIndirects).toBeGreaterThan(0);
    // And from a path, with the same result.
    const p = path.join(dir, 'truncated.pdf');
    writeFileSync(p, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect((await openCosDocument(p)).nrIndirects).toBe(half.nrIndirects);
  });

  it('a /Prev cycle (two sections naming each other, and one naming itself) is cut', () => {
    const pdf = buildPdf(BASE_OBJECTS);
    // Append an update section whose /Prev is the original table, and make the original's /Prev point back at it.
    const original = pdf.bytes.toString('latin1');
    const updateOffset = pdf.bytes.length;
    const update = `xref\n0 1\n0000000000 65535 f\r\ntrailer\n<< /Size 4 /Root 1 0 R /Prev ${pdf.xrefOffset} >>\nstartxref\n${updateOffset}\n%%EOF\n`;
    const looped = Buffer.from(original.replace('/Root 1 0 R /ID', `/Root 1 0 R /Prev ${String(updateOffset).padStart(6, '0')} /ID`) + update, 'latin1');
    // The replacement moved the update's offset: recompute it from the bytes.
    const realUpdate = looped.lastIndexOf('xref\n0 1');
    const fixed = Buffer.from(
      looped
        .toString('latin1')
        .replace(`/Prev ${String(updateOffset).padStart(6, '0')}`, `/Prev ${String(realUpdate).padStart(6, '0')}`)
        .replace(`startxref\n${updateOffset}`, `startxref\n${realUpdate}`),
      'latin1',
    );
    const doc = openCosBytes(fixed);
    expect(doc.xrefSections).toHaveLength(2);
    expect(doc.problems.some((p) => p.includes('cycle'))).toBe(true);
    expect(doc.catalog?.entries.get('Type')).toEqual({ kind: 'name', value: 'Catalog' });

    const self = Buffer.from(original.replace('/Root 1 0 R /ID', `/Root 1 0 R /Prev ${pdf.xrefOffset} /ID`), 'latin1');
    const selfDoc = openCosBytes(self);
    expect(selfDoc.xrefSections).toHaveLength(1);
    expect(selfDoc.catalog).not.toBeNull();
  });

  it('junk before the header: the header offset is reported and xref offsets count from the header', () => {
    const pdf = buildPdf(BASE_OBJECTS);
    const doc = openCosBytes(Buffer.concat([Buffer.from('SomeData\n'), pdf.bytes]));
    expect(doc.header.headerOffset).toBe(9);
    expect(doc.reconstructed).toBe(false);
    expect(doc.getObject(3)?.offset).toBe((pdf.offsets[3] as number) + 9);
    expect(doc.catalog).not.toBeNull();
  });

  it("a /Prev to nowhere keeps the newest section and finds the lost sections' objects by scanning", () => {
    const pdf = buildPdf([...BASE_OBJECTS, '(only in the first revision)']);
    // An update that redefines object 3 and lists nothing else, with a /Prev that points at no xref.
    const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] >>';
    const objOffset = pdf.bytes.length;
    const obj = `3 0 obj\n${page}\nendobj\n`;
    const xrefOffset = objOffset + obj.length;
    const update = `${obj}xref\n0 1\n0000000000 65535 f\r\n3 1\n${String(objOffset).padStart(10, '0')} 00000 n\r\ntrailer\n<< /Size 5 /Root 1 0 R /Prev 17 >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
    const doc = openCosBytes(Buffer.concat([pdf.bytes, Buffer.from(update, 'latin1')]));
    expect(doc.reconstructed).toBe(false);
    expect(doc.xrefSections).toHaveLength(1);
    expect(doc.getObject(3)?.offset).toBe(objOffset); // the update's object, not the scan's older one
    const lost = doc.getObject(4)?.value;
    expect(lost?.kind === 'string' && lost.bytes.toString()).toBe('only in the first revision');
    expect(doc.nrIndirects).toBe(4);
  });

  it('a hybrid file: objects only its /XRefStm stream lists are found', () => {
    const header = '4 0 ';
    const osData = Buffer.from(`${header}(compressed four)`, 'latin1');
    const base = buildPdf([...BASE_OBJECTS, '(placeholder)', streamBody(`/Type /ObjStm /N 1 /First ${header.length} /Length ${osData.length}`, osData)]);
    const o = base.offsets;
    const stmOffset = base.xrefOffset;
    const data = Buffer.from([2, 0, 0, 0, 5, 0]); // object 4: type 2 in stream 5, index 0
    const xrefStm = Buffer.concat([
      Buffer.from(`6 0 obj\n<< /Type /XRef /Size 7 /Index [4 1] /W [1 4 1] /Length ${data.length} >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream\nendobj\n', 'latin1'),
    ]);
    const tableOffset = stmOffset + xrefStm.length;
    const rows = [1, 2, 3, 5].map((n) => `${n} 1\n${String(o[n]).padStart(10, '0')} 00000 n\r\n`).join('');
    const table = `xref\n0 1\n0000000000 65535 f\r\n${rows}6 1\n${String(stmOffset).padStart(10, '0')} 00000 n\r\ntrailer\n<< /Size 7 /Root 1 0 R /XRefStm ${stmOffset} >>\nstartxref\n${tableOffset}\n%%EOF\n`;
    const bytes = Buffer.concat([base.bytes.subarray(0, stmOffset), xrefStm, Buffer.from(table, 'latin1')]);
    const file = path.join(dir, 'hybrid.pdf');
    writeFileSync(file, bytes);
    expect(spawnSync('qpdf', ['--show-object=4', file], { encoding: 'utf8' }).stdout.trim()).toBe('(compressed four)');
    const doc = openCosBytes(bytes);
    expect(doc.reconstructed).toBe(false);
    expect(doc.xrefSections.map((s) => s.kind)).toEqual(['table', 'stream']);
    const four = doc.getObject(4)?.value;
    expect(four?.kind === 'string' && four.bytes.toString()).toBe('compressed four');
    expect(doc.firstPageTrailer?.entries.has('XRefStm')).toBe(true);
  });

  it('deeply nested arrays and dictionaries stop at maxDepth without recursion, and later objects still read', () => {
    const depth = 200_000;
    const pdf = buildPdf([...BASE_OBJECTS, `${'['.repeat(depth)}${']'.repeat(depth)}`, `${'<< /A '.repeat(depth)}1${' >>'.repeat(depth)}`, '(after)']);
    const doc = openCosBytes(pdf.bytes);
    expect(doc.getObject(4)?.value.kind).toBe('array');
    expect(doc.getObject(5)?.value.kind).toBe('dict');
    expect(doc.limitsHit.has('maxDepth')).toBe(true);
    const after = doc.getObject(6)?.value;
    expect(after?.kind === 'string' && after.bytes.toString()).toBe('after');
  });

  it('a huge declared /Length (and a /Length that refers to itself) is not trusted', () => {
    const data = Buffer.from('0123456789');
    const pdf = buildPdf([...BASE_OBJECTS, streamBody('/Length 99999999999', data), streamBody('/Length 5 0 R', data)]);
    const doc = openCosBytes(pdf.bytes);
    const huge = doc.getObject(4)?.value;
    const self = doc.getObject(5)?.value;
    if (huge?.kind !== 'stream' || self?.kind !== 'stream') throw new Error('streams expected');
    expect(huge.facts.Length).toBe(99999999999);
    expect(huge.facts.realLength).toBe(10);
    expect(doc.decodeStream(huge)).toEqual({ ok: true, data });
    expect(self.facts.Length).toBeNull();
    expect(self.facts.realLength).toBe(10);
  });

  it('a decompression bomb stops at the stream cap, and many small bombs at the document cap', () => {
    const bomb = deflateSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    expect(bomb.length).toBeLessThan(200_000);
    const pdf = buildPdf([...BASE_OBJECTS, ...Array.from({ length: 6 }, () => streamBody(`/Length ${bomb.length} /Filter /FlateDecode`, bomb))]);
    const one = openCosBytes(pdf.bytes, { maxDecodedStreamBytes: 1024 * 1024 });
    const s = one.getObject(4)?.value;
    if (s?.kind !== 'stream') throw new Error('stream expected');
    expect(one.decodeStream(s)).toMatchObject({ ok: false, reason: 'tooLarge' });

    const many = openCosBytes(pdf.bytes, { maxDecodedStreamBytes: 64 * 1024 * 1024, maxTotalDecodedBytes: 150 * 1024 * 1024 });
    const results = [4, 5, 6, 7, 8, 9].map((n) => {
      const v = many.getObject(n)?.value;
      return v?.kind === 'stream' ? many.decodeStream(v).ok : null;
    });
    expect(results).toEqual([true, true, false, false, false, false]);
    expect(many.limitsHit.has('maxTotalDecodedBytes')).toBe(true);
  });

  it('an xref stream and an object stream with absurd declared counts read only the entries really there', () => {
    // The same file with honest counts is read by qpdf: the construction is right.
    const honest = xrefStreamPdf('/N 2', '/Size 8 /Index [0 8]');
    const file = path.join(dir, 'xrefstream.pdf');
    writeFileSync(file, honest);
    expect(spawnSync('qpdf', ['--show-object=5', file], { encoding: 'utf8' }).stdout.trim()).toBe('(five)');
    for (const bytes of [honest, xrefStreamPdf('/N 1000000000', '/Size 1000000000 /Index [0 1000000000]')]) {
      const doc = openCosBytes(bytes);
      expect(doc.reconstructed).toBe(false);
      expect(doc.xrefSections[0]?.kind).toBe('stream');
      expect(doc.xrefEntries.size).toBe(8);
      expect(doc.getObject(4)?.value).toEqual({ kind: 'int', value: 11 });
      expect(doc.getObject(4)?.objectStream).toBe(6);
      const five = doc.getObject(5)?.value;
      expect(five?.kind === 'string' && five.bytes.toString()).toBe('five');
    }
  });

  it('garbage, empty and header-only input open with null facts instead of throwing', () => {
    let seed = 42;
    const random = Buffer.alloc(1024 * 1024, 0).map(() => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed & 0xff;
    });
    for (const bytes of [
      Buffer.alloc(0),
      Buffer.from('%PDF-1.4'),
      random,
      Buffer.from('1 0 obj << /Length 1 0 R >> stream\nxx'),
      Buffer.from('xref\n0 99999999999\ntrailer << /Prev 0 >>\nstartxref\n0\n%%EOF'),
    ]) {
      const doc = openCosBytes(bytes);
      const props = cosDocumentProperties(doc);
      expect(props.nrIndirects).toBeGreaterThanOrEqual(0);
      for (const o of doc.indirectObjects()) expect(o).toBeDefined();
    }
  });

  it('the work budget and the object cap end reading and say so', () => {
    const pdf = buildPdf([...BASE_OBJECTS, `[${'1 '.repeat(100_000)}]`]);
    const tight = openCosBytes(pdf.bytes, { maxTokens: 1000 });
    tight.getObject(4);
    expect(tight.limitsHit.has('maxTokens')).toBe(true);
    const few = openCosBytes(pdf.bytes, { maxObjects: 2 });
    expect(few.limitsHit.has('maxObjects')).toBe(true);
  });

  it('a file above maxFileBytes is refused before it is read', async () => {
    const file = path.join(dir, 'big.pdf');
    writeFileSync(file, Buffer.alloc(4096));
    await expect(openCosDocument(file, { maxFileBytes: 1024 })).rejects.toMatchObject({ kind: 'fileTooLarge' });
    expect(() => openCosBytes(Buffer.alloc(4096), { maxFileBytes: 1024 })).toThrow(CosError);
    await expect(openCosDocument(path.join(dir, 'missing.pdf'))).rejects.toMatchObject({ kind: 'fileUnreadable' });
  });
});

/** Objects 4 and 5 compressed in object stream 6, an xref stream (7) with W [1 4 1]; the counts are the caller's. */
function xrefStreamPdf(objStmCount: string, xrefCounts: string): Buffer {
  const header = '4 0 5 2 ';
  const osData = Buffer.from(`${header}11 (five)`, 'latin1');
  const objStm = streamBody(`/Type /ObjStm ${objStmCount} /First ${header.length} /Length ${osData.length}`, osData);
  const base = buildPdf([...BASE_OBJECTS, '(placeholder 4)', '(placeholder 5)', objStm]);
  const o = base.offsets;
  const entries = [
    [0, 0, 0],
    [1, o[1], 0],
    [1, o[2], 0],
    [1, o[3], 0],
    [2, 6, 0],
    [2, 6, 1],
    [1, o[6], 0],
    [1, base.xrefOffset, 0],
  ] as Array<[number, number, number]>;
  const data = Buffer.concat(entries.map(([t, a, b]) => Buffer.from([t, (a >>> 24) & 0xff, (a >>> 16) & 0xff, (a >>> 8) & 0xff, a & 0xff, b])));
  return Buffer.concat([
    base.bytes.subarray(0, base.xrefOffset),
    Buffer.from(`7 0 obj\n<< /Type /XRef ${xrefCounts} /W [1 4 1] /Root 1 0 R /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from(`\nendstream\nendobj\nstartxref\n${base.xrefOffset}\n%%EOF\n`, 'latin1'),
  ]);
}
