import { open, readFile } from 'node:fs/promises';
import type { PdfStructureTool } from '../contracts.js';
import type { QpdfCall } from '../pdf/qpdf.js';
import { asArray, asDict, asName, asNumber, asText, isRef, ObjectFetcher, parseJson, type QDict, type QValue } from '../pdf/qpdf-json.js';
import { SignatureEngineError } from './errors.js';

/**
 * What an incremental update needs to know of the document it extends: where its newest xref
 * section is and which kind it is (an update keeps the kind: a table after a table, a stream after a
 * stream), the trailer's /Root, /Info, /ID and /Size, the catalog, the AcroForm and its fields, the
 * pages, and the DocMDP level of a certification signature. A small file that reads cleanly is read
 * in process (cos-objects.ts); any other is read by qpdf (only the objects asked for: `--json-object`,
 * so a 100 MB file costs a few small reads). The tail is read here.
 */
export interface SignableDocument {
  file: string;
  /** Bytes of the file (the update starts after them). */
  size: number;
  /** Whether the file ends with an end-of-line (else the update starts with one). */
  endsWithEol: boolean;
  /** Offset of the newest xref section (the update's /Prev). */
  startxref: number;
  xrefKind: 'table' | 'stream';
  trailer: QDict;
  rootRef: string;
  catalog: QDict;
  /** The AcroForm as a reference (rewritten in place) or a direct dictionary of the catalog (moved into a new object). */
  acroForm: { ref?: string; dict: QDict };
  /** Every field name used at the top level and below (partial names joined with dots). */
  fieldNames: Set<string>;
  pageRefs: string[];
  /** P of an existing certification signature (DocMDP); undefined: not certified. */
  certifiedLevel: number | undefined;
  fetcher: ObjectFetcher;
  pdfVersion: string;
}

const TAIL_BYTES = 64 * 1024;
const MAX_FIELDS = 10_000;
/** Files up to this size are described by one qpdf run (its JSON is a fraction of the file). */
const WHOLE_FILE_BYTES = 2 * 1024 * 1024;

async function readTail(file: string): Promise<{ size: number; startxref: number; endsWithEol: boolean; xrefHead: string }> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const length = Math.min(size, TAIL_BYTES);
    const tail = Buffer.alloc(length);
    await handle.read(tail, 0, length, size - length);
    const text = tail.toString('latin1');
    const at = text.lastIndexOf('startxref');
    const match = at < 0 ? null : /^startxref\s+(\d+)/.exec(text.slice(at));
    if (!match) throw new SignatureEngineError('unreadable', 'the PDF has no startxref at its end: it cannot take an incremental update');
    const startxref = Number(match[1]);
    if (startxref >= size) throw new SignatureEngineError('unreadable', 'the PDF names an xref position past its end');
    const head = Buffer.alloc(Math.min(64, size - startxref));
    await handle.read(head, 0, head.length, startxref);
    const last = tail[tail.length - 1];
    return { size, startxref, endsWithEol: last === 0x0a || last === 0x0d, xrefHead: head.toString('latin1') };
  } finally {
    await handle.close();
  }
}

/**
 * Files up to this size are read in process (engines/signature/cos-objects.ts) when the COS reader
 * reads them cleanly: it spares the qpdf process that otherwise describes the file. The whole file
 * is in memory for the call, so the bound is also what one call may hold.
 */
export const IN_PROCESS_BYTES = 8 * 1024 * 1024;

/** Limits of the in-process read: a signable small file needs far less; reaching one sends the file to qpdf. */
export const IN_PROCESS_LIMITS = { maxFileBytes: IN_PROCESS_BYTES, maxObjects: 200_000, maxTokens: 5_000_000, maxDecodedStreamBytes: 32 * 1024 * 1024, maxTotalDecodedBytes: 64 * 1024 * 1024 };

/** Reads what `writeSignatureUpdate` needs. `call` carries the deadline and cancellation of the qpdf runs. */
export async function readSignableDocument(
  qpdf: PdfStructureTool,
  file: string,
  call: QpdfCall,
  /** Up to which size the in-process reader is tried (tests compare both readers with 0). */
  inProcessBytes = IN_PROCESS_BYTES,
): Promise<SignableDocument & { damaged: boolean; reader: 'cos' | 'qpdf' }> {
  const tail = await readTail(file);
  let xrefKind: 'table' | 'stream';
  if (/^\s*xref/.test(tail.xrefHead)) xrefKind = 'table';
  else if (/^\s*\d+\s+\d+\s+obj/.test(tail.xrefHead)) xrefKind = 'stream';
  else throw new SignatureEngineError('unreadable', "the PDF's startxref points to neither an xref table nor an xref stream");
  const base = { file, size: tail.size, endsWithEol: tail.endsWithEol, startxref: tail.startxref, xrefKind };
  if (tail.size <= Math.min(inProcessBytes, IN_PROCESS_BYTES)) {
    const read = await readInProcess(qpdf, file, call, tail.size, xrefKind);
    if (read) return { ...base, ...read, damaged: false, reader: 'cos' };
  }
  return { ...base, ...(await readWithQpdf(qpdf, file, call, tail.size)), reader: 'qpdf' };
}

