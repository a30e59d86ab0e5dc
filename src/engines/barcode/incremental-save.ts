import { appendFile, copyFile } from 'node:fs/promises';
import { PDFArray, PDFDict, PDFName, type PDFDocument, type PDFObject, type PDFPage, PDFRef } from '@cantoo/pdf-lib';
import { layOutUpdate, type NewObject } from '../signature/update-writer.js';

/**
 * Saves an edited pdf-lib document as an incremental update of its original file (ISO 32000-1
 * §7.5.6): the original bytes as they are, then only the objects the edit made or changed, an xref
 * section of the original's kind with /Prev, and a trailer — the layout the signature engine writes
 * (`layOutUpdate`). Stamping 500 pages then writes ~1,000 small objects instead of the whole
 * document again (pdf-lib's full save was a third of the call).
 *
 * The edit names the pages it touched; what changes with a page is the page dictionary, its page-tree
 * ancestors (counts and kids of inserted pages; inherited resources), and its resource dictionaries
 * when they are objects of their own. Objects numbered above `firstNew - 1` are new. Writing an
 * unchanged object again is harmless, so the set errs on the side of more.
 *
 * Returns false (nothing written) when the original's end cannot take an update — no startxref, or
 * one that points at neither an xref table nor an xref stream; the caller then saves in full.
 */
export async function saveIncrementally(document: PDFDocument, original: { path: string; bytes: Buffer }, output: string, touched: readonly PDFPage[], firstNew: number): Promise<boolean> {
  const tail = readTail(original.bytes);
  const root = document.context.trailerInfo.Root;
  if (!tail || !(root instanceof PDFRef)) return false;
  await document.flush();
  const context = document.context;
  const refs = new Map<string, PDFRef>([[root.toString(), root]]);
  const add = (value: PDFObject | undefined) => {
    if (value instanceof PDFRef) refs.set(value.toString(), value);
  };
  for (const page of touched) {
    add(page.ref);
    let node: PDFDict | undefined = page.node;
    for (let depth = 0; node && depth < 64; depth++) {
      const parent = node.get(PDFName.of('Parent'));
      add(parent);
      node = context.lookupMaybe(parent, PDFDict);
    }
    const resources = page.node.getInheritableAttribute(PDFName.of('Resources'));
    add(resources);
    const dict = context.lookupMaybe(resources, PDFDict);
    for (const category of ['XObject', 'ExtGState']) add(dict?.get(PDFName.of(category)));
    const contents = page.node.get(PDFName.of('Contents'));
    if (context.lookup(contents) instanceof PDFArray) add(contents);
  }
  for (const [ref] of context.enumerateIndirectObjects()) if (ref.objectNumber >= firstNew) add(ref);

  const objects: NewObject[] = [];
  for (const ref of [...refs.values()].sort((a, b) => a.objectNumber - b.objectNumber)) {
    const object = context.lookup(ref);
    if (object === undefined) continue;
    const body = new Uint8Array(object.sizeInBytes());
    object.copyBytesInto(body, 0);
    objects.push({
      num: ref.objectNumber,
      gen: ref.generationNumber,
      parts: [Buffer.from(`${ref.objectNumber} ${ref.generationNumber} obj\n`, 'latin1'), Buffer.from(body.buffer, body.byteOffset, body.byteLength), Buffer.from('\nendobj\n', 'latin1')],
    });
  }
  const { Info, ID } = context.trailerInfo;
  const firstId = ID instanceof PDFArray ? ID.get(0) : undefined;
  const idBytes = firstId && 'asBytes' in firstId ? Buffer.from((firstId as unknown as { asBytes(): Uint8Array }).asBytes()).toString('hex') : undefined;
  const trailer = { ...(Info instanceof PDFRef ? { '/Info': Info.toString() } : {}), ...(idBytes !== undefined ? { '/ID': [`b:${idBytes}`] } : {}) };
  const { update } = layOutUpdate(
    { size: original.bytes.length, endsWithEol: tail.endsWithEol, startxref: tail.startxref, xrefKind: tail.kind, trailer, rootRef: root.toString() },
    objects,
    context.largestObjectNumber + 1,
  );
  await copyFile(original.path, output);
  await appendFile(output, update);
  return true;
}

/** Where the original's newest xref section is (its last `startxref`), of which kind, and whether the file ends with an end-of-line. */
export function readTail(bytes: Buffer): { startxref: number; kind: 'table' | 'stream'; endsWithEol: boolean } | undefined {
  const end = bytes.subarray(Math.max(0, bytes.length - 1024)).toString('latin1');
  const match = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(end);
  if (!match) return undefined;
  const startxref = Number(match[1]);
  if (startxref >= bytes.length) return undefined;
  const head = bytes.subarray(startxref, startxref + 64).toString('latin1');
  const kind = /^\s*xref/.test(head) ? 'table' : /^\s*\d+\s+\d+\s+obj/.test(head) ? 'stream' : undefined;
  if (!kind) return undefined;
  const last = bytes[bytes.length - 1];
  return { startxref, kind, endsWithEol: last === 0x0a || last === 0x0d };
}
