import { createHash, randomBytes } from 'node:crypto';
import { constants, copyFile, open } from 'node:fs/promises';
import { asArray, asDict, isRef } from '../pdf/qpdf-json.js';
import type { SignableDocument } from './document.js';
import { SignatureEngineError } from './errors.js';
import { copyDict, pdfText, Raw, serialize } from './pdf-values.js';

/**
 * Writes a signature as an incremental update (ISO 32000-1 §7.5.6): the original bytes unchanged,
 * then the new and changed objects, an xref section of the original's kind with /Prev, and a
 * trailer. The signed byte ranges cover everything but the /Contents hex string, so every earlier
 * signature still covers exactly the bytes it covered.
 *
 * The kernel copies the original into the output (copy_file_range: no bytes pass through user
 * space), then the copy is read once, in chunks, into the digest and the update appended: a 100 MB
 * file is never held in memory, and signing costs about one hashing pass over bytes the page cache
 * still holds. Hashing the copy, not the original, signs exactly the bytes the output holds.
 */

export interface SignatureFields {
  fieldName: string;
  reason: string;
  location: string;
  contact: string;
  /** The signer's name (/Name), usually the certificate's CN. */
  name: string;
  signingTime: Date;
  /** DocMDP P (1, 2, 3) of a certification signature; undefined: an approval signature. */
  certificationLevel: 1 | 2 | 3 | undefined;
  /** 1-based page of the widget (checked against the page count by the caller). */
  page: number;
  /** The widget's rectangle in default user space; [0 0 0 0] = invisible. */
  rect: [number, number, number, number];
  /** A visible appearance: the form XObject's content, its resources and the objects they use. */
  appearance?: AppearanceObjects;
  /**
   * A document time-stamp (PAdES B-LTA, ISO 32000-2 §12.8.5) instead of a signature: /Type
   * /DocTimeStamp, /SubFilter /ETSI.RFC3161, the byte ranges hashed with `digest` (the producer gets
   * that hash and returns an RFC 3161 token), no /M, /Name, /Reason…; allowed after DocMDP P=1 (an
   * update that only adds a DSS or a document time-stamp is no change, ISO 32000-2 Table 257).
   */
  documentTimeStamp?: { digest: 'sha256' | 'sha384' | 'sha512' };
}

/** The appearance of a visible signature as objects of the update (numbers assigned by `write`). */
export interface AppearanceObjects {
  content: Buffer;
  /** The /Resources dictionary, with `{{n}}` standing for the n-th (0-based) of `objects`. */
  resources: string;
  /** Further objects (fonts, images): each a whole `<<…>>` (plus `stream…endstream`) body, `{{n}}` as above. */
  objects: Buffer[];
}

/** Signs `digest`: the DER CMS, at most `reservedBytes` long. */
export type CmsProducer = (digest: Buffer) => Promise<Buffer>;

/** Bytes kept for the CMS (hex: twice this). A chain of a few certificates plus a time-stamp token fit. */
export const DEFAULT_CONTENTS_BYTES = 16 * 1024;

/** An object of an incremental update. */
export interface NewObject {
  num: number;
  gen: number;
  /** The object's whole text, "N G obj … endobj\n". */
  parts: Buffer[];
}

/** The document an update extends: where it ends, its newest xref section and trailer. */
export type UpdateBase = Pick<SignableDocument, 'size' | 'endsWithEol' | 'startxref' | 'xrefKind' | 'trailer' | 'rootRef'>;

/**
 * Lays out an update of `doc` holding `objects` (numbers below `size`, the new trailer's /Size before
 * an xref stream takes the next): the objects, then an xref section of the document's kind with /Prev,
 * the trailer (/Root, /Info, /ID: the first kept, the second new) and startxref. `offsetOf` gives where
 * one of the objects' parts starts in the whole file.
 */
