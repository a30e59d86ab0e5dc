import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { AFRelationship, PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFString } from '@cantoo/pdf-lib';
import { pdfDate } from '../document/pdf-values.js';
import { firstLine, loadPdf, PdfLibError } from '../pdf-lib-io.js';
import { checkObjectStreams } from '../stream-bounds.js';
import { cosFixupUpdate } from './cos-fixups.js';
import { type Description, definedOnly, INFO_TEXT_ENTRIES, mergedDescription, type XmpExtension, xmpPacket } from './metadata.js';
import type { SourceDescription } from './cos-description.js';
import { autoTag, type AutoTagOptions } from './tagging/auto-tag.js';
import { textString } from './text-string.js';
import { addMissingToUnicode } from './to-unicode.js';

export { inspectPdfaInput, type PdfaInput, type SourceDescription } from './cos-description.js';

/**
 * Our fix-ups of a PDF that is to claim PDF/A (ISO 19005 parts 1–3), done after Ghostscript's PDF/A
 * output (which discards a document information dictionary it cannot mirror in XMP, and writes
 * dates that differ between Info and XMP) or instead of it (tagged input, whose structure
 * Ghostscript would drop):
 *
 * - the document information dictionary from the original input (title, author, subject, keywords,
 *   creator), the creation date kept, the modification date now, and an XMP packet written from it,
 *   so both say the same (ISO 19005-1 §6.7.3), with `pdfaid:part`/`conformance`;
 * - an sRGB OutputIntent with a real ICC profile when the document has none;
 * - no encryption, no JavaScript, no actions PDF/A forbids (catalog, pages, annotations, form), no
 *   additional-actions dictionaries; annotations printable and visible (§6.5.3); no NeedAppearances;
 * - a trailer /ID.
 *
 * What the fix-ups cannot make compliant (fonts not embedded, transparency in part 1, embedded
 * files of the wrong kind) is left for the validator to find: the caller validates every result.
 */

export interface PdfaFixupOptions {
  part: 1 | 2 | 3;
  /** `B`, `U` or `A`, as pdfaid:conformance writes it. */
  conformance: 'A' | 'B' | 'U';
  /** The sRGB profile's bytes, for an OutputIntent the document lacks. */
  iccProfile: Buffer;
  /** The description the result takes (the input's before Ghostscript, see inspectPdfaInput); default: `input`'s own. */
  source?: SourceDescription;
  /** The modification date written (default: now). */
  now?: Date;
  /**
   * Append the fix-ups as an incremental update instead of rewriting the whole file: for input whose
   * syntax is already PDF/A's (Ghostscript's PDF/A output: header, classic cross-reference table,
   * trailer /ID). Saves serialising every object again (~40 ms per 100 pages) and leaves the
   * distilled objects byte for byte as Ghostscript wrote them. Not for arbitrary input (tagged input
   * on the a-level path): its syntax is what the full rewrite makes right.
   */
  incremental?: boolean;
  /** Associated files and XMP properties the result carries besides the fix-ups (ZUGFeRD, a linked report). */
  extras?: PdfaExtras;
  /** a levels on untagged input: build the structure tree from the page content (tagging/auto-tag.ts). */
  autoTag?: AutoTagOptions;
}

/** What a conversion adds to the PDF/A beyond the fix-ups: associated files (PDF/A-3) and XMP properties with their extension schema. */
export interface PdfaExtras {
  attachments?: AssociatedFile[];
  xmpExtension?: XmpExtension;
}

/** What the fix-ups changed, for the report and the log. */
export interface PdfaFixupResult {
  changes: string[];
}

/** Actions ISO 19005 forbids (part 1 §6.6.1; parts 2 and 3 §6.6.1 add the rest). */
const FORBIDDEN_ACTIONS = new Set(['Launch', 'Sound', 'Movie', 'ResetForm', 'ImportData', 'JavaScript', 'Hide', 'SetOCGState', 'Rendition', 'Trans', 'GoTo3DView']);

/** Annotation flags: Invisible 1, Hidden 2, Print 4, NoView 32, ToggleNoView 256. */
const FLAG_PRINT = 4;
const FLAGS_FORBIDDEN = 1 | 2 | 32 | 256;

