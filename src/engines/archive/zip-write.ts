import { createReadStream } from 'node:fs';
import type { ReadStream, Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Transform } from 'node:stream';
import type { TransformCallback, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import yazl from 'yazl';
import { ArchiveError, quoteName } from './errors.js';
import { isCompressedType, isDirectoryName, unsafeNameReason } from './names.js';
import { mapLimited } from '../../core/map-limited.js';

/**
 * Writing ZIP archives with yazl, streaming: one member file is open at a time and memory holds only
 * the central directory. ZIP64 structures are used automatically where needed (a member or an
 * offset at or beyond 4 GiB, 65535 entries or more). Already compressed types (PDF, JPEG, PNG,
 * archives, OOXML/ODF, ...) are STOREd, everything else DEFLATEd.
 *
 * Two steps, so that an HTTP caller can still answer with an error: `prepareZip` checks the names
 * and stats every source without touching any destination; `write` then streams, and a failure
 * from there on destroys the destination. `writeZip` does both.
 *
 * Cost: about 2 s per GiB of deflated input (zlib level 6); yazl's bookkeeping grows with the
 * square of the entry count (10,000 small members ≈ 2 s, 70,000 ≈ 35 s), so callers should cap the
 * number of members.
 */

export interface ZipSource {
  /** The member name: a safe relative path (see unsafeNameReason); make names unique with uniqueEntryNames. */
  name: string;
  /** Path of the file whose content becomes the member. */
  file: string;
  /** Modification time recorded in the archive; default: the file's mtime. */
  mtime?: Date;
}

export interface WriteZipOptions {
  /** zlib level for deflated members (default 6). */
  compressionLevel?: number;
  /** Aborts the write; the destination is destroyed with the abort reason. */
  signal?: AbortSignal;
}

export interface WriteZipResult {
  /** Bytes written to the destination. */
  bytes: number;
  entries: number;
}

export interface PreparedZip {
  readonly entries: number;
  /** Sum of the sources' sizes. */
  readonly uncompressedBytes: number;
  /**
   * Streams the archive into `destination`; resolves when the destination has finished (all bytes
   * flushed). On failure (a source that vanished or changed size, a destination error, an abort)
   * the zip is abandoned, the destination destroyed and the promise rejects; the caller removes
   * what was written. Call once.
   */
  write(destination: Writable, options?: WriteZipOptions): Promise<WriteZipResult>;
}

/** Members this large get ZIP64 headers up front: a deflated member can come out slightly larger than its input. */
const FORCE_ZIP64_FROM = 0xf000_0000;
const FILE_MODE = 0o100644;
const STAT_CONCURRENCY = 16;
const READ_CHUNK = 1024 * 1024;

/**
 * Checks the member names (unsafe → `ArchiveError('unsafePath')`, exact duplicates →
 * `ArchiveError('duplicate')`) and stats every source (a missing one rejects with the file system
 * error). Nothing is written.
 */
export async function prepareZip(sources: readonly ZipSource[]): Promise<PreparedZip> {
  const seen = new Set<string>();
  for (const { name } of sources) {
    const reason = unsafeNameReason(name) ?? (isDirectoryName(name) ? 'a file member cannot end with /' : undefined);
    if (reason !== undefined) throw new ArchiveError('unsafePath', `cannot add ${quoteName(name)} to an archive: ${reason}`, { entryName: name });
    if (seen.has(name)) throw new ArchiveError('duplicate', `the archive would contain ${quoteName(name)} twice`, { entryName: name });
    seen.add(name);
  }
  const stats = await mapLimited(sources, STAT_CONCURRENCY, (source) => stat(source.file));
  stats.forEach((info, index) => {
    if (!info.isFile()) throw new Error(`not a regular file: ${sources[index]!.file}`);
  });
  let used = false;
  return {
    entries: sources.length,
    uncompressedBytes: stats.reduce((sum, info) => sum + info.size, 0),
    write: async (destination, options) => {
      if (used) throw new Error('a prepared zip can be written once');
      used = true;
      return await stream(sources, stats, destination, options);
    },
  };
}

/** `prepareZip` + `write`: if it rejects before writing (names, missing sources), the destination is left untouched. */
export async function writeZip(sources: readonly ZipSource[], destination: Writable, options?: WriteZipOptions): Promise<WriteZipResult> {
  options?.signal?.throwIfAborted();
  const prepared = await prepareZip(sources);
  return await prepared.write(destination, options);
}

async function stream(sources: readonly ZipSource[], stats: Stats[], destination: Writable, options?: WriteZipOptions): Promise<WriteZipResult> {
  options?.signal?.throwIfAborted();
  useNativeCrc32();
  const zip = new yazl.ZipFile();
  const output = zip.outputStream as unknown as NodeJS.ReadableStream & { destroy(error?: Error): void };
  // yazl reports failures (a size that changed) on the ZipFile, not on its output stream: route
  // them there so the pipeline rejects instead of waiting forever.
  zip.on('error', (error: Error) => output.destroy(error));
  const counter = new ByteCounter();
  let current: ReadStream | undefined;

  sources.forEach((source, index) => {
    const info = stats[index]!;
    const compress = !isCompressedType(source.name);
    const memberOptions: Partial<yazl.ReadStreamOptions> = {
      size: info.size,
      mtime: source.mtime ?? info.mtime,
      mode: FILE_MODE,
      compress,
      forceZip64Format: info.size >= FORCE_ZIP64_FROM,
    };
    if (compress && options?.compressionLevel !== undefined) memberOptions.compressionLevel = options.compressionLevel;
    // Lazy: the file is opened when its turn comes, so one source is open at a time. yazl does not
    // listen for errors on a lazily supplied stream; without this a read error would crash the process.
    zip.addReadStreamLazy(source.name, memberOptions, (callback) => {
      current = createReadStream(source.file, { highWaterMark: READ_CHUNK });
      current.on('error', (error) => output.destroy(error));
      callback(null, current);
    });
  });
  zip.end();

  try {
    await pipeline(output, counter, destination, options?.signal ? { signal: options.signal } : {});
  } catch (error) {
    current?.destroy();
    throw error;
  }
  return { bytes: counter.bytes, entries: sources.length };
}

class ByteCounter extends Transform {
  bytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    callback(null, chunk);
  }
}

