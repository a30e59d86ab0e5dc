import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPdfLibFault, loadPdf, PdfLibError, savePdf } from '../../../src/engines/pdf-edit/pdf-lib-io.js';
import { decodeBounded } from '../../../src/engines/pdf-edit/stream-bounds.js';
import { scanContent } from '../../../src/engines/pdf-edit/content/content-scanner.js';
import { parseContent } from '../../../src/engines/pdf-edit/redaction/content-lexer.js';
import { StreamDecodeError } from '../../../src/engines/pdf-edit/redaction/stream-codec.js';
import { buildPdf, documentObjects, kidsCyclePdf, lyingCountPdf, pageText, parentCyclePdf, sharedNodePdf, stream } from '../../helpers/hostile-pdf.js';
import { rejectionOf } from '../../helpers/rejection.js';

/**
 * Issue 11: pdf-lib (the in-memory editor of the toolbox) on documents whose structures lie, loop or
 * expand without bound. Saved results are checked with qpdf and poppler.
 */
let dir: string;
const write = (name: string, bytes: Buffer): string => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
};
const pdfinfoPages = (pdf: string): number => Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))![1]);
const declared = (pdf: string): number => Number(execFileSync('qpdf', ['--show-npages', pdf], { encoding: 'utf8' }).trim());
/** qpdf's page count (exit 3, warnings about the repairs it made, is fine). */
const qpdfPages = (pdf: string): number =>
  spawnSync('qpdf', ['--show-pages', pdf], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((l) => l.startsWith('page ')).length;

async function unreadable(file: string): Promise<string> {
  const error = await rejectionOf(loadPdf(file), PdfLibError);
  expect(error.kind).toBe('unreadable');
  return error.message;
}

/** Loads, adds a page at the end (pdf-lib inserts by the counts), saves; returns the saved file. */
async function editAndSave(input: string, name: string): Promise<string> {
  const document = await loadPdf(input);
  document.addPage([200, 200]);
  const output = path.join(dir, name);
  await savePdf(document, output);
  return output;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pdf-edit-hostile-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('page trees', () => {
  it('refuses a /Kids loop and a shared node as qpdf does, instead of recursing without end', async () => {
    expect(await unreadable(write('kids-cycle.pdf', kidsCyclePdf()))).toMatch(/page tree loops/);
    expect(await unreadable(write('shared-node.pdf', sharedNodePdf()))).toMatch(/page tree loops/);
  });

  it('ends a /Parent loop: the root gets no parent, edits and saves work', async () => {
    const output = await editAndSave(write('parent-cycle.pdf', parentCyclePdf()), 'parent-cycle-out.pdf');
    expect(pdfinfoPages(output)).toBe(2);
    expect(execFileSync('qpdf', ['--check', output], { encoding: 'utf8' })).toMatch(/No syntax or stream encoding errors/);
  });

  it('puts lying counts right, on the root and on intermediate nodes, so that page insertion works', async () => {
    const objects = documentObjects({ pages: 3, pagesDictionary: '<</Type/Pages/Kids[4 0 R 14 0 R]/Count -5>>' });
    objects[4] = '<</Type/Pages/Parent 2 0 R/Kids[10 0 R 12 0 R]/Count 2147483647>>';
    objects[10] = String(objects[10]).replace('/Parent 2 0 R', '/Parent 4 0 R');
    objects[12] = String(objects[12]).replace('/Parent 2 0 R', '/Parent 4 0 R');
    const input = write('lying-nested.pdf', buildPdf(objects));
    const document = await loadPdf(input);
    expect(document.getPageCount()).toBe(3);
    document.insertPage(2, [100, 100]);
    const output = path.join(dir, 'lying-nested-out.pdf');
    await savePdf(document, output);
    expect(declared(output)).toBe(4);
    expect(pdfinfoPages(output)).toBe(4);
    expect(execFileSync('pdftotext', ['-f', '4', '-l', '4', output, '-'], { encoding: 'utf8' })).toContain(pageText(3));
  });

  it('sees the pages qpdf sees: an untyped page counts, a page listed twice becomes a copy', async () => {
    const untyped = documentObjects({ pages: 3 });
    untyped[14] = String(untyped[14]).replace('/Type/Page', '');
    const untypedFile = write('untyped.pdf', buildPdf(untyped));
    expect((await loadPdf(untypedFile)).getPageCount()).toBe(qpdfPages(untypedFile));

    const twice = write('twice.pdf', buildPdf(documentObjects({ pagesDictionary: '<</Type/Pages/Kids[10 0 R 10 0 R]/Count 2>>' })));
    const document = await loadPdf(twice);
    expect(document.getPageCount()).toBe(2);
    const [first, second] = document.getPages();
    expect(first!.ref).not.toBe(second!.ref);
    first!.node.set(PDFName.of('Rotate'), document.context.obj(90));
    expect(second!.getRotation().angle).toBe(0);
  });

  it('refuses a kid that is not a dictionary and a tree deeper than 256 levels', async () => {
    expect(await unreadable(write('null-kid.pdf', buildPdf(documentObjects({ pagesDictionary: '<</Type/Pages/Kids[10 0 R 99 0 R]/Count 2>>' }))))).toMatch(/neither a page nor a node/);
    const objects: Record<number, string | Buffer> = documentObjects({ pagesDictionary: '<</Type/Pages/Kids[1000 0 R]/Count 1>>' });
    const depth = 300;
    for (let i = 0; i < depth; i++) objects[1000 + i] = `<</Type/Pages/Parent ${i === 0 ? 2 : 999 + i} 0 R/Kids[${i === depth - 1 ? 10 : 1001 + i} 0 R]/Count 1>>`;
    objects[10] = String(objects[10]).replace('/Parent 2 0 R', `/Parent ${999 + depth} 0 R`);
    expect(await unreadable(write('deep.pdf', buildPdf(objects)))).toMatch(/levels deep/);
  });

  it('leaves a sound document as it was', async () => {
    const input = write('sound.pdf', lyingCountPdf(2, 2));
    const document = await loadPdf(input);
    const before = await PDFDocument.load(fs.readFileSync(input), { updateMetadata: false });
    for (const [ref, object] of before.context.enumerateIndirectObjects()) expect(document.context.lookup(ref)?.toString(), ref.toString()).toBe(object.toString());
  });
});

describe('form field trees', () => {
  /** A field tree where each level lists the next level's node twice: 2^depth fields for pdf-lib without the check. */
  function diamondForm(depth: number): Buffer {
    const objects = documentObjects({ catalogExtra: '/AcroForm<</Fields[200 0 R]>>' });
    for (let i = 0; i < depth; i++) objects[200 + i] = `<</T(f${i})${i > 0 ? `/Parent ${199 + i} 0 R` : ''}/Kids[${201 + i} 0 R ${201 + i} 0 R]>>`;
    objects[200 + depth] = `<</T(leaf)/FT/Tx/Parent ${199 + depth} 0 R/V(x)>>`;
    return buildPdf(objects);
  }

  it('cuts a field listed twice, so pdf-lib lists each field once', async () => {
    const document = await loadPdf(write('diamond-form.pdf', diamondForm(40)));
    const fields = document.getForm().getFields();
    expect(fields.map((f) => f.getName())).toEqual([Array.from({ length: 40 }, (_, i) => `f${i}`).join('.') + '.leaf']);
  });

  it('ends /Kids and /Parent loops in the field tree', async () => {
    const objects = documentObjects({ catalogExtra: '/AcroForm<</Fields[200 0 R]>>' });
    objects[200] = '<</T(a)/Parent 201 0 R/Kids[201 0 R]>>';
    objects[201] = '<</T(b)/FT/Tx/Parent 200 0 R/Kids[200 0 R]/V(x)>>';
    const document = await loadPdf(write('loop-form.pdf', buildPdf(objects)));
    expect(
      document
        .getForm()
        .getFields()
        .map((f) => f.getName()),
    ).toEqual(['a.b']);
  });
});

describe('decompression bombs', () => {
  it('refuses object streams that expand beyond the budget before pdf-lib expands them', async () => {
    const payload = Buffer.concat([Buffer.from('21 0 <</Bomb true>>'), Buffer.alloc(200 * 1024 * 1024, 0x20)]);
    const objects = documentObjects();
    objects[20] = stream('/Type/ObjStm/N 1/First 5/Filter/FlateDecode', deflateSync(payload, { level: 9 }));
    const input = write('objstm-bomb.pdf', buildPdf(objects));
    expect(fs.statSync(input).size).toBeLessThan(300 * 1024);
    expect(await unreadable(input)).toMatch(/object streams expand to more than \d+ MB/);
  });

  it('reads real object streams', async () => {
    const plain = write('plain.pdf', lyingCountPdf(3, 3));
    execFileSync('qpdf', ['--object-streams=generate', plain, path.join(dir, 'objstm.pdf')]);
    expect((await loadPdf(path.join(dir, 'objstm.pdf'))).getPageCount()).toBe(3);
  });

  it('decodes streams only up to a bound', async () => {
    const document = await PDFDocument.create();
    const big = document.context.flateStream(new Uint8Array(3 * 1024 * 1024));
    const raw = (
      await PDFDocument.load(
        await (async () => {
          const ref = document.context.register(big);
          document.catalog.set(PDFName.of('Big'), ref);
          return document.save({ useObjectStreams: false });
        })(),
      )
    ).catalog.lookup(PDFName.of('Big'));
    expect(() => decodeBounded(raw as never, 1024 * 1024)).toThrow(/expands to more than 1 MB/);
    expect(decodeBounded(raw as never, 4 * 1024 * 1024)).toHaveLength(3 * 1024 * 1024);
  });
});

describe('isPdfLibFault', () => {
  it('says which errors pdf-lib raised while reading the document', async () => {
    const objects = documentObjects();
    objects[10] = String(objects[10]).replace('/MediaBox', '/Rotate <5A>/MediaBox');
    const document = await loadPdf(write('hex-rotate.pdf', buildPdf(objects)));
    const wrongType = (() => {
      try {
        document.getPage(0).getRotation();
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(wrongType).toBeInstanceOf(Error);
    expect(isPdfLibFault(wrongType)).toBe(true);
    const outOfRange = (() => {
      try {
        document.getPage(3);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(isPdfLibFault(outOfRange)).toBe(true);
    // Our own mistakes stay server errors.
    expect(isPdfLibFault(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isPdfLibFault('text')).toBe(false);
  });
});

describe('content streams that nest without end', () => {
  // A million brackets: one container object each (and, for the redaction lexer, a search of the open
  // containers per closer) would take the heap or quadratic time.
  const brackets = Buffer.from(`BT ${'['.repeat(1_000_000)}${']'.repeat(1_000_000)} TJ ET q 1 0 0 1 0 0 cm Q`);

  it('the redaction lexer refuses them as undecodable content (the page is then rasterised or left alone)', () => {
    expect(() => parseContent(brackets)).toThrow(StreamDecodeError);
    expect(parseContent(Buffer.from('BT [(a) 10 (b)] TJ ET /P <</MCID 0 /A [1 [2]]>> BDC EMC')).ops.map((op) => op.op)).toEqual(['BT', 'TJ', 'ET', 'BDC', 'EMC']);
  });

  it('the content scanner ends its scan there', () => {
    expect(scanContent(brackets).map((op) => op.operator)).toEqual(['BT']);
    expect(scanContent(Buffer.from('q /Im0 Do Q')).map((op) => op.operator)).toEqual(['q', 'Do', 'Q']);
  });
});
