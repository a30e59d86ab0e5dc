import { rm, writeFile } from 'node:fs/promises';
import type { QpdfCall } from '../qpdf.js';
import type { PdfStructureTool } from '../../contracts.js';
import type { QDict, QValue } from '../qpdf-json.js';

/**
 * Object edits applied with `qpdf --update-from-json`: qpdf reads the document, adds the objects
 * given, takes the new trailer and writes the result, streaming like any other qpdf rewrite. Values
 * use qpdf's JSON v2 notation ("/Name", "u:text", "N 0 R").
 *
 * Only NEW objects are written, never existing ones replaced: qpdf 11.3 silently keeps the old value
 * of an object that lives in a compressed object stream (it reads the stream after the update). An
 * edited object is therefore a copy under a fresh number, and whatever pointed to it is edited the
 * same way, up to the trailer (/Root, /Info), which is always replaced. The old objects are left
 * unreferenced and qpdf does not write them.
 */
export class ObjectUpdates {
  private readonly objects = new Map<string, QValue>();
  private trailer: QDict | undefined;
  private nextId: number;

  constructor(maxObjectId: number) {
    this.nextId = maxObjectId + 1;
  }

  get empty(): boolean {
    return this.objects.size === 0 && this.trailer === undefined;
  }

  /** A fresh object number ("N 0 R") for a new object. */
  allocate(): string {
    return `${this.nextId++} 0 R`;
  }

  /** The value of a new object (a number from `allocate`). */
  set(ref: string, value: QValue): void {
    this.objects.set(ref, value);
  }

  /** A new object holding `value`; returns its reference. */
  add(value: QValue): string {
    const ref = this.allocate();
    this.objects.set(ref, value);
    return ref;
  }

  /** Replaces the trailer; the cross-reference stream's own keys are dropped (qpdf writes its own). */
  setTrailer(trailer: QDict): void {
    const copy: QDict = { ...trailer };
    for (const key of ['/Type', '/W', '/Index', '/Filter', '/DecodeParms', '/Length', '/Prev', '/XRefStm']) delete copy[key];
    this.trailer = copy;
  }

  async apply(qpdf: PdfStructureTool, input: string, output: string, call: QpdfCall): Promise<void> {
    const entries: QDict = {};
    for (const [ref, value] of this.objects) entries[`obj:${ref}`] = { value };
    if (this.trailer) entries.trailer = { value: this.trailer };
    const header = { jsonversion: 2, pushedinheritedpageresources: false, calledgetallpages: false, maxobjectid: this.nextId - 1 };
    const file = `${output}.update.json`;
    await writeFile(file, JSON.stringify({ qpdf: [header, entries] }), { mode: 0o600 });
    try {
      await qpdf.run([input, `--update-from-json=${file}`, output], call);
    } finally {
      await rm(file, { force: true });
    }
  }
}

/** "u:" text for qpdf JSON (qpdf encodes it as PDFDocEncoding or UTF-16 as needed). */
export function text(value: string): string {
  return `u:${value}`;
}
