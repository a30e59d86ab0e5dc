import { readFileSync, statSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { constants, inflateSync } from 'node:zlib';

/**
 * A cheap look for PDF dictionary keys in a file's bytes, to skip a qpdf probe (a process start,
 * some milliseconds) when a key cannot be there: merging 99 documents should not cost 99 probes.
 *
 * Keys of objects inside compressed object streams are not in the raw bytes, so the object streams
 * (found by their never-compressed "/ObjStm" dictionaries) are inflated and searched too. Whenever
 * that is not possible (a filter other than plain Flate, an unusual layout, a damaged stream, a file
 * too large to read at once) the answer is "uncertain" and the caller asks qpdf. Content streams may
 * hold the bytes as well; that only costs a needless probe, never a wrong answer.
 */
export interface TokenScan {
  /** The keys whose bytes occur in the file or in its object streams. */
  found: Set<string>;
  /** Some object stream could not be searched: a key may hide there. */
  uncertain: boolean;
}

/** Files up to this size are read at once (object streams need random access). */
const WHOLE_FILE = 16 * 1024 * 1024;
/**
 * Files up to this size are read synchronously: an asynchronous read costs a thread-pool round trip
 * per call (open, stat, read, close), more CPU than reading a few KiB; blocking for that is shorter.
 */
const SYNC_READ = 256 * 1024;
const CHUNK = 1024 * 1024;
const OBJECT_STREAM = Buffer.from('/ObjStm', 'latin1');
/** Inflated object streams larger than this are not searched (uncertain instead). */
const MAX_INFLATED = 64 * 1024 * 1024;

export async function scanForKeys(file: string, keys: readonly string[], maxBytes = 64 * 1024 * 1024): Promise<TokenScan | undefined> {
  const size = statSync(file).size;
  if (size > maxBytes) return undefined;
  let bytes: Buffer;
  if (size <= SYNC_READ) bytes = readFileSync(file);
  else if (size <= WHOLE_FILE) bytes = await readFile(file);
  else {
    const handle = await open(file, 'r');
    try {
      return await scanChunks(handle, keys, size);
    } finally {
      await handle.close();
    }
  }
  const tokens = keys.map((key) => ({ key, bytes: Buffer.from(key, 'latin1') }));
  const found = new Set(tokens.filter((t) => bytes.includes(t.bytes)).map((t) => t.key));
  let uncertain = false;
  if (found.size < tokens.length) {
    for (let at = bytes.indexOf(OBJECT_STREAM); at >= 0 && !uncertain; at = bytes.indexOf(OBJECT_STREAM, at + 1)) {
      const content = objectStreamContent(bytes, at);
      if (content === undefined) uncertain = true;
      else for (const t of tokens) if (!found.has(t.key) && content.includes(t.bytes)) found.add(t.key);
    }
  }
  return { found, uncertain };
}

/** Whether `key` may be in the file (seen, or possibly hidden, or not scanned at all). */
export function mayContain(scan: TokenScan | undefined, key: string): boolean {
  return scan === undefined || scan.uncertain || scan.found.has(key);
}

/**
 * The inflated data of the object stream whose dictionary contains the "/ObjStm" at `at`, or
 * undefined when it cannot be had simply: the dictionary must name /FlateDecode as its only filter
 * and carry no predictor, and "stream" must follow it.
 */
function objectStreamContent(bytes: Buffer, at: number): Buffer | undefined {
  const objStart = bytes.lastIndexOf(' obj', at);
  const streamKeyword = bytes.indexOf('stream', at, 'latin1');
  if (objStart < 0 || streamKeyword < 0 || streamKeyword - objStart > 4096) return undefined;
  const dictionary = bytes.subarray(objStart, streamKeyword).toString('latin1');
  if (!/\/Filter\s*(\/FlateDecode|\[\s*\/FlateDecode\s*\])/.test(dictionary) || /\/DecodeParms/.test(dictionary)) return undefined;
  let start = streamKeyword + 'stream'.length;
  if (bytes[start] === 0x0d) start++;
  if (bytes[start] === 0x0a) start++;
  const end = bytes.indexOf('endstream', start, 'latin1');
  if (end < 0) return undefined;
  try {
    // Sync flush: trailing end-of-line bytes before "endstream" must not make inflate fail.
    return inflateSync(bytes.subarray(start, end), { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: MAX_INFLATED });
  } catch {
    return undefined;
  }
}

/** Larger files: the raw bytes only, chunk by chunk; any object stream makes the answer uncertain. */
async function scanChunks(handle: import('node:fs/promises').FileHandle, keys: readonly string[], size: number): Promise<TokenScan> {
  const tokens = [...keys.map((key) => ({ key, bytes: Buffer.from(key, 'latin1') })), { key: '/ObjStm', bytes: OBJECT_STREAM }];
  const overlap = Math.max(...tokens.map((t) => t.bytes.length)) - 1;
  const found = new Set<string>();
  const buffer = Buffer.allocUnsafe(CHUNK + overlap);
  let carried = 0;
  for (let position = 0; position < size; ) {
    const { bytesRead } = await handle.read(buffer, carried, CHUNK, position);
    if (bytesRead === 0) break;
    const length = carried + bytesRead;
    const window = buffer.subarray(0, length);
    for (const token of tokens) if (!found.has(token.key) && window.includes(token.bytes)) found.add(token.key);
    // Keep the tail so that a key split across two reads is still seen.
    carried = Math.min(overlap, length);
    window.copy(buffer, 0, length - carried, length);
    position += bytesRead;
  }
  const uncertain = found.delete('/ObjStm');
  return { found, uncertain };
}
