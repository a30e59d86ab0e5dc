import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asText, type QValue } from '../../../src/engines/pdf/qpdf-json.js';
import { QpdfRunner } from '../../../src/engines/pdf/qpdf.js';
import { readSignableDocument } from '../../../src/engines/signature/document.js';
import { labelledPdf, pageRefs, scratchDir } from '../../helpers/pdf-tools.js';

/**
 * The signature engine's in-process reader (engines/signature/cos-objects.ts) against qpdf: where it
 * reads a file, it must see what the qpdf path sees (qpdf's own JSON is the reference); where the file
 * is irregular, it must leave it to qpdf.
 */

const qpdf = new QpdfRunner({ qpdfPath: 'qpdf', timeoutMs: 30_000 });
const scratch = scratchDir('sign-cos');
afterAll(() => scratch.remove());
const call = () => ({ deadline: Date.now() + 30_000 });
const HOSTILE = 'test/fixtures/pdf/hostile';
const CORPUS = '/work/shared/pdfa/corpus';

/** qpdf writes a text string as "u:…", the in-process reader as "b:hex": both compare as their text. */
function normalised(value: QValue): unknown {
  if (typeof value === 'string' && (value.startsWith('u:') || value.startsWith('b:'))) return `text:${asText(value)}`;
  if (Array.isArray(value)) return value.map(normalised);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, normalised(v)]),
    );
  return value;
}

type Read = Awaited<ReturnType<typeof readSignableDocument>>;
function facts(doc: Read): unknown {
  return normalised({
    pages: doc.pageRefs,
    trailer: doc.trailer,
    catalog: doc.catalog,
    acroForm: { ...doc.acroForm.dict, ref: doc.acroForm.ref ?? null },
    fields: [...doc.fieldNames].sort(),
    certified: doc.certifiedLevel ?? null,
    version: doc.pdfVersion,
    xref: [doc.xrefKind, doc.startxref, doc.size],
  } as unknown as QValue);
}

async function both(file: string): Promise<{ inProcess: Read | Error; qpdf: Read | Error }> {
  const read = (limit?: number) => readSignableDocument(qpdf, file, call(), limit).catch((error: unknown) => error as Error);
  return { inProcess: await read(), qpdf: await read(0) };
}

describe('in-process reading of a document to sign', () => {
  it('reads a small clean PDF (object and xref streams) in process, as qpdf reads it', async () => {
    const file = await labelledPdf(scratch.file('three.pdf'), [
      [595, 842],
      [842, 595],
      [300, 300],
    ]);
    const { inProcess, qpdf: byQpdf } = await both(file);
    if (inProcess instanceof Error || byQpdf instanceof Error) throw inProcess instanceof Error ? inProcess : byQpdf;
    expect(inProcess.reader).toBe('cos');
    expect(byQpdf.reader).toBe('qpdf');
    expect(facts(inProcess)).toEqual(facts(byQpdf));
    // The pages as an independent reader lists them (qpdf --json pages of the test helper).
    expect(inProcess.pageRefs).toEqual(pageRefs(file));
    expect(inProcess.damaged).toBe(false);
  });

  it('leaves irregular page trees and broken cross-reference data to qpdf', async () => {
    for (const name of ['kids-cycle.pdf', 'parent-cycle.pdf', 'page-without-type.pdf', 'kids-same-page-10000.pdf', 'shared-node.pdf']) {
      const doc = await readSignableDocument(qpdf, path.join(HOSTILE, name), call()).catch((error: unknown) => error as Error);
      if (!(doc instanceof Error)) expect(doc.reader, name).toBe('qpdf');
    }
    // One object's xref offset points 7 bytes too far: the in-process reader notes it, qpdf repairs it (a damaged file).
    const good = await labelledPdf(scratch.file('good.pdf'));
    const table = scratch.file('table.pdf');
    execFileSync('qpdf', ['--object-streams=disable', good, table]);
    const bytes = readFileSync(table, 'latin1');
    const at = bytes.lastIndexOf('\nxref\n') + 1;
    const entries = bytes.slice(at).split('\n');
    const index = entries.findIndex((line, i) => i > 2 && /^\d{10} 00000 n/.test(line));
    entries[index] = `${String(Number(entries[index]!.slice(0, 10)) + 7).padStart(10, '0')}${entries[index]!.slice(10)}`;
    const broken = scratch.file('broken.pdf');
    writeFileSync(broken, bytes.slice(0, at) + entries.join('\n'), 'latin1');
    const doc = await readSignableDocument(qpdf, broken, call());
    expect(doc.reader).toBe('qpdf');
    expect(doc.damaged).toBe(true);
  });

  it('agrees with qpdf on every hostile fixture it reads in process', async () => {
    let inProcessCount = 0;
    for (const name of readdirSync(HOSTILE).filter((n) => n.endsWith('.pdf'))) {
      const { inProcess, qpdf: byQpdf } = await both(path.join(HOSTILE, name));
      if (inProcess instanceof Error || inProcess.reader !== 'cos' || byQpdf instanceof Error) continue;
      inProcessCount++;
      expect(facts(inProcess), name).toEqual(facts(byQpdf));
    }
    expect(inProcessCount).toBeGreaterThan(0);
  });

  it.skipIf(!existsSync(CORPUS))('agrees with qpdf on a sample of the veraPDF corpus', async () => {
    const files = execFileSync('find', [CORPUS, '-name', '*.pdf'], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
    const sample = files.filter((_f, i) => i % 12 === 0);
    let inProcessCount = 0;
    for (const file of sample) {
      const { inProcess, qpdf: byQpdf } = await both(file);
      if (inProcess instanceof Error || byQpdf instanceof Error) {
        expect(inProcess instanceof Error, file).toBe(byQpdf instanceof Error);
        continue;
      }
      if (inProcess.reader !== 'cos') continue;
      inProcessCount++;
      expect(facts(inProcess), file).toEqual(facts(byQpdf));
    }
    expect(inProcessCount).toBeGreaterThan(sample.length * 0.9);
  });
});
