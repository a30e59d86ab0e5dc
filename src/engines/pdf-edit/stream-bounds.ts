import { constants, inflateSync } from 'node:zlib';
import { decodePDFRawStream, type PDFRawStream } from '@cantoo/pdf-lib';

/**
 * Bounds on what decoding a PDF's streams may produce in this process. Flate reaches ratios of about
 * 1000:1, so a 600 KB object stream expanded to 600 MB inside pdf-lib's loader and held the event
 * loop for 8 s (issue 11: in-process parsers need size limits). pdf-lib decodes every object stream
 * when it loads a file, whole, so those are measured first with a bounded inflate; content streams
 * are decoded through `decodeBounded`.
 */
export class StreamTooLargeError extends Error {}

/** Decoded bytes one stream may have (content streams, forms, images decoded in-process). */
export const MAX_DECODED_STREAM_BYTES = 256 * 1024 * 1024;

/**
 * What all object streams of a file may expand to: generous for real files (object streams
 * compress 3–10:1), far below what a bomb makes.
 */
export function objectStreamBudget(fileBytes: number): number {
  return Math.min(512 * 1024 * 1024, 64 * 1024 * 1024 + 16 * fileBytes);
}

const OBJECT_STREAM = Buffer.from('/ObjStm', 'latin1');
/** Compressed bytes of a non-Flate object stream whose worst case (LZW, ~1:3000) stays within the budget is let through. */
const WORST_OTHER_RATIO = 3000;

/**
 * Throws StreamTooLargeError when the file's object streams (found by their "/ObjStm" dictionaries,
 * which are never compressed) would expand beyond `budget` bytes together. Object streams this scan
 * cannot delimit are left to pdf-lib, which skips what it cannot parse.
 */
export function checkObjectStreams(bytes: Buffer, budget = objectStreamBudget(bytes.length)): void {
  let left = budget;
  for (let at = bytes.indexOf(OBJECT_STREAM); at >= 0; at = bytes.indexOf(OBJECT_STREAM, at + OBJECT_STREAM.length)) {
    const objStart = bytes.lastIndexOf(' obj', at);
    const keyword = bytes.indexOf('stream', at, 'latin1');
    if (objStart < 0 || keyword < 0 || keyword - objStart > 4096) continue;
    const dictionary = bytes.subarray(objStart, keyword).toString('latin1');
    let start = keyword + 'stream'.length;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] === 0x0a) start++;
    let end = bytes.indexOf('endstream', start, 'latin1');
    if (end < 0) end = bytes.length;
    const data = bytes.subarray(start, end);
    const filters = [...(/\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(dictionary)?.[1] ?? '').matchAll(/\/([A-Za-z0-9]+)/g)].map((m) => m[1]);
    let size: number;
    if (filters.length === 0) size = data.length;
    else if (filters.length === 1 && (filters[0] === 'FlateDecode' || filters[0] === 'Fl')) size = inflatedSize(data, left);
    else size = data.length * WORST_OTHER_RATIO;
    left -= size;
    if (left < 0) throw new StreamTooLargeError(`its object streams expand to more than ${mib(budget)} MB (a decompression bomb)`);
  }
}

/** The inflated size of Flate data, at most `limit + 1` (decoding stops there). */
function inflatedSize(data: Uint8Array, limit: number): number {
  try {
    return inflateSync(data, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: Math.max(1, limit) }).length;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) return limit + 1;
    return 0; // damaged data: pdf-lib fails on it (or skips it) by itself
  }
}

/**
 * A stream's decoded bytes with pdf-lib's decoders, read in slices so that decoding stops once
 * `limit` is passed (pdf-lib's own `decode()` expands everything first).
 */
export function decodeBounded(stream: PDFRawStream, limit = MAX_DECODED_STREAM_BYTES): Uint8Array {
  const decoder = decodePDFRawStream(stream);
  const slices: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const slice = decoder.getBytes(SLICE);
    if (slice.length === 0) break;
    total += slice.length;
    if (total > limit) throw new StreamTooLargeError(`a stream expands to more than ${mib(limit)} MB`);
    // getBytes may return a view of the decoder's buffer, which later reads can replace.
    slices.push(new Uint8Array(slice));
    if (slice.length < SLICE) break;
  }
  return Buffer.concat(slices, total);
}

const SLICE = 1024 * 1024;

/** zlib inflate with the same bound (and tolerance of truncated data as `finishFlush` allows). */
export function inflateBounded(data: Uint8Array, options: { finishFlush?: number } = {}, limit = MAX_DECODED_STREAM_BYTES): Buffer {
  try {
    return inflateSync(data, { ...options, maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new StreamTooLargeError(`a stream expands to more than ${mib(limit)} MB`);
    throw error;
  }
}

function mib(bytes: number): number {
  return Math.round(bytes / (1024 * 1024));
}
