/**
 * The veraPDF Cos* properties the PDF/A profiles' <test> expressions read, computed from their meaning
 * in ISO 19005 / ISO 32000-1 (README.md in this folder has the table). Property names are veraPDF's,
 * so the expression evaluator can look them up as they are; values are null where veraPDF's would be.
 */
import type { CosDocument } from './document.js';
import type { FilterStep } from './filters.js';
import type { HeaderFacts } from './header.js';
import { textString, isValidUtf8 } from './text.js';
import type { CosArray, CosDict, CosIndirect, CosName, CosString, CosStream, CosValue } from './types.js';
import type { XrefSection } from './xref.js';

/** The file identifier (trailer /ID, two strings) as one upper-case hex string; null when absent or not an array of strings. */
export function idString(doc: CosDocument, trailer: CosDict | null): string | null {
  const id = doc.resolve(trailer?.entries.get('ID'));
  if (id?.kind !== 'array' || id.items.length === 0) return null;
  let out = '';
  for (const item of id.items) {
    const s = doc.resolve(item);
    if (s?.kind !== 'string') return null;
    out += s.bytes.toString('hex').toUpperCase();
  }
  return out;
}

/** veraPDF's CosDocument: the header's facts as the header reader gives them, and the document's. */
export interface CosDocumentProperties extends Pick<HeaderFacts, 'header' | 'headerOffset' | 'headerByte1' | 'headerByte2' | 'headerByte3' | 'headerByte4'> {
  readonly isLinearized: boolean;
  readonly firstPageID: string | null;
  readonly lastID: string | null;
  readonly postEOFDataSize: number | null;
  readonly nrIndirects: number;
  readonly isOptionalContentPresent: boolean;
  readonly containsEmbeddedFiles: boolean;
  readonly Marked: boolean | null;
  readonly NeedsRendering: boolean;
  readonly Requirements: string | null;
}

export function cosDocumentProperties(doc: CosDocument): CosDocumentProperties {
  const h = doc.header;
  const catalog = doc.catalog;
  const names = doc.get(catalog ?? undefined, 'Names');
  const markInfo = doc.get(catalog ?? undefined, 'MarkInfo');
  const marked = doc.get(markInfo, 'Marked');
  const needsRendering = doc.get(catalog ?? undefined, 'NeedsRendering');
  const requirements = doc.get(catalog ?? undefined, 'Requirements');
  return {
    header: h.header,
    headerOffset: h.headerOffset,
    headerByte1: h.headerByte1,
    headerByte2: h.headerByte2,
    headerByte3: h.headerByte3,
    headerByte4: h.headerByte4,
    isLinearized: doc.isLinearized,
    firstPageID: idString(doc, doc.firstPageTrailer),
    lastID: idString(doc, doc.lastTrailer),
    postEOFDataSize: doc.eof.postEOFDataSize,
    nrIndirects: doc.nrIndirects,
    isOptionalContentPresent: catalog?.entries.has('OCProperties') ?? false,
    containsEmbeddedFiles: dictHas(doc, names, 'EmbeddedFiles'),
    Marked: marked?.kind === 'bool' ? marked.value : null,
    NeedsRendering: needsRendering?.kind === 'bool' && needsRendering.value,
    Requirements: requirements === undefined || requirements.kind === 'null' ? null : requirements.kind,
  };
}

function dictHas(doc: CosDocument, v: CosValue | undefined, key: string): boolean {
  const d = doc.resolve(v);
  const value = d?.kind === 'dict' ? doc.resolve(d.entries.get(key)) : undefined;
  return value !== undefined && value.kind !== 'null';
}

/** CosTrailer: the document's trailer (all sections' keys, newest winning). */
export function cosTrailerProperties(doc: CosDocument): { readonly isEncrypted: boolean } {
  const e = doc.trailer.entries.get('Encrypt');
  return { isEncrypted: e !== undefined && e.kind !== 'null' };
}

/** CosXRef: one cross-reference section (streams comply trivially: the rules are about table syntax). */
export function cosXRefProperties(section: XrefSection): { readonly subsectionHeaderSpaceSeparated: boolean; readonly xrefEOLMarkersComplyPDFA: boolean } {
  return { subsectionHeaderSpaceSeparated: section.subsectionHeaderSpaceSeparated, xrefEOLMarkersComplyPDFA: section.xrefEOLMarkersComplyPDFA };
}