export async function applyPdfaFixups(input: string, output: string, options: PdfaFixupOptions): Promise<PdfaFixupResult> {
  const changes: string[] = [];
  const original = options.incremental ? await readFile(input) : undefined;
  const now = options.now ?? new Date();
  // b levels on Ghostscript's output, the usual case: the few objects the fix-ups change, read and
  // written without pdf-lib (cos-fixups.ts); anything it does not handle goes the pdf-lib way below.
  if (original && options.conformance === 'B' && !options.autoTag && options.extras === undefined) {
    const update = cosFixupUpdate(original, { part: options.part, now, ...(options.source ? { source: options.source } : {}) });
    if (update) {
      await writeFile(output, Buffer.concat([original, update.bytes]));
      return { changes: update.changes };
    }
  }
  const document = original ? await loadForUpdate(original) : await loadPdf(input);
  const own = sourceDescription(document);
  const description = mergedDescription(own, options.source ?? own, now);

  const context = document.context;
  if (context.trailerInfo.Encrypt) {
    context.trailerInfo.Encrypt = undefined;
    changes.push('encryption removed');
  }
  if (!context.trailerInfo.ID) {
    const id = PDFHexString.of(randomBytes(16).toString('hex'));
    context.trailerInfo.ID = context.obj([id, id]);
    changes.push('trailer /ID added');
  }
  writeInfo(document, description);
  writeXmp(document, description, options);
  if (ensureOutputIntent(document, options.iccProfile)) changes.push('sRGB OutputIntent added');
  const removed = removeForbiddenActions(document);
  if (removed > 0) changes.push(`${removed} forbidden actions or JavaScript entries removed`);
  const flagged = fixAnnotationFlags(document);
  if (flagged > 0) changes.push(`${flagged} annotation flags made printable and visible`);
  for (const file of options.extras?.attachments ?? []) {
    await attachTo(document, file);
    changes.push(`${file.name} attached as an associated file (AFRelationship ${file.relationship ?? 'Supplement'})`);
  }
  if (options.conformance !== 'B') {
    // u and a levels: every font maps its codes to Unicode (throws MissingUnicodeError, naming the fonts, where none can be derived).
    const mapped = await addMissingToUnicode(document);
    if (mapped.length > 0) changes.push(`ToUnicode maps added to ${mapped.length} fonts: ${mapped.slice(0, 10).join(', ')}${mapped.length > 10 ? ', …' : ''}`);
  }
  if (options.autoTag) {
    // After the ToUnicode maps: the tagger reads the text through them (list markers, captions).
    const tagged = await autoTag(document, options.autoTag);
    changes.push(
      `auto-tagged (Lang ${tagged.lang}): ${tagged.elements} structure elements on ${tagged.pages} pages — ${tagged.headings} headings, ${tagged.paragraphs} paragraphs, ${tagged.lists} lists, ${tagged.tables} tables, ${tagged.figures} figures` +
        (tagged.genericAlt > 0 ? ` (${tagged.genericAlt} with the generic alternate text "Figure on page N": no caption found)` : ''),
    );
  }

  // Part 1 is PDF 1.4: no object or cross-reference streams (and an update keeps the original's classic table).
  if (original) {
    // The snapshot pdf-lib took at loading (forIncrementalUpdate) has tracked every change since.
    const snapshot = document.context.snapshot;
    if (!snapshot) throw new PdfLibError('unreadable', 'The PDF cannot be updated incrementally.');
    const update = await document.saveIncremental(snapshot, { useObjectStreams: false });
    await writeFile(output, Buffer.concat([original, original.at(-1) === 0x0a ? Buffer.alloc(0) : Buffer.from('\n'), update]));
  } else {
    await writeFile(output, await document.save({ useObjectStreams: false, updateFieldAppearances: false }));
  }
  return { changes };
}

/**
 * pdf-lib's document of a file the fix-ups append to: every change made after this is tracked and
 * written as the update (pdf-lib's snapshot). Object streams are bounded as for every pdf-lib read.
 */
async function loadForUpdate(bytes: Buffer): Promise<PDFDocument> {
  try {
    checkObjectStreams(bytes);
    return await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: false, forIncrementalUpdate: true });
  } catch (error) {
    throw new PdfLibError('unreadable', `The PDF cannot be read: ${firstLine(error)}`, { cause: error });
  }
}

