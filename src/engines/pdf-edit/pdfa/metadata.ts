import { xmpDate } from '../document/pdf-values.js';
import { NS, XmpPacket } from '../document/xmp-packet.js';
import { addCustomProperties, type XmpNamespaceDefinition, type XmpPropertyDefinition } from '../document/xmp-schema.js';
import type { SourceDescription } from './cos-description.js';

/** The document information the fix-ups write, in the information dictionary and in XMP alike. */

/** The text entries of the information dictionary that have an XMP twin (§6.7.3 Table 1), with the description's field for each. */
export const INFO_TEXT_ENTRIES = [
  ['Title', 'title'],
  ['Author', 'author'],
  ['Subject', 'subject'],
  ['Keywords', 'keywords'],
  ['Creator', 'creator'],
  ['Producer', 'producer'],
] as const;

/** What the information dictionary and the XMP packet of a result say. */
export type Description = Omit<SourceDescription, 'created'> & { created: Date; modified: Date };

/** XMP properties beyond the standard ones, with the extension schema that describes them (PDF/A §6.6.2.3). */
export interface XmpExtension {
  namespace: XmpNamespaceDefinition;
  properties: XmpPropertyDefinition[];
}

/**
 * The description the result takes: the original's entries, where it lacks one the document's own
 * (Ghostscript's Producer, dates); the creation date kept, the modification date `now`.
 */
export function mergedDescription(own: SourceDescription, source: SourceDescription, now: Date): Description {
  return { ...own, ...definedOnly(source), created: source.created ?? own.created ?? now, modified: now };
}

export function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The XMP packet that says what the information dictionary says (ISO 19005-1 §6.7.3), with `pdfaid:part` and `conformance`. */
export function xmpPacket(d: Description, part: 1 | 2 | 3, conformance: 'A' | 'B' | 'U', extension?: XmpExtension): Buffer {
  const packet = XmpPacket.create();
  if (d.title !== undefined) packet.setProperty(NS.dc, 'dc', 'title', { kind: 'langAlt', text: d.title });
  if (d.author !== undefined) packet.setProperty(NS.dc, 'dc', 'creator', { kind: 'array', container: 'Seq', items: [{ kind: 'simple', text: d.author }] });
  if (d.subject !== undefined) packet.setProperty(NS.dc, 'dc', 'description', { kind: 'langAlt', text: d.subject });
  packet.setProperty(NS.dc, 'dc', 'format', { kind: 'simple', text: 'application/pdf' });
  if (d.keywords !== undefined) packet.setProperty(NS.pdf, 'pdf', 'Keywords', { kind: 'simple', text: d.keywords });
  if (d.producer !== undefined) packet.setProperty(NS.pdf, 'pdf', 'Producer', { kind: 'simple', text: d.producer });
  if (d.creator !== undefined) packet.setProperty(NS.xmp, 'xmp', 'CreatorTool', { kind: 'simple', text: d.creator });
  packet.setProperty(NS.xmp, 'xmp', 'CreateDate', { kind: 'simple', text: xmpDate(d.created) });
  packet.setProperty(NS.xmp, 'xmp', 'ModifyDate', { kind: 'simple', text: xmpDate(d.modified) });
  packet.setProperty(NS.xmp, 'xmp', 'MetadataDate', { kind: 'simple', text: xmpDate(d.modified) });
  packet.setProperty(NS.pdfaid, 'pdfaid', 'part', { kind: 'simple', text: String(part) });
  packet.setProperty(NS.pdfaid, 'pdfaid', 'conformance', { kind: 'simple', text: conformance });
  if (extension) addCustomProperties(packet, extension.namespace, extension.properties);
  return packet.toBuffer();
}