type Crc32Function = (data: unknown, previous?: unknown) => number;
let nativeCrcInstalled = false;

/**
 * yazl computes CRC-32 with buffer-crc32, a table-driven JavaScript loop (about 5 s per GiB on the
 * main thread, the bottleneck of large archives); node's zlib.crc32 is native (about 0.6 s per GiB)
 * and computes the same function. This points the `unsigned` function of yazl's own copy of
 * buffer-crc32 at it, for the call shape yazl uses (Buffer, numeric previous value); any other call
 * goes to the original. It checks the two agree first and leaves things alone if anything differs.
 */
export function useNativeCrc32(): boolean {
  if (nativeCrcInstalled) return true;
  try {
    const requireFromYazl = createRequire(createRequire(import.meta.url).resolve('yazl'));
    const module = requireFromYazl('buffer-crc32') as { unsigned: Crc32Function };
    const original = module.unsigned;
    const probe = Buffer.from('Quire checks that both CRC-32 functions agree \u00ff\u0000', 'latin1');
    if (original(probe) !== crc32(probe) || original(probe, 0x9e3779b9) !== crc32(probe, 0x9e3779b9)) return false;
    module.unsigned = function unsigned(this: unknown, data: unknown, previous?: unknown): number {
      if (Buffer.isBuffer(data) && (previous === undefined || typeof previous === 'number')) {
        // zlib.crc32 of an empty buffer is 0 whatever the previous value; the CRC of nothing more is the previous value.
        return data.length === 0 ? (previous ?? 0) >>> 0 : crc32(data, previous ?? 0);
      }
      return original.call(this, data, previous);
    };
    nativeCrcInstalled = true;
  } catch {
    // Keep yazl's JavaScript CRC.
  }
  return nativeCrcInstalled;
}
