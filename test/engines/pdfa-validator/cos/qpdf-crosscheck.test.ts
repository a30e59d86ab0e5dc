/**
 * Object counts, offsets and trailer IDs against qpdf (an independent reader) on a spread of corpus files.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cosDocumentProperties, openCosDocument } from '../../../../src/engines/pdfa-validator/cos/index.js';
import { CORPUS, corpusFiles } from './cos-rules.js';

/** qpdf --show-xref: object number → 'offset' for uncompressed, 'stream:index' for compressed. */
function qpdfXref(file: string): Map<number, string> {
  // Exit 3 is "succeeded with warnings" (e.g. a /Size that is not highest number + 1): the listing is complete.
  const r = spawnSync('qpdf', ['--show-xref', file], { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 3) throw new Error(`qpdf --show-xref ${file}: ${r.stderr}`);
  const out = r.stdout;
  const map = new Map<number, string>();
  for (const line of out.split('\n')) {
    const u = /^(\d+)\/\d+: uncompressed; offset = (\d+)/.exec(line);
    const c = /^(\d+)\/\d+: compressed; stream = (\d+), index = (\d+)/.exec(line);
    if (u) map.set(Number(u[1]), u[2] as string);
    else if (c) map.set(Number(c[1]), `${c[2]}:${c[3]}`);
  }
  return map;
}

function qpdfTrailerId(file: string): string | null {
  const json = JSON.parse(spawnSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout) as {
    qpdf: [unknown, { trailer?: { value?: { '/ID'?: string[] } } }];
  };
  const id = json.qpdf[1].trailer?.value?.['/ID'];
  return id === undefined
    ? null
    : id
        .map((s) => (s.startsWith('b:') ? s.slice(2) : Buffer.from(s.slice(2), 'utf8').toString('hex')))
        .join('')
        .toUpperCase();
}

describe('COS layer vs qpdf', () => {
  const all = ['PDF_A-1b', 'PDF_A-2b', 'PDF_A-2a', 'PDF_A-3b'].flatMap((f) => corpusFiles(`${CORPUS}/${f}`));
  // Every 40th file: ~35 files from all clause folders, object streams and xref streams included.
  // Plus the first files written with object streams, so compressed objects are compared too.
  const withObjStm = all.filter((f) => readFileSync(f.file).includes('/ObjStm')).slice(0, 8);
  const sample = [...all.filter((_, i) => i % 40 === 0), ...withObjStm];

  it('xref entries, object count and trailer ID agree with qpdf', async () => {
    let compressed = 0;
    for (const f of sample) {
      const doc = await openCosDocument(f.file);
      const q = qpdfXref(f.file);
      const ours = new Map<number, string>();
      for (const [num, e] of doc.xrefEntries)
        if (e.type === 1 && num > 0) ours.set(num, String(e.offset));
        else if (e.type === 2) ours.set(num, `${e.stream}:${e.index}`);
      expect(ours, f.name).toEqual(q);
      expect(doc.nrIndirects, f.name).toBe(q.size);
      compressed += [...q.values()].filter((v) => v.includes(':')).length;
      if (!doc.isLinearized) expect(cosDocumentProperties(doc).lastID, f.name).toBe(qpdfTrailerId(f.file));
      // Every object qpdf lists is readable here.
      for (const num of q.keys()) expect(doc.getObject(num), `${f.name} object ${num}`).not.toBeNull();
    }
    expect(sample.length).toBeGreaterThan(30);
    // The sample must exercise object streams, or it proves nothing about them.
    expect(compressed).toBeGreaterThan(0);
  });

  it('LZW, Flate and predictor output equals qpdf --filtered-stream-data', async () => {
    const files = corpusFiles(`${CORPUS}/PDF_A-1b/6.1 File structure/6.1.10 Filters`).concat(sample.slice(0, 10), withObjStm);
    const filters = new Set<string>();
    for (const f of files) {
      const doc = await openCosDocument(f.file);
      for (const o of doc.indirectObjects()) {
        if (o.value.kind !== 'stream' || o.objectStream !== null) continue;
        const decoded = doc.decodeStream(o.value);
        if (!decoded.ok) continue;
        const q = spawnSync('qpdf', [`--show-object=${o.num}`, '--filtered-stream-data', f.file], { maxBuffer: 256 * 1024 * 1024 });
        if (q.status !== 0) continue; // qpdf cannot decode it either (image codecs it leaves alone, corrupt data)
        expect(decoded.data.equals(q.stdout), `${f.name} object ${o.num}`).toBe(true);
        const filter = doc.resolve(o.value.dict.entries.get('Filter'));
        if (filter?.kind === 'name') filters.add(filter.value);
        if (doc.resolve(o.value.dict.entries.get('DecodeParms')) !== undefined) filters.add('predictor');
      }
    }
    expect([...filters]).toEqual(expect.arrayContaining(['LZWDecode', 'FlateDecode', 'predictor']));
  });
});
