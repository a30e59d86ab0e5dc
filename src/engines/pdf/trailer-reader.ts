import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';
import { readAt } from '../format/read-at.js';
import type { PdfDict, PdfRef, PdfValue } from './pdf-syntax.js';
import { PdfParser, PdfSyntaxIncomplete, isDict, isRef, nameOf, numberOf } from './pdf-syntax.js';
import { unpredictPngByte } from './png-predictor.js';

/**
 * Reads a PDF's encryption dictionary (the trailer's /Encrypt) with a handful of bounded reads near
 * the cross-reference sections, never the whole file.
 *
 * qpdf refuses to open a file whose encryption handler it does not implement (the public-key handler
 * Adobe.PubSec among them) and then tells nothing about the dictionary, so the engine reads it
 * itself: last `startxref` → xref table or xref stream (following /Prev and /XRefStm) → trailer →
 * the /Encrypt object → its indirect members resolved the same way.
 *
 * Damaged files whose xref does not lead to a trailer give `unreadable`, and the caller falls back to
 * qpdf (which reconstructs the xref) or to `scanForFilter`.
 */

export type EncryptLookup = { status: 'none' } | { status: 'found'; dict: PdfDict } | { status: 'unreadable'; reason: string };

const TAIL_BYTES = 64 * 1024;
const FIRST_CHUNK = 16 * 1024;
/** Largest single object (or xref stream) read; an encryption dictionary is a few KB even with many recipients. */
const MAX_OBJECT_BYTES = 16 * 1024 * 1024;
const MAX_SECTIONS = 256;
const MAX_RESOLVE_DEPTH = 8;

type Location = { type: 'offset'; offset: number } | { type: 'compressed' } | { type: 'free' };

interface XrefSection {
  trailer: PdfDict;
  lookup(num: number): Promise<Location | undefined>;
}

class XrefUnreadable extends Error {}

export async function readEncryptDictionary(file: string): Promise<EncryptLookup> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const reader = new TrailerReader(handle, size);
    return await reader.encryptDictionary();
  } catch (error) {
    // Whatever the bytes are, a file we cannot follow is "unreadable" here; qpdf has the last word.
    return { status: 'unreadable', reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await handle.close();
  }
}

/**
 * The trailer's /Size (one more than the highest object number) of the newest xref section, or
 * undefined when the xref cannot be followed. A cheap measure of how many objects a file has.
 */
