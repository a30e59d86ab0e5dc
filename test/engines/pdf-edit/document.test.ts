import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addXmpProperties,
  DocumentEditError,
  editAttachments,
  editContext,
  editDescription,
  editPortfolio,
  extractAttachments,
  extractPortfolio,
  parsePacket,
  parseXmpJson,
  replaceXmp,
  type EditContext,
  type NewAttachment,
} from '../../../src/engines/pdf-edit/document/index.js';
import { catalogOf, infoField, labelledPdf, objectDict, pdfinfo, qpdfCheck, qpdfObjects, scratchDir, textOf } from '../../helpers/pdf-tools.js';

/**
 * The pdf-edit document editors on real files (qpdf JSON in, `qpdf --update-from-json` out): the
 * information dictionary, XMP, attachments and portfolios. Results are read with pdfinfo (also
 * -meta), pdfdetach, qpdf and Python's XML parser.
 */
const scratch = scratchDir('pdf-edit-document');
let plain: string;
let counter = 0;
const out = () => scratch.file(`out-${counter++}.pdf`);
const context = (): EditContext => editContext({ timeoutMs: 30_000, deadline: Date.now() + 60_000, scratch: (extension) => scratch.file(`scratch-${counter++}.${extension}`) });

/** A data file for an attachment, with the fields the editors need. */
function attachment(name: string, content: string, extra: Partial<NewAttachment> = {}): NewAttachment {
  const dataFile = scratch.file(`data-${counter++}`);
  writeFileSync(dataFile, content);
  return { name, dataFile, size: Buffer.byteLength(content), md5: createHash('md5').update(content).digest(), mimeType: 'text/plain', created: new Date('2024-05-01T10:00:00Z'), ...extra };
}