type DocumentObjects = Omit<SignableDocument, 'file' | 'size' | 'endsWithEol' | 'startxref' | 'xrefKind'>;

/**
 * The objects read by the COS reader in process; undefined when it did not read the file cleanly
 * (anything repaired, reconstructed, cut by a limit, or an irregular page tree): then qpdf reads it,
 * and its warnings decide whether the file is damaged, exactly as for a large file.
 */
async function readInProcess(qpdf: PdfStructureTool, file: string, call: QpdfCall, size: number, xrefKind: 'table' | 'stream'): Promise<DocumentObjects | undefined> {
  // Loaded at the first signature, not at start (docs/ARCHITECTURE.md: heavy engine parts load on first use).
  const [{ openCosBytes }, { CosObjectFetcher, cleanlyRead, cosPageRefs }] = await Promise.all([import('../pdfa-validator/cos/index.js'), import('./cos-objects.js')]);
  const bytes = await readFile(file);
  // The file changed between the two reads (not ours to sign as it is now): qpdf's path reports it.
  if (bytes.length !== size) return undefined;
  const cos = openCosBytes(bytes, IN_PROCESS_LIMITS);
  if (!cleanlyRead(cos) || cos.xrefSections[0]?.kind !== xrefKind || cos.isLinearized) return undefined;
  const pageRefs = cosPageRefs(cos);
  if (!pageRefs) return undefined;
  const objects = await readObjects(new CosObjectFetcher(cos, qpdf, file, call), pageRefs);
  return cleanlyRead(cos) ? objects : undefined;
}

/**
 * The objects read by qpdf. A small file is described by one qpdf run (every object's dictionary, no
 * stream data); a large one by a run for the pages and runs for the few objects the update needs.
 */
async function readWithQpdf(qpdf: PdfStructureTool, file: string, call: QpdfCall, size: number): Promise<DocumentObjects & { damaged: boolean }> {
  const whole = size <= WHOLE_FILE_BYTES;
  const pagesRun = await qpdf.run(['--json=2', '--json-key=pages', ...(whole ? ['--json-key=qpdf', '--json-stream-data=none'] : []), file], {
    ...call,
    maxOutputBytes: 64 * 1024 * 1024,
  });
  const described = parseJson(pagesRun.stdout);
  const pages = asArray(described.pages) ?? [];
  const pageRefs = pages.map((page) => asDict(page)?.object).filter((ref): ref is string => isRef(ref));

  const fetcher = new ObjectFetcher(qpdf, file, call);
  const objects = asDict(asArray(described.qpdf)?.[1]);
  if (whole && objects) {
    fetcher.absorb(objects, true);
    fetcher.pdfVersion = asDict(asArray(described.qpdf)?.[0])?.pdfversion as string | undefined;
  }
  return { ...(await readObjects(fetcher, pageRefs)), damaged: pagesRun.warnings };
}

/** The trailer, catalog, AcroForm, field names and certification level, through either reader. */
async function readObjects(fetcher: ObjectFetcher, pageRefs: string[]): Promise<DocumentObjects> {
  await fetcher.fetch(['trailer']);
  const trailer = asDict(fetcher.get('trailer')) ?? {};
  if (trailer['/Encrypt'] !== undefined && trailer['/Encrypt'] !== null) {
    throw new SignatureEngineError('encrypted', 'the PDF is encrypted');
  }
  const rootRef = trailer['/Root'];
  if (!isRef(rootRef)) throw new SignatureEngineError('unreadable', 'the PDF has no catalog (/Root) reference');
  const catalog = asDict(await fetcher.resolve(rootRef));
  if (!catalog) throw new SignatureEngineError('unreadable', "the PDF's catalog is not a dictionary");

  const acroFormValue = catalog['/AcroForm'];
  const acroForm = isRef(acroFormValue) ? { ref: acroFormValue, dict: asDict(await fetcher.resolve(acroFormValue)) ?? {} } : { dict: asDict(acroFormValue) ?? {} };
  const fieldNames = new Set<string>();
  await collectFieldNames(fetcher, await fetcher.resolve(acroForm.dict['/Fields']), '', fieldNames, 0);

  return {
    trailer,
    rootRef,
    catalog,
    acroForm,
    fieldNames,
    pageRefs,
    certifiedLevel: await certificationLevel(fetcher, catalog),
    fetcher,
    pdfVersion: fetcher.pdfVersion ?? '1.4',
  };
}

async function collectFieldNames(fetcher: ObjectFetcher, fields: QValue | undefined, prefix: string, names: Set<string>, depth: number): Promise<void> {
  const list = asArray(fields);
  if (!list || depth > 16) return;
  const refs = list.filter((item) => isRef(item));
  await fetcher.fetch(refs);
  for (const item of list) {
    if (names.size > MAX_FIELDS) return;
    const field = asDict(await fetcher.resolve(item));
    if (!field) continue;
    const partial = asText(field['/T']);
    const name = partial === undefined ? prefix : prefix ? `${prefix}.${partial}` : partial;
    if (name) names.add(name);
    await collectFieldNames(fetcher, await fetcher.resolve(field['/Kids']), name, names, depth + 1);
  }
}

