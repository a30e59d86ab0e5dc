import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptionParameters, permissionsFromBits } from '../../../src/engines/pdf/encryption.js';
import { labelRanges, openView, pageLabel, pdfDateToIso, splitKeywords, viewerPreferences } from '../../../src/engines/pdf/metadata.js';
import { PdfParser, PdfSyntaxIncomplete, isDict, isRef } from '../../../src/engines/pdf/pdf-syntax.js';
import { readEncryptDictionary } from '../../../src/engines/pdf/trailer-reader.js';
import { readXmp } from '../../../src/engines/pdf/xmp.js';
import { COMMITTED, makePlainPdf, makeTempDir, qpdf } from './fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = makeTempDir();
  await makePlainPdf(path.join(dir, 'plain.pdf'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('PDF object syntax', () => {
  it('parses dictionaries, arrays, strings, names and references', () => {
    const parser = new PdfParser(
      Buffer.from('7 0 obj\n<< /Filter /Adobe#2EPubSec /V 4 /Length 128 /Neg -3.5 /R [1 0 R (a\\(b\\)c\\101\\n) <48 65 6c6>] /D << /X true /Y null >> % comment\n>>\nendobj\n', 'latin1'),
    );
    expect(parser.readObjectHeader()).toEqual({ num: 7, gen: 0 });
    const value = parser.readValue();
    expect(isDict(value)).toBe(true);
    if (!isDict(value)) return;
    expect(value.entries.get('Filter')).toEqual({ kind: 'name', name: 'Adobe.PubSec' });
    expect(value.entries.get('Neg')).toBe(-3.5);
    const array = value.entries.get('R') as unknown[];
    expect(isRef(array[0] as never)).toBe(true);
    expect((array[1] as { bytes: Buffer }).bytes.toString('latin1')).toBe('a(b)cA\n');
    expect((array[2] as { bytes: Buffer }).bytes.toString('latin1')).toBe('Hel`');
    expect(parser.acceptKeyword('endobj')).toBe(true);
  });

  it('asks for more bytes when an object is cut off', () => {
    expect(() => new PdfParser(Buffer.from('<< /A (unfinished')).readValue()).toThrow(PdfSyntaxIncomplete);
    expect(() => new PdfParser(Buffer.from('<< /A [1 2')).readValue()).toThrow(PdfSyntaxIncomplete);
  });
});

describe('trailer reader', () => {
  it('reads the encryption dictionary through a classic xref table and through an xref stream', async () => {
    const plain = path.join(dir, 'plain.pdf');
    const table = path.join(dir, 'table.pdf');
    const stream = path.join(dir, 'stream.pdf');
    await qpdf('--object-streams=disable', '--encrypt', 'u', 'o', '128', '--use-aes=y', '--', plain, table);
    await qpdf('--object-streams=generate', '--encrypt', 'u', 'o', '256', '--', plain, stream);
    expect(fs.readFileSync(table, 'latin1')).toMatch(/\nxref\n/);
    expect(fs.readFileSync(stream, 'latin1')).toMatch(/\/Type \/XRef/);
    const fromTable = await readEncryptDictionary(table);
    const fromStream = await readEncryptDictionary(stream);
    expect(fromTable.status).toBe('found');
    expect(fromStream.status).toBe('found');
    if (fromTable.status !== 'found' || fromStream.status !== 'found') return;
    expect(encryptionParameters(fromTable.dict)).toMatchObject({ filter: 'Standard', v: 4, r: 4, keyAlgorithm: 'aes', keyLength: 128, permissionBits: -4 });
    expect(encryptionParameters(fromStream.dict)).toMatchObject({ filter: 'Standard', v: 5, r: 6, keyAlgorithm: 'aes', keyLength: 256 });
  });

  it('follows /Prev to an earlier section (incremental update)', async () => {
    const base = path.join(dir, 'base.pdf');
    await qpdf('--object-streams=disable', '--encrypt', '', 'o', '256', '--', path.join(dir, 'plain.pdf'), base);
    const bytes = fs.readFileSync(base);
    const previous = Number(/startxref\s+(\d+)/.exec(bytes.toString('latin1', bytes.lastIndexOf('startxref')))![1]);
    const trailer = /trailer\s*(<<[\s\S]*?>>)\s*startxref/.exec(bytes.toString('latin1'))![1]!;
    const encrypt = /\/Encrypt (\d+ \d+ R)/.exec(trailer)![1];
    // An update section that defines no objects but repeats /Encrypt and points back with /Prev.
    const xrefAt = bytes.length;
    const update = `xref\n0 0\ntrailer\n<< /Size 99 /Root 1 0 R /Encrypt ${encrypt} /Prev ${previous} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const updated = path.join(dir, 'updated.pdf');
    fs.writeFileSync(updated, Buffer.concat([bytes, Buffer.from(update, 'latin1')]));
    const found = await readEncryptDictionary(updated);
    expect(found.status).toBe('found');
  });

  it('reports an unencrypted file and says when it cannot find its way', async () => {
    expect((await readEncryptDictionary(path.join(dir, 'plain.pdf'))).status).toBe('none');
    const broken = path.join(dir, 'broken.pdf');
    fs.writeFileSync(broken, '%PDF-1.4\nnothing here\nstartxref\n5\n%%EOF\n');
    expect((await readEncryptDictionary(broken)).status).toBe('unreadable');
  });

  it('finds the /Recipients of the committed certificate-encrypted files', async () => {
    for (const [name, count] of [
      ['cert-encrypted.pdf', 1],
      ['cert-encrypted-rc4.pdf', 2],
    ] as const) {
      const found = await readEncryptDictionary(path.join(COMMITTED, name));
      expect(found.status).toBe('found');
      if (found.status === 'found') expect(encryptionParameters(found.dict).recipients).toHaveLength(count);
    }
  });
});

describe('permissions', () => {
  it('maps /P bits, revision 2 and 3+', () => {
    expect(permissionsFromBits(-4, 6)).toEqual({
      canPrint: true,
      canModify: true,
      canExtractContent: true,
      canModifyAnnotations: true,
      canFillInForm: true,
      canExtractForAccessibility: true,
      canAssemble: true,
      canPrintHighRes: true,
    });
    // qpdf --print=low: bit 3 set, bit 12 clear.
    expect(permissionsFromBits(-4 & ~(1 << 11), 6)).toMatchObject({ canPrint: true, canPrintHighRes: false });
    expect(permissionsFromBits(-64, 2)).toMatchObject({ canPrint: false, canModify: false, canExtractContent: false, canModifyAnnotations: false, canPrintHighRes: false });
  });
});

describe('metadata helpers', () => {
  it('converts PDF dates', () => {
    expect(pdfDateToIso("D:20240102030405+01'00'")).toBe('2024-01-02T03:04:05+01:00');
    expect(pdfDateToIso('D:20240102030405Z')).toBe('2024-01-02T03:04:05Z');
    expect(pdfDateToIso('D:2024')).toBe('2024-01-01T00:00:00');
    expect(pdfDateToIso("D:19991231235959-08'30")).toBe('1999-12-31T23:59:59-08:30');
    expect(pdfDateToIso('yesterday')).toBe('yesterday');
  });

  it('formats page labels in every style', () => {
    const ranges = labelRanges([
      { index: 0, label: { '/S': '/r' } },
      { index: 4, label: { '/S': '/D', '/St': 1 } },
      { index: 6, label: { '/S': '/A', '/P': 'u:App-' } },
      { index: 34, label: { '/P': 'u:Cover' } },
      { index: 35, label: { '/S': '/R', '/St': 1999 } },
    ]);
    expect([0, 3, 4, 5, 6, 7, 31, 32, 34, 35].map((i) => pageLabel(ranges, i))).toEqual(['i', 'iv', '1', '2', 'App-A', 'App-B', 'App-Z', 'App-AA', 'Cover', 'MCMXCIX']);
    expect(pageLabel([], 3)).toBe('');
  });

  it('reads open actions', () => {
    const pages = (ref: string): number | undefined => (({ '5 0 R': 3 }) as Record<string, number>)[ref];
    expect(openView(['5 0 R', '/Fit'], pages)).toEqual({ initialPage: 3, magnification: 'fitPage', magnificationZoom: 100 });
    expect(openView({ '/S': '/GoTo', '/D': ['5 0 R', '/FitH', 700] }, pages)).toMatchObject({ initialPage: 3, magnification: 'fitWidth' });
    expect(openView(['5 0 R', '/XYZ', null, null, 0.75], pages)).toMatchObject({ magnification: 'zoom', magnificationZoom: 75 });
    expect(openView(undefined, pages)).toEqual({ initialPage: 1, magnification: 'fitVisible', magnificationZoom: 100 });
  });

  it('maps viewer preferences', () => {
    const prefs = viewerPreferences({ '/ViewArea': '/MediaBox', '/PrintClip': '/TrimBox', '/NonFullScreenPageMode': '/UseThumbs', '/PickTrayByPDFSize': true, '/PrintPageRange': [0, 2, 4, 4] });
    expect(prefs).toMatchObject({ viewArea: 'mediaBox', printClip: 'trimBox', viewClip: 'cropBox', nonFullScreenPageMode: 'thumbnails', printTraySelection: 'byPDFSize', printPageRange: '1-3,5' });
  });

  it('splits keywords at commas and semicolons only', () => {
    expect(splitKeywords('a, b;c ,, ')).toEqual([{ keyword: 'a' }, { keyword: 'b' }, { keyword: 'c' }]);
    expect(splitKeywords('alpha beta')).toEqual([{ keyword: 'alpha beta' }]);
  });
});

describe('XMP', () => {
  it('reads pdfaid in attribute form under another prefix', () => {
    const packet = Buffer.from(
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:id="http://www.aiim.org/pdfa/ns/id/" id:part="3" id:conformance="U"/></rdf:RDF></x:xmpmeta>',
    );
    expect(readXmp(packet)).toEqual({ pdfaPart: '3', pdfaConformance: 'U', creatorTool: '' });
    expect(readXmp(Buffer.from('no xmp at all'))).toEqual({ pdfaPart: '', pdfaConformance: '', creatorTool: '' });
  });
});
