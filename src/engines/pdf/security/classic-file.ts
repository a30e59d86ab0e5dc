import { open, type FileHandle } from 'node:fs/promises';
import { isDict, numberOf, PdfParser, type PdfDict, type PdfValue } from '../pdf-syntax.js';
import { EngineError } from '../../engine-error.js';

/**
 * Object-by-object reading of a PDF that qpdf wrote with `--object-streams=disable`: one classic
 * cross-reference table, every object at its offset as "N G obj ... endobj", streams with a direct
 * /Length. Only such files are read here (qpdf normalises any input first), so the reader can be
 * strict; anything else is an `invalidPdf` failure. One object is in memory at a time.
 */

export interface ObjectEntry {
  num: number;
  gen: number;
  offset: number;
  /** Where the next object (or the cross-reference table) starts. */
  end: number;
}

export interface ClassicLayout {
  /** Offset of the first object: the header and its binary comment come before it. */
  firstObject: number;
  /** In-use objects in file order. */
  objects: ObjectEntry[];
  trailer: PdfDict;
  /** One more than the highest object number (the trailer's /Size, or the table's extent). */
  size: number;
}

export interface ParsedObject {
  num: number;
  gen: number;
  /** The object's bytes, from "N G obj" up to the next object. */
  raw: Buffer;
  value: PdfValue;
  /** The value's span in `raw`. */
  valueStart: number;
  valueEnd: number;
  /** The stream data's span in `raw`, for stream objects. */
  stream?: { start: number; end: number };
}

/** The file is not what qpdf writes with `--object-streams=disable` (never for qpdf's own output). */
export class ClassicFileError extends EngineError<'invalidPdf'> {}

function fail(message: string): never {
  throw new ClassicFileError('invalidPdf', `the normalised PDF cannot be read back: ${message}`);
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

export async function readClassicLayout(handle: FileHandle): Promise<ClassicLayout> {
  const { size: fileSize } = await handle.stat();
  const tail = (await readAt(handle, Math.max(0, fileSize - 1024), Math.min(1024, fileSize))).toString('latin1');
  const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  if (!startxref) fail('no startxref');
  const xrefOffset = Number(startxref[1]);
  const table = await readAt(handle, xrefOffset, fileSize - xrefOffset);
  const parser = new PdfParser(table);
  if (!parser.acceptKeyword('xref')) fail('no classic cross-reference table');
  const entries: ObjectEntry[] = [];
  let extent = 0;
  for (;;) {
    parser.skipWhite();
    const match = /^(\d+) (\d+)\s/.exec(table.toString('latin1', parser.position, parser.position + 40));
    if (!match) break;
    parser.position += match[0].length;
    parser.skipWhite();
    const first = Number(match[1]);
    const count = Number(match[2]);
    extent = Math.max(extent, first + count);
    for (let i = 0; i < count; i++) {
      const line = table.toString('latin1', parser.position, parser.position + 20);
      const entry = /^(\d{10}) (\d{5}) ([nf])/.exec(line);
      if (!entry) fail(`bad cross-reference entry ${first + i}`);
      if (entry[3] === 'n') entries.push({ num: first + i, gen: Number(entry[2]), offset: Number(entry[1]), end: 0 });
      parser.position += 20;
    }
  }
  if (!parser.acceptKeyword('trailer')) fail('no trailer');
  const trailer = parser.readValue();
  if (!isDict(trailer)) fail('the trailer is not a dictionary');
  // qpdf 11.3 leaves /Size out when it repaired an input whose trailer lacked it: the table tells.
  const size = Math.max(numberOf(trailer.entries.get('Size')) ?? 0, extent);
  entries.sort((a, b) => a.offset - b.offset);
  entries.forEach((entry, i) => {
    entry.end = entries[i + 1]?.offset ?? xrefOffset;
  });
  if (entries.length === 0) fail('no objects');
  return { firstObject: entries[0]!.offset, objects: entries, trailer, size };
}

export async function readObject(handle: FileHandle, entry: ObjectEntry): Promise<ParsedObject> {
  const raw = await readAt(handle, entry.offset, entry.end - entry.offset);
  const parser = new PdfParser(raw);
  const header = parser.readObjectHeader();
  if (header.num !== entry.num || header.gen !== entry.gen) fail(`object ${entry.num} is not at its offset`);
  parser.skipWhite();
  const valueStart = parser.position;
  const value = parser.readValue();
  const valueEnd = parser.position;
  const object: ParsedObject = { num: entry.num, gen: entry.gen, raw, value, valueStart, valueEnd };
  if (isDict(value) && parser.acceptKeyword('stream')) {
    let start = parser.position;
    if (raw[start] === 0x0d) start++;
    if (raw[start] === 0x0a) start++;
    const length = numberOf(value.entries.get('Length'));
    let end: number;
    if (length !== undefined && start + length <= raw.length) {
      end = start + length;
    } else {
      // An indirect /Length (qpdf writes direct ones, but be safe): the data ends before "endstream".
      const keyword = raw.lastIndexOf('endstream');
      if (keyword < start) fail(`object ${entry.num} has no endstream`);
      end = keyword;
      if (raw[end - 1] === 0x0a) end--;
      if (raw[end - 1] === 0x0d) end--;
    }
    object.stream = { start, end };
  }
  return object;
}

/** The output side of a rewrite: appends bytes and knows the offset the next object starts at. */
export interface AppendingOutput {
  /** Bytes written so far: the offset of what is written next. */
  readonly position: number;
  write(chunk: Buffer): Promise<void>;
}

/**
 * Rewrites a classic file object by object: opens `source`, reads its layout, copies the header
 * (everything before the first object) to `target`, and hands the rest to `body`. Both files are
 * closed afterwards, whatever happens.
 */
export async function rewriteClassicFile(source: string, target: string, body: (input: FileHandle, layout: ClassicLayout, output: AppendingOutput) => Promise<void>): Promise<void> {
  const input = await open(source, 'r');
  const file = await open(target, 'w');
  try {
    const layout = await readClassicLayout(input);
    const output = {
      position: 0,
      async write(chunk: Buffer) {
        await file.write(chunk, 0, chunk.length, output.position);
        output.position += chunk.length;
      },
    };
    const header = Buffer.alloc(layout.firstObject);
    await input.read(header, 0, header.length, 0);
    await output.write(header);
    await body(input, layout, output);
  } finally {
    await input.close();
    await file.close();
  }
}
