import { writeFile } from 'node:fs/promises';
import { asDict, isRef, type QDict } from '../../pdf/qpdf-json.js';
import type { QpdfCall } from '../../pdf/qpdf.js';
import type { PdfStructureTool } from '../../contracts.js';
import { PdfObjects, type PdfUpdate } from './pdf-objects.js';
import { name, pdfDate, text, xmpDate } from './pdf-values.js';
import { NS, XmpPacket } from './xmp-packet.js';

/** A value of the document information dictionary. */
export type InfoValue = { kind: 'text'; text: string } | { kind: 'date'; date: Date } | { kind: 'name'; name: string };

export interface DescriptionEdit {
  /** Entries to write, by key without the slash ("Title", "Company"). */
  set: Map<string, InfoValue>;
  /** Entries to delete. */
  remove: Set<string>;
  /** The modification date written to /ModDate (unless `set` or `remove` names ModDate). */
  modified: Date;
}

export interface EditContext {
  qpdf: PdfStructureTool;
  call: QpdfCall;
  /** A fresh scratch path ending in `.<extension>`. */
  scratch: (extension: string) => string;
}

/** XMP packets larger than this are not read back for editing. */
export const MAX_XMP_BYTES = 16 * 1024 * 1024;

/**
 * Writes the document information dictionary (ISO 32000-1 §14.3.3) and, when the document has an
 * XMP packet that can be read, the corresponding XMP properties, so both say the same (PDF/A
 * requires it, and viewers differ in which one they show). A packet that is not well-formed XML is
 * left as it is rather than rewritten from guesses.
 */
export async function editDescription(input: string, output: string, edit: DescriptionEdit, context: EditContext): Promise<void> {
  const objects = await PdfObjects.open(context.qpdf, input, context.call, context.scratch);
  const update = objects.update();
  const set = new Map(edit.set);
  if (!set.has('ModDate') && !edit.remove.has('ModDate')) set.set('ModDate', { kind: 'date', date: edit.modified });

  const infoRef = objects.trailer['/Info'];
  // One qpdf run for both objects this edit reads.
  await objects.fetch([infoRef, objects.trailer['/Root']].filter((ref): ref is string => isRef(ref)));
  const info: QDict = { ...((await objects.dict(infoRef)) ?? {}) };
  for (const key of edit.remove) delete info[`/${key}`];
  for (const [key, value] of set) info[`/${key}`] = infoValue(value);
  if (isRef(infoRef)) update.set(infoRef, info);
  else update.setTrailer({ ...objects.trailer, '/Info': update.add(info) });

  const { dict: catalog } = await objects.catalog();
  await syncXmp(objects, update, catalog, set, edit.remove, context);
  await objects.commit(update, output);
}

function infoValue(value: InfoValue): string {
  switch (value.kind) {
    case 'text':
      return text(value.text);
    case 'date':
      return text(pdfDate(value.date));
    case 'name':
      return name(value.name);
  }
}

async function syncXmp(objects: PdfObjects, update: PdfUpdate, catalog: QDict, set: Map<string, InfoValue>, remove: Set<string>, context: EditContext): Promise<void> {
  const ref = catalog['/Metadata'];
  if (!isRef(ref)) return;
  const stream = await objects.streamBytes(ref, MAX_XMP_BYTES).catch(() => undefined);
  if (!stream) return;
  const packet = XmpPacket.tryParse(stream.data);
  if (!packet) return;
  for (const key of remove) applyToXmp(packet, key, undefined);
  for (const [key, value] of set) applyToXmp(packet, key, value);
  const file = context.scratch('xmp');
  await writeFile(file, packet.toBuffer());
  update.setStream(ref, { ...(asDict(stream.dict) ?? {}), '/Type': '/Metadata', '/Subtype': '/XML' }, file);
}

/** The XMP property of each information entry (ISO 16684-1 and the PDF/A mapping, ISO 19005-1 §6.7.3). */
function applyToXmp(packet: XmpPacket, key: string, value: InfoValue | undefined): void {
  const plain = value === undefined ? undefined : value.kind === 'text' ? value.text : value.kind === 'name' ? value.name : xmpDate(value.date);
  const simple = (ns: string, prefix: string, property: string): void => {
    if (plain === undefined) packet.removeProperty(ns, property);
    else packet.setProperty(ns, prefix, property, { kind: 'simple', text: plain });
  };
  switch (key) {
    case 'Title':
    case 'Subject': {
      const property = key === 'Title' ? 'title' : 'description';
      if (plain === undefined) packet.removeProperty(NS.dc, property);
      else packet.setProperty(NS.dc, 'dc', property, { kind: 'langAlt', text: plain });
      return;
    }
    case 'Author':
      if (plain === undefined) packet.removeProperty(NS.dc, 'creator');
      else packet.setProperty(NS.dc, 'dc', 'creator', { kind: 'array', container: 'Seq', items: [{ kind: 'simple', text: plain }] });
      return;
    case 'Keywords':
      simple(NS.pdf, 'pdf', 'Keywords');
      // dc:subject holds the keywords one by one; it is kept in step only where a packet already uses it.
      if (packet.propertyElements(NS.dc, 'subject').length > 0) {
        if (plain === undefined) packet.removeProperty(NS.dc, 'subject');
        else {
          const items = plain
            .split(/[,;]/)
            .map((k) => k.trim())
            .filter((k) => k !== '')
            .map((k) => ({ kind: 'simple' as const, text: k }));
          packet.setProperty(NS.dc, 'dc', 'subject', { kind: 'array', container: 'Bag', items });
        }
      }
      return;
    default:
      // The entries of SIMPLE_XMP. Custom entries have no predefined XMP property (adding one under a
      // private namespace would need a PDF/A extension schema), so they live in the information dictionary only.
      for (const [prefix, property] of SIMPLE_XMP.get(key) ?? []) simple(NS[prefix], prefix, property);
  }
}

/** The information entries whose XMP counterparts are simple values (ModDate has two). */
const SIMPLE_XMP = new Map<string, readonly (readonly ['xmp' | 'pdf', string])[]>([
  ['Creator', [['xmp', 'CreatorTool']]],
  ['Producer', [['pdf', 'Producer']]],
  ['Trapped', [['pdf', 'Trapped']]],
  ['CreationDate', [['xmp', 'CreateDate']]],
  [
    'ModDate',
    [
      ['xmp', 'ModifyDate'],
      ['xmp', 'MetadataDate'],
    ],
  ],
]);