export function sourceDescription(document: PDFDocument): SourceDescription {
  const safe = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch {
      return undefined;
    }
  };
  const textOf = (read: () => string | undefined): string | undefined => {
    const value = safe(read);
    return value === undefined || value.trim() === '' ? undefined : value;
  };
  return definedOnly({
    title: textOf(() => document.getTitle()),
    author: textOf(() => document.getAuthor()),
    subject: textOf(() => document.getSubject()),
    keywords: textOf(() => document.getKeywords()),
    creator: textOf(() => document.getCreator()),
    producer: textOf(() => document.getProducer()),
    created: validDate(safe(() => document.getCreationDate())),
  });
}

function validDate(date: Date | undefined): Date | undefined {
  return date !== undefined && Number.isFinite(date.getTime()) && date.getUTCFullYear() >= 1000 && date.getUTCFullYear() <= 9999 ? date : undefined;
}

/** A fresh information dictionary with exactly the entries the XMP packet mirrors. */
function writeInfo(document: PDFDocument, d: Description): void {
  const context = document.context;
  const info = context.obj({}) as PDFDict;
  for (const [key, field] of INFO_TEXT_ENTRIES) {
    const value = d[field];
    if (value !== undefined) info.set(PDFName.of(key), textString(value));
  }
  info.set(PDFName.of('CreationDate'), PDFString.of(pdfDate(d.created)));
  info.set(PDFName.of('ModDate'), PDFString.of(pdfDate(d.modified)));
  context.trailerInfo.Info = context.register(info);
}

/** The XMP packet written from the description, with the PDF/A identification; unfiltered (§6.7.2 for part 1). */
function writeXmp(document: PDFDocument, d: Description, options: PdfaFixupOptions): void {
  const bytes = xmpPacket(d, options.part, options.conformance, options.extras?.xmpExtension);
  const context = document.context;
  const stream = PDFRawStream.of(context.obj({ Type: 'Metadata', Subtype: 'XML', Length: bytes.length }) as PDFDict, bytes);
  document.catalog.set(PDFName.of('Metadata'), context.register(stream));
}

/** Adds an sRGB OutputIntent (GTS_PDFA1) unless one with a destination profile is there; true when added. */
function ensureOutputIntent(document: PDFDocument, icc: Buffer): boolean {
  const context = document.context;
  const intents = document.catalog.lookupMaybe(PDFName.of('OutputIntents'), PDFArray);
  if (intents) {
    for (let i = 0; i < intents.size(); i++) {
      const intent = intents.lookupMaybe(i, PDFDict);
      if (intent?.get(PDFName.of('S')) === PDFName.of('GTS_PDFA1') && intent.get(PDFName.of('DestOutputProfile')) !== undefined) return false;
    }
  }
  const profile = context.flateStream(icc, { N: 3 });
  const intent = context.obj({
    Type: 'OutputIntent',
    S: 'GTS_PDFA1',
    OutputConditionIdentifier: PDFString.of('sRGB IEC61966-2.1'),
    Info: PDFString.of('sRGB IEC61966-2.1'),
    RegistryName: PDFString.of('http://www.color.org'),
    DestOutputProfile: context.register(profile),
  });
  // One PDF/A intent: several with different profiles are forbidden (§6.2.3 of part 2).
  document.catalog.set(PDFName.of('OutputIntents'), context.obj([context.register(intent)]));
  return true;
}

/** Removes JavaScript, additional actions and forbidden actions everywhere they are reachable from the catalog, pages and annotations. */
function removeForbiddenActions(document: PDFDocument): number {
  let removed = 0;
  const catalog = document.catalog;
  const drop = (dict: PDFDict, key: string): void => {
    if (dict.has(PDFName.of(key))) {
      dict.delete(PDFName.of(key));
      removed++;
    }
  };
  drop(catalog, 'AA');
  const names = catalog.lookupMaybe(PDFName.of('Names'), PDFDict);
  if (names) drop(names, 'JavaScript');
  const open = catalog.lookup(PDFName.of('OpenAction'));
  if (open instanceof PDFDict && isForbiddenAction(open)) drop(catalog, 'OpenAction');
  const form = catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  if (form) drop(form, 'NeedAppearances');
  for (const page of document.getPages()) {
    drop(page.node, 'AA');
    for (const annotation of annotationsOf(page.node)) {
      drop(annotation, 'AA');
      const action = annotation.lookup(PDFName.of('A'));
      if (action instanceof PDFDict && isForbiddenAction(action)) drop(annotation, 'A');
    }
  }
  return removed;
}