/** pdfdetach -list: the names of the document's embedded files. */
function detachList(file: string): string[] {
  return execFileSync('pdfdetach', ['-list', '-enc', 'UTF-8', file], { encoding: 'utf8' })
    .split('\n')
    .slice(1)
    .map((line) => /^\d+: (.*)$/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

beforeAll(async () => {
  plain = await labelledPdf(scratch.file('plain.pdf'), [
    [595, 842],
    [595, 842],
  ]);
});
afterAll(() => scratch.remove());

describe('editDescription', () => {
  it('writes and removes information entries as pdfinfo reads them, with the modification date', async () => {
    const output = out();
    await editDescription(
      plain,
      output,
      {
        set: new Map([
          ['Title', { kind: 'text', text: 'Jahresbericht – Grüße ✓' }],
          ['Author', { kind: 'text', text: 'Quire' }],
          ['Keywords', { kind: 'text', text: 'a, b' }],
          ['Company', { kind: 'text', text: 'ACME' }],
        ]),
        remove: new Set(['Producer']),
        modified: new Date('2024-06-01T12:00:00Z'),
      },
      context(),
    );
    qpdfCheck(output);
    const info = pdfinfo(output, '-enc', 'UTF-8', '-isodates');
    expect(infoField(info, 'Title')).toBe('Jahresbericht – Grüße ✓');
    expect(infoField(info, 'Author')).toBe('Quire');
    expect(infoField(info, 'Keywords')).toBe('a, b');
    expect(infoField(info, 'Producer')).toBeUndefined();
    expect(infoField(info, 'ModDate')).toBe('2024-06-01T12:00:00Z');
    const objects = qpdfObjects(output);
    const trailer = objects['trailer']!.value as Record<string, unknown>;
    expect(objectDict(objects, trailer['/Info'] as string)!['/Company']).toBe('u:ACME');
    // The page content is untouched.
    expect(textOf(output, 2, 2)).toContain('PAGE-2');
  });
});

describe('XMP', () => {
  it('replaces the packet with one the caller gives, as pdfinfo -meta shows it', async () => {
    const packet = parsePacket(
      Buffer.from(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
          '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:format>application/pdf</dc:format></rdf:Description></rdf:RDF></x:xmpmeta>',
      ),
    );
    const output = out();
    await replaceXmp(plain, output, packet, context());
    qpdfCheck(output);
    const meta = pdfinfo(output, '-meta');
    expect(meta).toContain('<dc:format>application/pdf</dc:format>');
    // Wrapped as a packet (<?xpacket begin … end?>).
    expect(meta).toMatch(/<\?xpacket begin=/);
  });

  it('adds typed custom properties with their PDF/A extension schema', async () => {
    const properties = parseXmpJson(
      JSON.stringify([
        { propertyName: 'invoice', propertyType: 'Text', propertyCategory: 'external', propertyDescription: 'the number', propertyValue: 'RE-1 <&>' },
        { propertyName: 'copies', propertyType: 'Integer', propertyCategory: 'internal', propertyDescription: '', propertyValue: 3 },
      ]),
    );
    const output = out();
    await addXmpProperties(plain, output, { uri: 'http://example.org/quire/1.0/', prefix: 'qt', name: 'Quire test' }, properties, context());
    qpdfCheck(output);
    const xml = pdfinfo(output, '-meta').trim();
    const script = `import sys, json, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.read())
ns = 'http://example.org/quire/1.0/'
found = {}
for e in root.iter():
    for k, v in e.attrib.items():
        if k.startswith('{' + ns + '}'): found[k[len(ns) + 2:]] = v
    if e.tag.startswith('{' + ns + '}'): found[e.tag[len(ns) + 2:]] = e.text
print(json.dumps(found))`;
    const values = JSON.parse(execFileSync('python3', ['-c', script], { input: xml.slice(xml.indexOf('<x:xmpmeta'), xml.lastIndexOf('</x:xmpmeta>') + 12), encoding: 'utf8' })) as Record<
      string,
      string
    >;
    expect(values).toEqual({ invoice: 'RE-1 <&>', copies: '3' });
    expect(xml).toContain('http://www.aiim.org/pdfa/ns/extension/');
  });

  it('refuses a packet that is not well-formed XML and a property list that is no JSON array', () => {
    expect(() => parsePacket(Buffer.from('<x:xmpmeta><unclosed></x:xmpmeta>'))).toThrow(DocumentEditError);
    expect(() => parseXmpJson('{"not": "an array"}')).toThrow(/array/);
  });
});

describe('attachments', () => {
  it('adds document- and page-level attachments that pdfdetach lists and saves byte for byte', async () => {
    const output = out();
    await editAttachments(
      plain,
      output,
      {
        remove: [],
        add: [
          attachment('notes.txt', 'hello attachments'),
          attachment('Grüße.txt', 'page level ✓', {
            annotation: { page: 2, x: 50, y: 50, width: 20, height: 20, fromTop: false, icon: 'Paperclip', color: [1, 0, 0], opacity: 1, locked: false, popupText: 'see file', author: 'Quire' },
          }),
        ],
        now: new Date('2024-05-02T00:00:00Z'),
      },
      context(),
    );
    qpdfCheck(output);
    expect(detachList(output).sort()).toEqual(['Grüße.txt', 'notes.txt']);
    const saved = scratch.file('saved');
    mkdirSync(saved);
    execFileSync('pdfdetach', ['-saveall', '-o', saved, output]);
    expect(readFileSync(`${saved}/notes.txt`, 'utf8')).toBe('hello attachments');
    // Page level: a file attachment annotation on page 2.
    const objects = qpdfObjects(output);
    const annots = Object.values(objects).filter((o) => (o.value as Record<string, unknown> | undefined)?.['/Subtype'] === '/FileAttachment');
    expect(annots).toHaveLength(1);

    const extracted = await extractAttachments(output, [{ scope: 'all', matches: () => true }], scratch.file('x-'), context());
    expect(extracted.map((e) => [e.name, e.page, readFileSync(e.file, 'utf8')]).sort()).toEqual([
      ['Grüße.txt', 2, 'page level ✓'],
      ['notes.txt', undefined, 'hello attachments'],
    ]);

    const removed = out();
    const outcome = await editAttachments(output, removed, { remove: [{ scope: 'document', matches: (name) => name.endsWith('.txt') }], add: [], now: new Date() }, context());
    expect(outcome.removed).toBe(1);
    expect(detachList(removed)).toEqual(['Grüße.txt']);
    qpdfCheck(removed);
  });
});

describe('portfolio', () => {
  it('builds a portfolio with folders and files that pdfdetach and qpdf read, and extracts a folder', async () => {
    const output = out();
    await editPortfolio(
      plain,
      output,
      {
        addFolders: [['reports'], ['reports', '2024']],
        addFiles: [
          { ...attachment('a.txt', 'AAA'), path: ['reports'] },
          { ...attachment('b.txt', 'BBB'), path: ['reports', '2024'] },
          { ...attachment('top.txt', 'TOP'), path: [] },
        ],
        initial: { path: [], fileName: 'top.txt' },
        now: new Date('2024-05-03T00:00:00Z'),
      },
      context(),
    );
    qpdfCheck(output);
    // Sorting needs a portfolio: refused on a plain document, applied to the new one.
    const sortBy = [{ key: 'size' as const, ascending: false, displayName: 'Size' }];
    await expect(editPortfolio(plain, out(), { sort: sortBy, now: new Date() }, context())).rejects.toThrow(/not a portfolio/);
    const sorted = out();
    await editPortfolio(output, sorted, { sort: sortBy, now: new Date() }, context());
    qpdfCheck(sorted);
    const sortedObjects = qpdfObjects(sorted);
    const sort = objectDict(sortedObjects, objectDict(sortedObjects, catalogOf(sortedObjects)['/Collection'])!['/Sort']);
    expect(sort).toMatchObject({ '/A': false });
    expect(detachList(output).sort()).toEqual(['a.txt', 'b.txt', 'top.txt']);
    const collection = objectDict(qpdfObjects(output), catalogOf(qpdfObjects(output))['/Collection']);
    expect(collection).toBeDefined();
    expect(collection!['/Folders']).toBeDefined();
    expect(collection!['/D']).toBeDefined();

    const extracted = await extractPortfolio(output, [{ path: ['reports'], fileName: '' }], scratch.file('p-'), context());
    expect(extracted.map((e) => [e.path.join('/'), e.name, readFileSync(e.file, 'utf8')]).sort()).toEqual([
      ['reports', 'a.txt', 'AAA'],
      ['reports/2024', 'b.txt', 'BBB'],
    ]);
  });
});
