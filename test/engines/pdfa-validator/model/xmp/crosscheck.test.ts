/**
 * The properties read from the main packet against independent readers: qpdf extracts the catalog's
 * /Metadata stream (decoded), Python's xml.etree (a namespace-aware XML parser) lists the top-level
 * properties of each rdf:Description as {namespace URI}name; our XMPProperty objects must name the same.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openCosDocument } from '../../../../../src/engines/pdfa-validator/cos/index.js';
import { xmpObjects } from '../../../../../src/engines/pdfa-validator/model/xmp/index.js';
import { CORPUS, corpusFiles } from '../../cos/cos-rules.js';

function qpdfObject(file: string, object: string, data = false): Buffer {
  const r = spawnSync('qpdf', [`--show-object=${object}`, ...(data ? ['--filtered-stream-data'] : []), file], { maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0 && r.status !== 3) throw new Error(`qpdf --show-object=${object} ${file}: ${r.stderr.toString()}`);
  return r.stdout;
}

/** The catalog's metadata as qpdf decodes it; null when the catalog has none. */
function qpdfCatalogMetadata(file: string): Buffer | null {
  const root = /\/Root (\d+) \d+ R/.exec(qpdfObject(file, 'trailer').toString('latin1'));
  if (root === null) return null;
  const meta = /\/Metadata (\d+) \d+ R/.exec(qpdfObject(file, root[1] as string).toString('latin1'));
  return meta === null ? null : qpdfObject(file, meta[1] as string, true);
}

const PYTHON_PROPERTIES = String.raw`
import sys, json, xml.etree.ElementTree as ET
RDF = '{http://www.w3.org/1999/02/22-rdf-syntax-ns#}'
XML = '{http://www.w3.org/XML/1998/namespace}'
try:
    root = ET.fromstring(sys.stdin.buffer.read())
except ET.ParseError:
    print('null')
    sys.exit(0)
out = []
for rdf in root.iter(RDF + 'RDF'):
    for d in rdf.findall(RDF + 'Description'):
        out += [k for k in d.attrib if k.startswith('{') and not k.startswith(RDF) and not k.startswith(XML)]
        out += [c.tag for c in d if not c.tag.startswith(RDF)]
print(json.dumps(sorted(out)))
`;

/** Null when Python's parser refuses the packet (not well-formed, or an encoding it cannot read). */
function pythonProperties(xmp: Buffer): string[] | null {
  const r = spawnSync('python3', ['-c', PYTHON_PROPERTIES], { input: xmp, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`python3: ${r.stderr}`);
  return JSON.parse(r.stdout) as string[] | null;
}

describe('main-packet properties vs qpdf + Python xml.etree', () => {
  it('name the same properties on a spread of the metadata folders', async () => {
    const files = [...corpusFiles(`${CORPUS}/PDF_A-1b/6.7 Metadata`), ...corpusFiles(`${CORPUS}/PDF_A-2b/6.6 Metadata`)].filter((_, i) => i % 20 === 0);
    let compared = 0;
    const refused: string[] = [];
    for (const f of files) {
      const xmp = qpdfCatalogMetadata(f.file);
      if (xmp === null) continue;
      const theirs = pythonProperties(xmp);
      if (theirs === null) {
        refused.push(f.name);
        continue;
      }
      const doc = await openCosDocument(f.file);
      const objects = xmpObjects(doc);
      // The main packet's properties come first (xmpObjects emits it before the other packets).
      const firstOther = objects.findIndex((o, i) => i > 0 && o.types[0] === 'PDMetadata');
      const ours = objects
        .slice(0, firstOther < 0 ? undefined : firstOther)
        .filter((o) => o.types[0] === 'XMPProperty')
        .map((o) => `{${String(o.get('namespaceURI'))}}${String(o.get('name'))}`)
        .sort();
      expect(ours, f.name).toEqual(theirs);
      compared++;
    }
    expect(compared).toBeGreaterThan(40);
    expect(refused.length, refused.join(', ')).toBeLessThan(5);
  }, 120_000);
});
