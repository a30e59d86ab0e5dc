import { type CosDict, type CosDocument, type CosValue, dictOf, openCosDocument, textString } from '../../pdfa-validator/cos/index.js';
import { readXmp } from '../../pdf/xmp.js';
import { MAX_XMP_BYTES } from '../document/document-info.js';
import { parseDate } from '../document/pdf-values.js';
import { PdfLibError } from '../pdf-lib-error.js';
import { INFO_TEXT_ENTRIES } from './metadata.js';

/**
 * What a PDF/A conversion needs to know of a file (its claim, tags, document information, /Lang),
 * read with the validator's raw COS reader: it parses the cross-reference data and then only the few
 * objects asked for (trailer, catalog, Info, the XMP stream), where pdf-lib parses every object of
 * the file (~23 ms for 100 pages, on the core Ghostscript needs). Bounded by the COS reader's limits.
 */

/** The information entries of a document that have an XMP twin (§6.7.3 Table 1), and its creation date, as far as they can be read. */
export type SourceDescription = Partial<Record<(typeof INFO_TEXT_ENTRIES)[number][1], string>> & { created?: Date };

/** What the conversion needs to know about its input, from one reading of it. */
export interface PdfaInput {
  /** The PDF/A level its XMP claims (`pdfaid:part` and `conformance`), e.g. `2b`. */
  claimed: string | undefined;
  /** A structure tree and MarkInfo /Marked true: what `a` levels build on. */
  tagged: boolean;
  description: SourceDescription;
  /** The catalog's /Lang (Ghostscript's output does not keep it; auto-tagging writes it). */
  lang?: string;
}

/** The input's facts; a file the COS reader cannot read (too large, no catalog) is a PdfLibError 'unreadable', as pdf-lib's reading was. */
export async function inspectPdfaInput(path: string): Promise<PdfaInput> {
  let doc: CosDocument;
  try {
    doc = await openCosDocument(path);
  } catch (error) {
    throw new PdfLibError('unreadable', `The PDF cannot be read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const catalog = doc.catalog;
  if (catalog === null) throw new PdfLibError('unreadable', 'The PDF cannot be read: it has no document catalog.');
  const marked = doc.resolve(dictOf(doc.resolve(catalog.entries.get('MarkInfo')))?.entries.get('Marked'));
  const tagged = catalog.entries.get('StructTreeRoot')?.kind === 'ref' && marked?.kind === 'bool' && marked.value;
  const lang = text(doc, catalog.entries.get('Lang'), false);
  return { claimed: claimedLevel(doc, catalog), tagged, description: cosDescription(doc), ...(lang !== undefined ? { lang } : {}) };
}

/** The document information entries that have an XMP twin (blank ones left out) and the creation date. */
export function cosDescription(doc: CosDocument): SourceDescription {
  const info = dictOf(doc.resolve(doc.trailer.entries.get('Info')));
  if (!info) return {};
  const out: SourceDescription = {};
  for (const [key, field] of INFO_TEXT_ENTRIES) {
    const value = text(doc, info.entries.get(key), true);
    if (value !== undefined) out[field] = value;
  }
  const created = text(doc, info.entries.get('CreationDate'), true);
  const date = created === undefined ? undefined : parseDate(created);
  if (date !== undefined && date.getUTCFullYear() >= 1000 && date.getUTCFullYear() <= 9999) out.created = date;
  return out;
}

function claimedLevel(doc: CosDocument, catalog: CosDict): string | undefined {
  const metadata = doc.resolve(catalog.entries.get('Metadata'));
  if (metadata?.kind !== 'stream') return undefined;
  const decoded = doc.decodeStream(metadata);
  if (!decoded.ok || decoded.data.length > MAX_XMP_BYTES) return undefined;
  const facts = readXmp(Buffer.from(decoded.data));
  if (!/^[123]$/.test(facts.pdfaPart) || !/^[abuABU]$/.test(facts.pdfaConformance)) return undefined;
  return `${facts.pdfaPart}${facts.pdfaConformance.toLowerCase()}`;
}

/** A text string's value; `nonBlank`: undefined for one of white space only. */
function text(doc: CosDocument, value: CosValue | undefined, nonBlank: boolean): string | undefined {
  const resolved = doc.resolve(value);
  if (resolved?.kind !== 'string') return undefined;
  const decoded = textString(resolved.bytes);
  return nonBlank && decoded.trim() === '' ? undefined : decoded;
}