/** The P of the catalog's /Perms /DocMDP signature (ISO 32000-1 §12.8.2.2; P defaults to 2). */
async function certificationLevel(fetcher: ObjectFetcher, catalog: QDict): Promise<number | undefined> {
  const perms = asDict(await fetcher.resolve(catalog['/Perms']));
  const signature = asDict(await fetcher.resolve(perms?.['/DocMDP']));
  if (!signature) return undefined;
  for (const reference of asArray(await fetcher.resolve(signature['/Reference'])) ?? []) {
    const entry = asDict(await fetcher.resolve(reference));
    if (asName(entry?.['/TransformMethod']) !== 'DocMDP') continue;
    const params = asDict(await fetcher.resolve(entry?.['/TransformParams']));
    return asNumber(await fetcher.resolve(params?.['/P'])) ?? 2;
  }
  return 2;
}

/** `wanted`, or the next free name after it (Signature1 → Signature2 …; Name → Name_2 …). */
export function uniqueFieldName(wanted: string, taken: ReadonlySet<string>): string {
  if (!taken.has(wanted)) return wanted;
  const match = /^(.*?)(\d+)$/.exec(wanted);
  const base = match ? match[1]! : `${wanted}_`;
  let n = match ? Number(match[2]) + 1 : 2;
  while (taken.has(`${base}${n}`)) n++;
  return `${base}${n}`;
}

/** The visible area of a page in default user space: its /CropBox, else its /MediaBox (inherited through /Parent). */
export async function pageBox(doc: SignableDocument, page: number): Promise<[number, number, number, number]> {
  let node = asDict(await doc.fetcher.resolve(doc.pageRefs[page - 1]));
  let media: QValue[] | undefined;
  let crop: QValue[] | undefined;
  for (let depth = 0; node && depth < 32; depth++) {
    crop ??= asArray(await doc.fetcher.resolve(node['/CropBox']));
    media ??= asArray(await doc.fetcher.resolve(node['/MediaBox']));
    if (media) break;
    node = asDict(await doc.fetcher.resolve(node['/Parent']));
  }
  const box = (crop ?? media ?? [0, 0, 612, 792]).map((n) => asNumber(n) ?? 0);
  if (box.length !== 4) return [0, 0, 612, 792];
  const [a, b, c, d] = box as [number, number, number, number];
  return [Math.min(a, c), Math.min(b, d), Math.max(a, c), Math.max(b, d)];
}

/** The page's /Rotate (inherited through /Parent): 0, 90, 180 or 270; anything else reads 0, as viewers take it. */
export async function pageRotation(doc: SignableDocument, page: number): Promise<0 | 90 | 180 | 270> {
  let node = asDict(await doc.fetcher.resolve(doc.pageRefs[page - 1]));
  for (let depth = 0; node && depth < 32; depth++) {
    const rotate = asNumber(await doc.fetcher.resolve(node['/Rotate']));
    if (rotate !== undefined) {
      const turned = ((rotate % 360) + 360) % 360;
      return turned === 90 || turned === 180 || turned === 270 ? turned : 0;
    }
    node = asDict(await doc.fetcher.resolve(node['/Parent']));
  }
  return 0;
}

/** Where a visible signature goes, as the viewer sees the page: points from its left and its bottom (`pdf`) or top (`user`). */
export interface VisiblePosition {
  x: number;
  y: number;
  width: number;
  height: number;
  coordinates: 'user' | 'pdf';
}

/**
 * The widget's /Rect in default user space for a position given on the page as the viewer shows it
 * (turned by /Rotate), and the rotation the appearance must undo to stand upright
 * (appearance.ts turns its content by it). On a page turned by 90° or 270°, the visible width is the
 * box's height: the position is measured on the turned page, and the /Rect's extents swap.
 */
export async function placeAppearance(doc: SignableDocument, page: number, position: VisiblePosition): Promise<{ rect: [number, number, number, number]; rotate: 0 | 90 | 180 | 270 }> {
  const [bx0, by0, bx1, by1] = await pageBox(doc, page);
  const rotate = await pageRotation(doc, page);
  const [boxWidth, boxHeight] = [bx1 - bx0, by1 - by0];
  const visibleHeight = rotate === 90 || rotate === 270 ? boxWidth : boxHeight;
  const { x, width, height } = position;
  const y = position.coordinates === 'user' ? visibleHeight - position.y - height : position.y;
  // A point of the turned page (origin at its visible lower left) in the box's own coordinates.
  const unturn = (vx: number, vy: number): [number, number] =>
    rotate === 90 ? [boxWidth - vy, vx] : rotate === 180 ? [boxWidth - vx, boxHeight - vy] : rotate === 270 ? [vy, boxHeight - vx] : [vx, vy];
  const [u1, v1] = unturn(x, y);
  const [u2, v2] = unturn(x + width, y + height);
  return { rect: [bx0 + Math.min(u1, u2), by0 + Math.min(v1, v2), bx0 + Math.max(u1, u2), by0 + Math.max(v1, v2)], rotate };
}