/** An action (or a chain through /Next) of a type PDF/A forbids, or a Named action beyond the four allowed. */
function isForbiddenAction(action: PDFDict, depth = 0): boolean {
  const type = action.get(PDFName.of('S'));
  const name = type instanceof PDFName ? type.decodeText() : '';
  if (FORBIDDEN_ACTIONS.has(name)) return true;
  if (name === 'Named') {
    const n = action.get(PDFName.of('N'));
    if (!(n instanceof PDFName) || !['NextPage', 'PrevPage', 'FirstPage', 'LastPage'].includes(n.decodeText())) return true;
  }
  const next = action.lookup(PDFName.of('Next'));
  if (next instanceof PDFDict && depth < 32) return isForbiddenAction(next, depth + 1);
  return false;
}

function annotationsOf(page: PDFDict): PDFDict[] {
  const annots = page.lookup(PDFName.of('Annots'));
  if (!(annots instanceof PDFArray)) return [];
  const out: PDFDict[] = [];
  for (let i = 0; i < annots.size(); i++) {
    const annotation = annots.lookup(i);
    if (annotation instanceof PDFDict) out.push(annotation);
  }
  return out;
}

/** Every annotation but Popup printable, none hidden (ISO 19005-1 §6.5.3, same in parts 2 and 3). */
function fixAnnotationFlags(document: PDFDocument): number {
  let fixed = 0;
  for (const page of document.getPages()) {
    for (const annotation of annotationsOf(page.node)) {
      if (annotation.get(PDFName.of('Subtype')) === PDFName.of('Popup')) continue;
      const current = annotation.lookup(PDFName.of('F'));
      const flags = current instanceof PDFNumber ? current.asNumber() : 0;
      const wanted = (flags | FLAG_PRINT) & ~FLAGS_FORBIDDEN;
      if (wanted !== flags || !(current instanceof PDFNumber)) {
        annotation.set(PDFName.of('F'), PDFNumber.of(wanted));
        fixed++;
      }
    }
  }
  return fixed;
}

/** Reads the ICC profile once per path (a few KB; the file does not change while the server runs). */
const profiles = new Map<string, Promise<Buffer>>();
export function readIccProfile(path: string): Promise<Buffer> {
  let profile = profiles.get(path);
  if (!profile) {
    profile = readFile(path);
    profiles.set(path, profile);
    profile.catch(() => profiles.delete(path));
  }
  return profile;
}

/**
 * The input with the ToUnicode maps its fonts lack where they can be derived (to-unicode.ts), as
 * `output`: the fonts that got one (none: `output` is not written). Fonts where none can be derived
 * are left as they are here: Ghostscript's rewrite of them is looked at again after it.
 */
export async function withToUnicode(input: string, output: string): Promise<string[]> {
  const document = await loadPdf(input);
  const added = await addMissingToUnicode(document, { partial: true });
  if (added.length > 0) await writeFile(output, await document.save({ useObjectStreams: false, updateFieldAppearances: false }));
  return added;
}

export interface AssociatedFile {
  name: string;
  bytes: Buffer;
  mimeType: string;
  description: string;
  modified: Date;
  /** AFRelationship (default Supplement): ZUGFeRD's invoice is the `Alternative` of the visual one. */
  relationship?: 'Alternative' | 'Supplement' | 'Data' | 'Source';
}

/**
 * Attaches a file as an associated file of the document (PDF/A-3 §6.8: an embedded file with its MIME
 * type, modification date and AFRelationship `Supplement`, listed in the catalog's /AF array).
 */
export async function attachAssociatedFile(input: string, output: string, file: AssociatedFile): Promise<void> {
  const document = await loadPdf(input);
  await attachTo(document, file);
  await writeFile(output, await document.save({ useObjectStreams: false, updateFieldAppearances: false }));
}

async function attachTo(document: PDFDocument, file: AssociatedFile): Promise<void> {
  await document.attach(file.bytes, file.name, {
    mimeType: file.mimeType,
    description: file.description,
    creationDate: file.modified,
    modificationDate: file.modified,
    afRelationship: AFRelationship[file.relationship ?? 'Supplement'],
  });
}