/** CosIndirect: `n g obj` / `endobj` spacing; a compressed object has no such syntax and complies. */
export function cosIndirectProperties(obj: CosIndirect): { readonly spacingCompliesPDFA: boolean } {
  const s = obj.spacing;
  return { spacingCompliesPDFA: s === null || Object.values(s).every(Boolean) };
}

export interface CosStreamProperties {
  readonly Length: number | null;
  readonly realLength: number | null;
  readonly streamKeywordCRLFCompliant: boolean;
  readonly endstreamKeywordEOLCompliant: boolean;
  /** The /F, /FFilter, /FDecodeParms entries' kinds when present (external file streams), else null. */
  readonly F: string | null;
  readonly FFilter: string | null;
  readonly FDecodeParms: string | null;
}

export function cosStreamProperties(stream: CosStream): CosStreamProperties {
  const kindOf = (key: string): string | null => {
    const v = stream.dict.entries.get(key);
    return v === undefined || v.kind === 'null' ? null : v.kind;
  };
  return { ...stream.facts, F: kindOf('F'), FFilter: kindOf('FFilter'), FDecodeParms: kindOf('FDecodeParms') };
}

/** CosString: `value` is one char per byte, so `value.length()` is the byte length the limits are about. */
export function cosStringProperties(s: CosString): { readonly value: string; readonly isHex: boolean; readonly hexCount: number; readonly containsOnlyHex: boolean } {
  return { value: s.bytes.toString('latin1'), isHex: s.isHex, hexCount: s.hexCount, containsOnlyHex: s.containsOnlyHex };
}

export function cosNameProperties(n: CosName): { readonly internalRepresentation: string; readonly isValidUtf8: boolean } {
  return { internalRepresentation: n.value, isValidUtf8: isValidUtf8(n.value) };
}

export function cosSizeProperties(v: CosArray | CosDict): { readonly size: number } {
  return { size: v.kind === 'array' ? v.items.length : v.entries.size };
}

/** CosBBox: a rectangle array [llx lly urx ury]; null coordinates where an item is not a number. */
export function cosBBoxProperties(doc: CosDocument, arr: CosArray): { readonly left: number | null; readonly bottom: number | null; readonly right: number | null; readonly top: number | null } {
  const n = (i: number): number | null => {
    const v = doc.resolve(arr.items[i]);
    return v?.kind === 'int' || v?.kind === 'real' ? v.value : null;
  };
  return { left: n(0), bottom: n(1), right: n(2), top: n(3) };
}

/** CosLang: a /Lang text string decoded (PDFDocEncoding or UTF-16BE). */
export function cosLangProperties(s: CosString): { readonly unicodeValue: string } {
  return { unicodeValue: textString(s.bytes) };
}

/** CosFileSpecification: the file specification dictionary's keys. (isAssociatedFile needs the document's /AF arrays: PD level.) */
export function cosFileSpecificationProperties(
  doc: CosDocument,
  spec: CosDict,
): { readonly containsEF: boolean; readonly F: string | null; readonly UF: string | null; readonly AFRelationship: string | null } {
  const str = (key: string): string | null => {
    const v = doc.resolve(spec.entries.get(key));
    return v?.kind === 'string' ? textString(v.bytes) : null;
  };
  const rel = doc.resolve(spec.entries.get('AFRelationship'));
  return { containsEF: dictHas(doc, spec, 'EF'), F: str('F'), UF: str('UF'), AFRelationship: rel?.kind === 'name' ? rel.value : null };
}

/** CosFilter / CosIIFilter: the filter name as written, and for Crypt the /Name of its decode parameters (PDF/A-2/3 allow only Identity). */
export function cosFilterProperties(step: FilterStep): { readonly internalRepresentation: string; readonly decodeParms: string | null } {
  const name = step.parms?.entries.get('Name');
  return { internalRepresentation: step.name, decodeParms: name?.kind === 'name' ? name.value : null };
}