export function layOutUpdate(doc: UpdateBase, objects: readonly NewObject[], size: number): { update: Buffer; offsetOf: (part: Buffer) => number } {
  // `base`: where the update (its leading EOL included) starts in the whole file.
  const base = doc.size;
  const chunks: Buffer[] = doc.endsWithEol ? [] : [Buffer.from('\n')];
  let position = base + (doc.endsWithEol ? 0 : 1);
  const offsets = new Map<number, { offset: number; gen: number }>();
  const partOffsets = new Map<Buffer, number>();
  for (const object of objects) {
    offsets.set(object.num, { offset: position, gen: object.gen });
    for (const part of object.parts) {
      partOffsets.set(part, position);
      chunks.push(part);
      position += part.length;
    }
  }
  const id0 = asArray(doc.trailer['/ID'])?.[0];
  const newId = `<${randomBytes(16).toString('hex')}>`;
  const idText = `[${typeof id0 === 'string' ? serialize(id0) : newId} ${newId}]`;
  const trailerEntries = `/Root ${doc.rootRef}${isRef(doc.trailer['/Info']) ? ` /Info ${doc.trailer['/Info']}` : ''} /ID ${idText} /Prev ${doc.startxref}`;
  if (doc.xrefKind === 'table') {
    const xrefAt = position;
    chunks.push(Buffer.from(`xref\n${xrefTable(offsets)}trailer\n<</Size ${size} ${trailerEntries}>>\nstartxref\n${xrefAt}\n%%EOF\n`, 'latin1'));
  } else {
    const xrefNum = size;
    offsets.set(xrefNum, { offset: position, gen: 0 });
    const { index, data } = xrefStreamData(offsets);
    const head = `${xrefNum} 0 obj\n<</Type /XRef /Size ${size + 1} /W [1 6 2] /Index [${index.join(' ')}] ${trailerEntries} /Length ${data.length}>>\nstream\n`;
    chunks.push(Buffer.from(head, 'latin1'), data, Buffer.from(`\nendstream\nendobj\nstartxref\n${position}\n%%EOF\n`, 'latin1'));
  }
  return {
    update: Buffer.concat(chunks),
    offsetOf: (part) => {
      const at = partOffsets.get(part);
      if (at === undefined) throw new Error('layOutUpdate: the part is not one of the objects');
      return at;
    },
  };
}

function refParts(ref: string): { num: number; gen: number } {
  const [num, gen] = ref.split(' ');
  return { num: Number(num), gen: Number(gen) };
}

function pdfDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `D:${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
}

/** The piece of the copy read into the digest at a time (one buffer, reused). */
const COPY_CHUNK_BYTES = 1024 * 1024;

const BYTE_RANGE_WIDTH = '[0 0000000000 0000000000 0000000000]'.length + 12;

export interface WriteResult {
  fieldName: string;
  /** Bytes of the signed file. */
  size: number;
}

/** Writes `output`: `doc`'s file plus the update holding the signature `fields`, signed by `produceCms`. */
export async function writeSignatureUpdate(doc: SignableDocument, output: string, fields: SignatureFields, produceCms: CmsProducer, contentsBytes = DEFAULT_CONTENTS_BYTES): Promise<WriteResult> {
  const pageRef = doc.pageRefs[fields.page - 1];
  if (!pageRef) throw new SignatureEngineError('pageOutOfRange', `page ${fields.page} does not exist: the document has ${doc.pageRefs.length} page(s)`);
  if (doc.certifiedLevel === 1 && !fields.documentTimeStamp) {
    throw new SignatureEngineError('certified', 'the document is certified with "no changes allowed" (DocMDP P=1): it cannot take another signature');
  }
  if (doc.certifiedLevel !== undefined && fields.certificationLevel !== undefined) {
    throw new SignatureEngineError('certified', 'the document is already certified: a further signature can only be an approval signature (certificationLevel "none")');
  }
  if (doc.fieldNames.has(fields.fieldName)) throw new SignatureEngineError('fieldName', `a field named "${fields.fieldName}" exists`);

  const size = Number(doc.trailer['/Size'] ?? 0);
  if (!Number.isInteger(size) || size <= 0) throw new SignatureEngineError('unreadable', 'the trailer has no usable /Size');
  let next = size;
  const allocate = () => next++;
  const sigNum = allocate();
  const widgetNum = allocate();
  const objects: NewObject[] = [];
  const text = (num: number, gen: number, body: string) => ({ num, gen, parts: [Buffer.from(`${num} ${gen} obj\n${body}\nendobj\n`, 'latin1')] });

  // The appearance: its extra objects, then the form XObject.
  let apRef: string | undefined;
  if (fields.appearance) {
    const numbers = fields.appearance.objects.map(() => allocate());
    const fill = (s: string) => s.replace(/\{\{(\d+)\}\}/g, (_m, i: string) => `${numbers[Number(i)]!} 0 R`);
    fields.appearance.objects.forEach((body, i) => {
      const head = fill(body.subarray(0, Math.min(body.length, body.indexOf('stream') >= 0 ? body.indexOf('stream') : body.length)).toString('latin1'));
      const rest = body.indexOf('stream') >= 0 ? body.subarray(body.indexOf('stream')) : Buffer.alloc(0);
      objects.push({ num: numbers[i]!, gen: 0, parts: [Buffer.from(`${numbers[i]!} 0 obj\n${head}`, 'latin1'), rest, Buffer.from('\nendobj\n', 'latin1')] });
    });
    const apNum = allocate();
    const [x1, y1, x2, y2] = fields.rect;
    const dict = `<</Type /XObject /Subtype /Form /BBox [0 0 ${serialize(x2 - x1)} ${serialize(y2 - y1)}] /Resources ${fill(fields.appearance.resources)} /Length ${fields.appearance.content.length}>>`;
    objects.push({
      num: apNum,
      gen: 0,
      parts: [Buffer.from(`${apNum} 0 obj\n${dict}\nstream\n`, 'latin1'), fields.appearance.content, Buffer.from('\nendstream\nendobj\n', 'latin1')],
    });
    apRef = `${apNum} 0 R`;
  }

  // The widget annotation merged with its signature field (one object, as most signers write it).
  const widget = [
    '<</Type /Annot /Subtype /Widget /FT /Sig',
    `/T ${pdfText(fields.fieldName)}`,
    `/V ${sigNum} 0 R`,
    `/F 132 /P ${pageRef}`,
    `/Rect [${fields.rect.map((n) => serialize(n)).join(' ')}]`,
    apRef ? `/AP <</N ${apRef}>>` : '',
    '>>',
  ].join(' ');
  objects.push(text(widgetNum, 0, widget));

  // The page (or its indirect /Annots array) with the widget added.
  const page = asDict(await doc.fetcher.resolve(pageRef)) ?? {};
  const annots = page['/Annots'];
  if (isRef(annots)) {
    const list = asArray(await doc.fetcher.resolve(annots)) ?? [];
    const { num, gen } = refParts(annots);
    objects.push(text(num, gen, serialize([...list, `${widgetNum} 0 R`])));
  } else {
    const changed = copyDict(page);
    changed['/Annots'] = [...(asArray(annots) ?? []), `${widgetNum} 0 R`];
    const { num, gen } = refParts(pageRef);
    objects.push(text(num, gen, serialize(changed)));
  }

  // The AcroForm: the field added, SigFlags 3 (signatures exist, append only).
  const acroForm = copyDict(doc.acroForm.dict);
  const fieldsValue = doc.acroForm.dict['/Fields'];
  acroForm['/SigFlags'] = 3;
  if (isRef(fieldsValue)) {
    const list = asArray(await doc.fetcher.resolve(fieldsValue)) ?? [];
    const { num, gen } = refParts(fieldsValue);
    objects.push(text(num, gen, serialize([...list, `${widgetNum} 0 R`])));
  } else {
    acroForm['/Fields'] = [...(Array.isArray(fieldsValue) ? fieldsValue : []), `${widgetNum} 0 R`];
  }
  let acroFormRef = doc.acroForm.ref;
  if (acroFormRef) {
    const { num, gen } = refParts(acroFormRef);
    objects.push(text(num, gen, serialize(acroForm)));
  } else {
    const num = allocate();
    acroFormRef = `${num} 0 R`;
    objects.push(text(num, 0, serialize(acroForm)));
  }

  // The catalog: the AcroForm, the DocMDP permission of a certification, the PAdES extension.
  const catalog = copyDict(doc.catalog);
  catalog['/AcroForm'] = acroFormRef;
  if (fields.certificationLevel !== undefined) {
    const perms = copyDict(asDict(await doc.fetcher.resolve(doc.catalog['/Perms'])));
    perms['/DocMDP'] = `${sigNum} 0 R`;
    catalog['/Perms'] = perms;
  }
  if (Number(doc.pdfVersion) < 2) {
    const extensions = copyDict(asDict(await doc.fetcher.resolve(doc.catalog['/Extensions'])));
    if (extensions['/ESIC'] === undefined) extensions['/ESIC'] = new Raw('<</BaseVersion /1.7 /ExtensionLevel 2>>');
    catalog['/Extensions'] = extensions;
  }
  const root = refParts(doc.rootRef);
  objects.push(text(root.num, root.gen, serialize(catalog)));

  // The signature dictionary, with the placeholders the signing fills in.
  const reference =
    fields.certificationLevel === undefined ? '' : ` /Reference [<</Type /SigRef /TransformMethod /DocMDP /TransformParams <</Type /TransformParams /P ${fields.certificationLevel} /V /1.2>>>>]`;
  const optional = (key: string, value: string) => (value ? ` /${key} ${pdfText(value)}` : '');
  const sigHead = fields.documentTimeStamp
    ? `${sigNum} 0 obj\n<</Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 /ByteRange `
    : `${sigNum} 0 obj\n<</Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange `;
  const sigTail = fields.documentTimeStamp
    ? '>>\nendobj\n'
    : ` /M ${pdfText(pdfDate(fields.signingTime))}${optional('Name', fields.name)}${optional('Reason', fields.reason)}` +
      `${optional('Location', fields.location)}${optional('ContactInfo', fields.contact)}${reference}>>\nendobj\n`;
  const byteRangeSlot = Buffer.alloc(BYTE_RANGE_WIDTH, ' ');
  const contentsSlot = Buffer.alloc(contentsBytes * 2 + 2, '0');
  contentsSlot[0] = 0x3c; // <
  contentsSlot[contentsSlot.length - 1] = 0x3e; // >
  objects.push({ num: sigNum, gen: 0, parts: [Buffer.from(sigHead, 'latin1'), byteRangeSlot, Buffer.from(' /Contents ', 'latin1'), contentsSlot, Buffer.from(sigTail, 'latin1')] });

  const { update, offsetOf } = layOutUpdate(doc, objects, next);
  const base = doc.size;
  const byteRangeAt = offsetOf(byteRangeSlot);
  const contentsAt = offsetOf(contentsSlot);
  const total = base + update.length;

  // The byte ranges: everything but the /Contents string (its < and > included).
  const contentsStart = contentsAt;
  const contentsEnd = contentsAt + contentsSlot.length;
  const byteRange = `[0 ${contentsStart} ${contentsEnd} ${total - contentsEnd}]`;
  if (byteRange.length > BYTE_RANGE_WIDTH) throw new SignatureEngineError('unreadable', 'the file is too large for the /ByteRange this writer reserves');
  update.write(byteRange, byteRangeAt - base, 'latin1');

  const hash = createHash(fields.documentTimeStamp?.digest ?? 'sha256');
  // COPYFILE_EXCL: like open(…, 'wx'), an existing output is an error, never overwritten.
  await copyFile(doc.file, output, constants.COPYFILE_EXCL);
  const out = await open(output, 'r+');
  try {
    // The copy took the original's mode; the output is the server's own file.
    await out.chmod(0o600);
    if ((await out.stat()).size !== doc.size) throw new SignatureEngineError('unreadable', 'the PDF changed while it was signed');
    const chunk = Buffer.allocUnsafe(Math.min(COPY_CHUNK_BYTES, Math.max(doc.size, 1)));
    for (let position = 0; position < doc.size; ) {
      const { bytesRead } = await out.read(chunk, 0, Math.min(chunk.length, doc.size - position), position);
      if (bytesRead === 0) throw new SignatureEngineError('unreadable', 'the PDF changed while it was signed');
      hash.update(chunk.subarray(0, bytesRead));
      position += bytesRead;
    }
    const gapStart = contentsStart - base;
    const gapEnd = contentsEnd - base;
    hash.update(update.subarray(0, gapStart));
    hash.update(update.subarray(gapEnd));
    const cms = await produceCms(hash.digest());
    if (cms.length > contentsBytes) throw new SignatureEngineError('key', `the signature (${cms.length} bytes) is larger than the ${contentsBytes} bytes reserved for it`);
    update.write(cms.toString('hex').toUpperCase(), gapStart + 1, 'latin1');
    await out.write(update, 0, update.length, base);
  } finally {
    await out.close();
  }
  return { fieldName: fields.fieldName, size: total };
}

/** A classic xref section of the changed objects: one subsection per run of consecutive numbers. */
function xrefTable(offsets: Map<number, { offset: number; gen: number }>): string {
  const numbers = [...offsets.keys()].sort((a, b) => a - b);
  let out = '';
  for (let i = 0; i < numbers.length; ) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j]! + 1) j++;
    out += `${numbers[i]} ${j - i + 1}\n`;
    for (let k = i; k <= j; k++) {
      const entry = offsets.get(numbers[k]!)!;
      out += `${String(entry.offset).padStart(10, '0')} ${String(entry.gen).padStart(5, '0')} n\r\n`;
    }
    i = j + 1;
  }
  return out;
}

/** The rows of an uncompressed xref stream (W [1 6 2]) and its /Index. */
function xrefStreamData(offsets: Map<number, { offset: number; gen: number }>): { index: number[]; data: Buffer } {
  const numbers = [...offsets.keys()].sort((a, b) => a - b);
  const index: number[] = [];
  const data = Buffer.alloc(numbers.length * 9);
  numbers.forEach((num, row) => {
    const entry = offsets.get(num)!;
    const last = index.length - 2;
    if (last >= 0 && index[last]! + index[last + 1]! === num) index[last + 1] = index[last + 1]! + 1;
    else index.push(num, 1);
    data[row * 9] = 1;
    data.writeUIntBE(entry.offset, row * 9 + 1, 6);
    data.writeUInt16BE(entry.gen, row * 9 + 7);
  });
  return { index, data };
}