export async function readTrailerSize(file: string): Promise<number | undefined> {
  const handle = await open(file, 'r');
  try {
    const reader = new TrailerReader(handle, (await handle.stat()).size);
    return await reader.trailerSize();
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

class TrailerReader {
  private readonly sections = new Map<number, XrefSection>();

  constructor(
    private readonly handle: FileHandle,
    private readonly size: number,
  ) {}

  async trailerSize(): Promise<number | undefined> {
    const section = await this.section(await this.startxref());
    return numberOf(section.trailer.entries.get('Size'));
  }

  async encryptDictionary(): Promise<EncryptLookup> {
    const start = await this.startxref();
    const first = await this.section(start);
    const encrypt = first.trailer.entries.get('Encrypt');
    if (encrypt === undefined || encrypt === null) return { status: 'none' };
    const value = await this.resolveDeep(encrypt, start, 0);
    if (!isDict(value)) throw new XrefUnreadable('/Encrypt is not a dictionary');
    return { status: 'found', dict: value };
  }

  private async startxref(): Promise<number> {
    const length = Math.min(this.size, TAIL_BYTES);
    const tail = (await readAt(this.handle, this.size - length, length)).toString('latin1');
    const at = tail.lastIndexOf('startxref');
    if (at < 0) throw new XrefUnreadable('no startxref');
    const match = /^startxref\s+(\d+)/.exec(tail.slice(at));
    if (!match) throw new XrefUnreadable('startxref without offset');
    const offset = Number(match[1]);
    if (offset >= this.size) throw new XrefUnreadable('startxref beyond end of file');
    return offset;
  }

  /** Resolves references (also inside arrays and dictionaries) against the xref chain starting at `start`. */
  private async resolveDeep(value: PdfValue, start: number, depth: number): Promise<PdfValue> {
    if (depth > MAX_RESOLVE_DEPTH) throw new XrefUnreadable('references nested too deeply');
    if (isRef(value)) return this.resolveDeep(await this.object(value, start), start, depth + 1);
    if (Array.isArray(value)) {
      const items: PdfValue[] = [];
      for (const item of value) items.push(await this.resolveDeep(item, start, depth + 1));
      return items;
    }
    if (isDict(value)) {
      const entries = new Map<string, PdfValue>();
      for (const [key, item] of value.entries) entries.set(key, await this.resolveDeep(item, start, depth + 1));
      return { kind: 'dict', entries };
    }
    return value;
  }

  /** The value of an indirect object, found through the xref chain (newest section first). */
  private async object(ref: PdfRef, start: number): Promise<PdfValue> {
    const visited = new Set<number>();
    const queue = [start];
    while (queue.length > 0) {
      const offset = queue.shift()!;
      if (visited.has(offset)) continue;
      visited.add(offset);
      if (visited.size > MAX_SECTIONS) throw new XrefUnreadable('too many xref sections');
      const section = await this.section(offset);
      const location = await section.lookup(ref.num);
      if (location?.type === 'offset') return this.objectAt(location.offset, ref.num);
      if (location?.type === 'compressed') throw new XrefUnreadable(`object ${ref.num} is in an object stream`);
      if (location?.type === 'free') return null;
      // Hybrid files: entries only in the /XRefStm stream come before those of /Prev.
      const xrefStm = numberOf(section.trailer.entries.get('XRefStm'));
      const prev = numberOf(section.trailer.entries.get('Prev'));
      if (xrefStm !== undefined) queue.unshift(xrefStm);
      if (prev !== undefined) queue.push(prev);
    }
    return null; // an undefined object is null (ISO 32000-1 §7.3.10)
  }

  /** Reads `num gen obj <value>` at `offset`, growing the read until the value is complete. */
  private async objectAt(offset: number, expectedNum?: number): Promise<PdfValue> {
    return (
      await this.parsedAt(offset, (parser) => {
        const header = parser.readObjectHeader();
        if (expectedNum !== undefined && header.num !== expectedNum) {
          throw new XrefUnreadable(`xref points to object ${header.num} instead of ${expectedNum}`);
        }
        return parser.readValue();
      })
    ).result;
  }

  private async parsedAt<T>(offset: number, parse: (parser: PdfParser) => T): Promise<{ result: T; bytes: Buffer; end: number }> {
    for (let length = FIRST_CHUNK; ; length *= 4) {
      const bytes = await readAt(this.handle, offset, Math.min(length, MAX_OBJECT_BYTES, this.size - offset));
      const parser = new PdfParser(bytes);
      try {
        const result = parse(parser);
        return { result, bytes, end: parser.position };
      } catch (error) {
        if (!(error instanceof PdfSyntaxIncomplete)) throw error;
        if (bytes.length >= MAX_OBJECT_BYTES || offset + bytes.length >= this.size) throw new XrefUnreadable(`object at ${offset} is incomplete or too large`);
      }
    }
  }

  private async section(offset: number): Promise<XrefSection> {
    const cached = this.sections.get(offset);
    if (cached) return cached;
    const head = (await readAt(this.handle, offset, 64)).toString('latin1');
    const section = /^\s*xref/.test(head) ? await this.tableSection(offset) : await this.streamSection(offset);
    this.sections.set(offset, section);
    return section;
  }

  /**
   * A classic table: subsections "first count" of 20-byte entries, then "trailer <<...>>". Entries are
   * located by arithmetic, so a table of millions of objects costs two small reads per lookup.
   */
  private async tableSection(offset: number): Promise<XrefSection> {
    const subsections: { first: number; count: number; entriesAt: number }[] = [];
    let position = offset + (await readAt(this.handle, offset, 64)).toString('latin1').indexOf('xref') + 4;
    for (let guard = 0; ; guard++) {
      if (guard > 100_000) throw new XrefUnreadable('too many xref subsections');
      const text = (await readAt(this.handle, position, 128)).toString('latin1');
      const trailer = /^\s*trailer/.exec(text);
      if (trailer) {
        position += trailer[0].length;
        break;
      }
      const header = /^\s*(\d+)[ \t]+(\d+)[ \t]*(\r\n|\r|\n)/.exec(text);
      if (!header) throw new XrefUnreadable(`bad xref subsection at ${position}`);
      const first = Number(header[1]);
      const count = Number(header[2]);
      const entriesAt = position + header[0].length;
      subsections.push({ first, count, entriesAt });
      position = entriesAt + count * 20;
      if (position > this.size) throw new XrefUnreadable('xref table runs past the end of the file');
    }
    const { result: trailerDict } = await this.parsedAt(position, (parser) => parser.readValue());
    if (!isDict(trailerDict)) throw new XrefUnreadable('trailer is not a dictionary');
    const handle = this.handle;
    return {
      trailer: trailerDict,
      async lookup(num: number): Promise<Location | undefined> {
        // Later subsections win over earlier ones for the same object.
        for (let i = subsections.length - 1; i >= 0; i--) {
          const { first, count, entriesAt } = subsections[i]!;
          if (num < first || num >= first + count) continue;
          const entry = (await readAt(handle, entriesAt + (num - first) * 20, 20)).toString('latin1');
          const match = /^(\d{10}) (\d{5}) ([nf])/.exec(entry);
          if (!match) throw new XrefUnreadable(`bad xref entry for object ${num}`);
          return match[3] === 'f' ? { type: 'free' } : { type: 'offset', offset: Number(match[1]) };
        }
        return undefined;
      },
    };
  }

  /** A cross-reference stream (PDF 1.5): its dictionary is the trailer, its data the entries. */
  private async streamSection(offset: number): Promise<XrefSection> {
    const { result, bytes, end } = await this.parsedAt(offset, (parser) => {
      parser.readObjectHeader();
      const dict = parser.readValue();
      if (!parser.acceptKeyword('stream')) throw new XrefUnreadable(`no xref table or stream at ${offset}`);
      return dict;
    });
    if (!isDict(result) || nameOf(result.entries.get('Type')) !== 'XRef') throw new XrefUnreadable(`no xref stream at ${offset}`);
    const dict = result;
    // The stream data begins after the EOL that follows "stream".
    let dataAt = offset + end;
    if (bytes[end] === 0x0d) dataAt++;
    if (bytes[dataAt - offset] === 0x0a) dataAt++;
    const length = numberOf(dict.entries.get('Length'));
    if (length === undefined || length < 0 || length > MAX_OBJECT_BYTES) throw new XrefUnreadable('xref stream without a usable /Length');
    const raw = await readAt(this.handle, dataAt, length);
    const data = decodeXrefStreamData(raw, dict);

    const widths = dict.entries.get('W');
    if (!Array.isArray(widths) || widths.length !== 3 || !widths.every((w) => typeof w === 'number' && w >= 0 && w <= 8)) {
      throw new XrefUnreadable('xref stream /W is unusable');
    }
    const [w1, w2, w3] = widths as [number, number, number];
    const rowLength = w1 + w2 + w3;
    const sizeValue = numberOf(dict.entries.get('Size')) ?? 0;
    const indexValue = dict.entries.get('Index');
    const index = Array.isArray(indexValue) ? indexValue.map((n) => numberOf(n) ?? 0) : [0, sizeValue];

    const field = (at: number, width: number): number => {
      let value = 0;
      for (let i = 0; i < width; i++) value = value * 256 + data[at + i]!;
      return value;
    };
    return {
      trailer: dict,
      async lookup(num: number): Promise<Location | undefined> {
        let row = 0;
        for (let i = 0; i + 1 < index.length; i += 2) {
          const first = index[i]!;
          const count = index[i + 1]!;
          if (num >= first && num < first + count) {
            const at = (row + num - first) * rowLength;
            if (at + rowLength > data.length) return undefined;
            const type = w1 === 0 ? 1 : field(at, w1);
            if (type === 0) return { type: 'free' };
            if (type === 2) return { type: 'compressed' };
            if (type === 1) return { type: 'offset', offset: field(at + w1, w2) };
            return undefined;
          }
          row += count;
        }
        return undefined;
      },
    };
  }
}

function decodeXrefStreamData(raw: Buffer, dict: PdfDict): Buffer {
  const filter = dict.entries.get('Filter');
  const filters = Array.isArray(filter) ? filter.map((f) => nameOf(f)) : filter === undefined || filter === null ? [] : [nameOf(filter)];
  let data = raw;
  for (const name of filters) {
    if (name !== 'FlateDecode') throw new XrefUnreadable(`xref stream filter ${name ?? '?'} not supported`);
    try {
      data = inflateSync(data, { maxOutputLength: MAX_OBJECT_BYTES });
    } catch (error) {
      throw new XrefUnreadable(`xref stream does not inflate: ${(error as Error).message}`);
    }
  }
  const parmsValue = dict.entries.get('DecodeParms');
  const parms = Array.isArray(parmsValue) ? parmsValue[0] : parmsValue;
  const predictor = isDict(parms) ? (numberOf(parms.entries.get('Predictor')) ?? 1) : 1;
  if (predictor < 10) {
    if (predictor !== 1) throw new XrefUnreadable(`predictor ${predictor} not supported`);
    return data;
  }
  const columns = isDict(parms) ? (numberOf(parms.entries.get('Columns')) ?? 1) : 1;
  return undoPngPredictor(data, columns);
}

/** PNG predictors (ISO 32000-1 §7.4.4.4) with one byte per pixel, as xref streams use them. */
function undoPngPredictor(data: Buffer, columns: number): Buffer {
  const rowLength = columns + 1;
  const rows = Math.floor(data.length / rowLength);
  const out = Buffer.alloc(rows * columns);
  for (let r = 0; r < rows; r++) {
    const type = data[r * rowLength]!;
    for (let c = 0; c < columns; c++) {
      const raw = data[r * rowLength + 1 + c]!;
      const left = c > 0 ? out[r * columns + c - 1]! : 0;
      const up = r > 0 ? out[(r - 1) * columns + c]! : 0;
      const upLeft = r > 0 && c > 0 ? out[(r - 1) * columns + c - 1]! : 0;
      const value = unpredictPngByte(type, raw, left, up, upLeft);
      if (value === undefined) throw new XrefUnreadable(`bad PNG predictor row type ${type}`);
      out[r * columns + c] = value;
    }
  }
  return out;
}

/**
 * Last resort for a file whose xref is broken: looks for an encryption dictionary naming `filter`
 * (e.g. "Adobe.PubSec") in the last 16 MiB and the first 1 MiB, and parses the object around it.
 * Returns `found` with the dictionary when it parses (direct values only), or `unreadable`.
 */
export async function scanForEncryptDictionary(file: string, filter: string): Promise<EncryptLookup> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const tailLength = Math.min(size, 16 * 1024 * 1024);
    const regions: [number, number][] = [[size - tailLength, tailLength]];
    if (size - tailLength > 0) regions.push([0, Math.min(1024 * 1024, size - tailLength)]);
    for (const [start, length] of regions) {
      const bytes = await readAt(handle, start, length);
      const needle = Buffer.from(`/${filter}`, 'latin1');
      for (let at = bytes.lastIndexOf(needle); at >= 0; at = at > 0 ? bytes.lastIndexOf(needle, at - 1) : -1) {
        // The nearest "N G obj" before the name starts the object that holds it.
        const before = bytes.toString('latin1', Math.max(0, at - 64 * 1024), at);
        const headers = [...before.matchAll(/(\d+)\s+(\d+)\s+obj\b/g)];
        const last = headers.at(-1);
        if (!last || last.index === undefined) continue;
        const objectAt = at - before.length + last.index;
        try {
          const parser = new PdfParser(bytes, objectAt);
          parser.readObjectHeader();
          const value = parser.readValue();
          if (isDict(value) && nameOf(value.entries.get('Filter')) === filter) return { status: 'found', dict: value };
        } catch {
          // try the next occurrence
        }
      }
    }
    return { status: 'unreadable', reason: `no /${filter} dictionary found by scanning` };
  } finally {
    await handle.close();
  }
}
