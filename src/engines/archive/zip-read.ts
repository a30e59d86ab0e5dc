import { Transform } from 'node:stream';
import type { Readable, TransformCallback } from 'node:stream';
import { finished } from 'node:stream/promises';
import { crc32, createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';
import { ArchiveError, quoteName } from './errors.js';
import { BufferedFileReader } from './file-reader.js';
import { compileFilter } from './filter.js';
import type { CompiledFilter, FileFilter } from './filter.js';
import { ARCHIVE_SIGNATURE_BYTES, MAX_ENTRY_NAME_LENGTH, archiveSignature, isArchiveName, isDirectoryName, isZipDocumentName, unsafeNameReason } from './names.js';

/**
 * Reading ZIP archives (yauzl underneath): listing from the central directory, and extraction with
 * the defences an upload from anybody needs (zip-slip names, zip bombs, lying headers, nested
 * archives, encryption, corruption). Everything streams; memory does not grow with member sizes.
 *
 * What the central directory declares is checked before a byte is handed out, and the same limits are
 * enforced again on the bytes that actually come out, so a lying directory cannot get past them.
 */

export interface ArchiveEntry {
  /** The member path as stored (`/`-separated; a directory ends with `/`). */
  path: string;
  /** Declared uncompressed size in bytes. */
  size: number;
  /** Stored (compressed) size in bytes. */
  compressedSize: number;
  /** Last modification, epoch milliseconds (DOS times read in the server's time zone, extended timestamps exactly). */
  lastModified: number;
  isDirectory: boolean;
  encrypted: boolean;
}

export interface ArchiveListing {
  entries: ArchiveEntry[];
  /** True when the archive has more entries than were listed. */
  truncated: boolean;
  /** Number of entries the archive declares. */
  totalEntries: number;
}

export interface ArchiveLimits {
  /** Entries (files and directories) an archive may have at all. */
  maxEntries: number;
  /** Uncompressed bytes of one member. */
  maxEntryBytes: number;
  /** Uncompressed bytes of all selected members together. */
  maxTotalBytes: number;
  /** Highest uncompressed:compressed ratio of a member larger than `ratioMinBytes`. */
  maxRatio: number;
  /** Members up to this uncompressed size are not ratio-checked (small text compresses very well). */
  ratioMinBytes: number;
  /** Whether members may themselves be archives (checked by name and by their first bytes). */
  allowNested: boolean;
}

const MiB = 1024 * 1024;

/** Defaults; a caller should lower the byte limits to what the session may still store. */
export const DEFAULT_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxEntries: 10_000,
  maxEntryBytes: 512 * MiB,
  maxTotalBytes: 2048 * MiB,
  maxRatio: 200,
  ratioMinBytes: 1 * MiB,
  allowNested: false,
});

export const DEFAULT_LIST_MAX_ENTRIES = 10_000;

export function resolveLimits(limits?: Partial<ArchiveLimits>): ArchiveLimits {
  const resolved = { ...DEFAULT_ARCHIVE_LIMITS };
  for (const [key, value] of Object.entries(limits ?? {})) {
    if (value !== undefined) (resolved as Record<string, unknown>)[key] = value;
  }
  return resolved;
}

export interface ExtractOptions {
  /** Which members to extract (directories are never handed out); none or `{}` selects all files. */
  filter?: FileFilter | CompiledFilter | null;
  limits?: Partial<ArchiveLimits>;
  /**
   * Called once after the whole archive has been validated and before the first member is handed
   * out, with the selected members: the place to check quotas (file count, disk space) and to
   * reserve them. Throwing here aborts with nothing extracted.
   */
  onPlan?: (entries: ArchiveEntry[]) => void | Promise<void>;
  /**
   * Called for each selected file member in archive order, one at a time. It must read `content` to
   * its end (e.g. pipe it into a file) and resolve; content errors (CRC mismatch, more bytes than
   * declared, limits) arrive as an `ArchiveError` on the stream and are rethrown by `extractEntries`.
   */
  onEntry: (entry: ArchiveEntry, content: Readable) => Promise<void>;
}

export interface ExtractResult {
  entries: ArchiveEntry[];
  /** Uncompressed bytes handed out. */
  totalBytes: number;
}

export interface OpenedEntry {
  entry: ArchiveEntry;
  /** The member's content; read it to the end or destroy it, which releases the archive file. */
  stream: Readable;
}

interface ScannedEntry {
  info: ArchiveEntry;
  raw: yauzl.Entry;
}

/**
 * Lists the members from the central directory (no decompression), at most `maxEntries` of them.
 * Names are data here and are not judged, except that a name longer than 1024 characters throws
 * `ArchiveError('unsafePath')` (it keeps memory bounded; such an archive cannot be extracted anyway).
 */
export async function listEntries(zipFile: string, options?: { maxEntries?: number }): Promise<ArchiveListing> {
  const maxEntries = options?.maxEntries ?? DEFAULT_LIST_MAX_ENTRIES;
  const zip = await openZip(zipFile);
  try {
    const entries: ArchiveEntry[] = [];
    if (maxEntries > 0) {
      for await (const raw of readEntries(zip)) {
        entries.push(describe(raw).info);
        if (entries.length >= maxEntries) break;
      }
    }
    return { entries, truncated: zip.entryCount > entries.length, totalEntries: zip.entryCount };
  } finally {
    zip.close();
  }
}

/**
 * Extracts the selected members: validates the whole archive first (entry count, every name,
 * duplicates, overlapping members, and for the selected members encryption, compression method,
 * declared sizes, ratio, nesting by name and by first bytes), then streams each selected file to
 * `onEntry`. A failure while streaming (corrupt data, a lying size) can only show up after earlier
 * members were handed out: the caller must treat them as provisional until this resolves.
 */
export async function extractEntries(zipFile: string, options: ExtractOptions): Promise<ExtractResult> {
  const limits = resolveLimits(options.limits);
  const filter = isCompiledFilter(options.filter) ? options.filter : compileFilter(options.filter);
  const zip = await openZip(zipFile);
  try {
    const scanned = await scanArchive(zip, limits);
    const files = scanned.filter((entry) => !entry.info.isDirectory);
    const chosen = filter.select(files.map((entry) => entry.info.path));
    const selected = files.filter((_, index) => chosen[index]);
    checkMembers(selected, limits);
    if (!limits.allowNested) {
      for (const entry of selected) await checkNestedContent(zip, entry);
    }
    const plan = selected.map((entry) => entry.info);
    await options.onPlan?.(plan);
    let totalBytes = 0;
    for (const entry of selected) {
      totalBytes += await streamEntry(zip, entry, limits, totalBytes, options.onEntry);
    }
    return { entries: plan, totalBytes };
  } finally {
    zip.close();
  }
}

/**
 * Opens one member by its exact path (as listed; `/`-separated, no wildcards) with the same checks
 * as extraction: the archive's entry count, names and duplicates, and for the member encryption,
 * method, size, ratio and nesting.
 */
export async function openEntry(zipFile: string, path: string, limits?: Partial<ArchiveLimits>): Promise<OpenedEntry> {
  const resolved = resolveLimits(limits);
  const zip = await openZip(zipFile);
  try {
    const scanned = await scanArchive(zip, resolved);
    const found = scanned.find((entry) => entry.info.path === path && !entry.info.isDirectory);
    if (found === undefined) {
      const directory = scanned.some((entry) => entry.info.path === path || entry.info.path === `${path}/`);
      throw new ArchiveError('notFound', directory ? `archive entry ${quoteName(path)} is a directory` : `no archive entry ${quoteName(path)}`, { entryName: path });
    }
    checkMembers([found], resolved);
    if (!resolved.allowNested) await checkNestedContent(zip, found);
    const source = await openContent(zip, found);
    const guard = new EntryGuard(found, resolved, 0);
    connect(source, guard, found.info.path);
    return { entry: found.info, stream: guard };
  } finally {
    // Open streams keep their own reference on the file; it is closed when the last one ends.
    zip.close();
  }
}

// ---------------------------------------------------------------------------------------------------

function isCompiledFilter(filter: unknown): filter is CompiledFilter {
  return typeof filter === 'object' && filter !== null && typeof (filter as CompiledFilter).select === 'function';
}

async function openZip(zipFile: string): Promise<yauzl.ZipFile> {
  const reader = await BufferedFileReader.open(zipFile);
  // A failure to close the descriptor would otherwise be an unhandled 'error' event.
  reader.on('error', () => undefined);
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromRandomAccessReaderPromise(reader, reader.size, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true });
  } catch (error) {
    // yauzl took a reference before it failed: release it, which closes the file.
    reader.unref();
    throw toArchiveError(error);
  }
  // An error from closing the file would otherwise be an unhandled 'error' event.
  zip.on('error', () => undefined);
  return zip;
}

/** The central directory entries, errors mapped. */
async function* readEntries(zip: yauzl.ZipFile): AsyncGenerator<yauzl.Entry> {
  const iterator = zip.eachEntry();
  try {
    while (true) {
      let next: IteratorResult<yauzl.Entry>;
      try {
        next = await iterator.next();
      } catch (error) {
        throw toArchiveError(error);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}

const EMPTY = Buffer.alloc(0);

/** Decodes and checks the name and keeps only what reading the member needs. Names over the length limit throw. */
function describe(raw: yauzl.Entry): ScannedEntry {
  // decodeStrings is off so that yauzl neither rewrites backslashes nor rejects names with a plain
  // Error: the name is decoded here (UTF-8 flag, Info-ZIP Unicode path field, else CP437) and judged
  // by unsafeNameReason.
  const path = yauzl.getFileNameLowLevel(raw.generalPurposeBitFlag, raw.fileNameRaw, raw.extraFields, true);
  if (path.length > MAX_ENTRY_NAME_LENGTH) {
    // Also bounds what a listing holds: a central directory may carry names of up to 64 KiB each.
    throw new ArchiveError('unsafePath', `unsafe archive entry name ${quoteName(path)}: name longer than ${MAX_ENTRY_NAME_LENGTH} characters`, { entryName: path });
  }
  const lastModified = raw.getLastModDate().getTime();
  // Drop the raw name, extra field and comment (up to 64 KiB each): reading the data needs none of
  // them, and a scan keeps up to maxEntries entries.
  raw.fileNameRaw = EMPTY;
  raw.extraFieldRaw = EMPTY;
  raw.fileCommentRaw = EMPTY;
  raw.extraFields = [];
  raw.comment = '';
  raw.fileComment = '';
  return {
    raw,
    info: {
      path,
      size: raw.uncompressedSize,
      compressedSize: raw.compressedSize,
      lastModified: Number.isFinite(lastModified) ? lastModified : 0,
      isDirectory: isDirectoryName(path),
      encrypted: raw.isEncrypted(),
    },
  };
}

/** Archive-wide checks: entry count, every name, duplicates, overlapping members. */
async function scanArchive(zip: yauzl.ZipFile, limits: ArchiveLimits): Promise<ScannedEntry[]> {
  if (zip.entryCount > limits.maxEntries) {
    throw new ArchiveError('tooManyEntries', `the archive has ${zip.entryCount} entries; at most ${limits.maxEntries} are allowed`);
  }
  const scanned: ScannedEntry[] = [];
  const files = new Set<string>();
  for await (const raw of readEntries(zip)) {
    const entry = describe(raw);
    const { path } = entry.info;
    const reason = unsafeNameReason(path);
    if (reason !== undefined) throw new ArchiveError('unsafePath', `unsafe archive entry name ${quoteName(path)}: ${reason}`, { entryName: path });
    if (!entry.info.isDirectory) {
      if (files.has(path)) throw new ArchiveError('duplicate', `the archive contains the entry ${quoteName(path)} more than once`, { entryName: path });
      files.add(path);
    }
    scanned.push(entry);
    if (scanned.length > limits.maxEntries) {
      throw new ArchiveError('tooManyEntries', `the archive has more than ${limits.maxEntries} entries`);
    }
  }
  checkOverlap(scanned);
  return scanned;
}

/** Size of a local file header without name and extra field: a lower bound of its real size. */
const LOCAL_HEADER_FIXED_SIZE = 30;

/**
 * Members whose data overlap are the trick of the non-recursive zip bombs (many directory entries
 * pointing at one highly compressed kernel); no honest writer produces them.
 */
function checkOverlap(scanned: ScannedEntry[]): void {
  const byOffset = scanned.filter((entry) => !entry.info.isDirectory || entry.raw.compressedSize > 0).sort((a, b) => a.raw.relativeOffsetOfLocalHeader - b.raw.relativeOffsetOfLocalHeader);
  for (let i = 1; i < byOffset.length; i++) {
    const previous = byOffset[i - 1]!;
    const current = byOffset[i]!;
    const previousEnd = previous.raw.relativeOffsetOfLocalHeader + LOCAL_HEADER_FIXED_SIZE + previous.raw.compressedSize;
    if (current.raw.relativeOffsetOfLocalHeader < previousEnd) {
      throw new ArchiveError('corrupt', `archive entries ${quoteName(previous.info.path)} and ${quoteName(current.info.path)} overlap`, { entryName: current.info.path });
    }
  }
}

const UNIX_HOST = 3;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** Member checks on what the central directory declares. */
function checkMembers(selected: ScannedEntry[], limits: ArchiveLimits): void {
  let total = 0;
  for (const { info, raw } of selected) {
    const name = quoteName(info.path);
    const about = { entryName: info.path };
    if (raw.isEncrypted()) throw new ArchiveError('encrypted', `archive entry ${name} is encrypted; encrypted archives are not supported`, about);
    if (raw.compressionMethod !== 0 && raw.compressionMethod !== 8) {
      throw new ArchiveError('unsupported', `archive entry ${name} uses compression method ${raw.compressionMethod}; only stored and deflated entries are supported`, about);
    }
    if (raw.versionMadeBy >> 8 === UNIX_HOST && ((raw.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) {
      throw new ArchiveError('unsupported', `archive entry ${name} is a symbolic link; links are not extracted`, about);
    }
    if (!limits.allowNested && isArchiveName(info.path)) {
      throw new ArchiveError('nested', `archive entry ${name} is itself an archive; nested archives are not allowed`, about);
    }
    if (info.size > limits.ratioMinBytes && info.size / Math.max(info.compressedSize, 1) > limits.maxRatio) {
      const ratio = Math.round(info.size / Math.max(info.compressedSize, 1));
      throw new ArchiveError('ratio', `archive entry ${name} has a compression ratio of ${ratio}:1; at most ${limits.maxRatio}:1 is allowed`, about);
    }
    if (info.size > limits.maxEntryBytes) {
      throw new ArchiveError('tooLarge', `archive entry ${name} has ${info.size} bytes uncompressed; at most ${limits.maxEntryBytes} are allowed per entry`, about);
    }
    total += info.size;
    if (total > limits.maxTotalBytes) {
      throw new ArchiveError('tooLarge', `the selected archive entries have more than ${limits.maxTotalBytes} bytes uncompressed`, about);
    }
  }
}

/** A member whose first bytes are an archive signature is a nested archive, unless it is a zip-based document by name. */
async function checkNestedContent(zip: yauzl.ZipFile, entry: ScannedEntry): Promise<void> {
  if (entry.info.size === 0) return;
  const head = await readHead(zip, entry, ARCHIVE_SIGNATURE_BYTES);
  const signature = archiveSignature(head);
  if (signature === undefined) return;
  if (signature === 'zip' && isZipDocumentName(entry.info.path)) return;
  throw new ArchiveError('nested', `archive entry ${quoteName(entry.info.path)} is itself an archive (${signature} content); nested archives are not allowed`, { entryName: entry.info.path });
}

async function readHead(zip: yauzl.ZipFile, entry: ScannedEntry, length: number): Promise<Buffer> {
  const stream = await openContent(zip, entry);
  const chunks: Buffer[] = [];
  let have = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      have += (chunk as Buffer).length;
      // The first inflated buffer may already show that the header lies about the size.
      if (have > entry.info.size) {
        throw new ArchiveError('sizeMismatch', `archive entry ${quoteName(entry.info.path)} inflates to more than the ${entry.info.size} bytes its header declares`, { entryName: entry.info.path });
      }
      if (have >= length) break;
    }
  } catch (error) {
    throw toArchiveError(error, entry.info.path);
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, length);
}

/** Output buffer of the inflater: zlib makes one thread-pool round trip per buffer, so 16 KiB (the default) is slow. */
const INFLATE_CHUNK = 256 * 1024;

/**
 * The member's uncompressed content. yauzl hands out the raw (stored or deflated) bytes and the
 * inflating happens here, with bigger buffers than yauzl's (about 2.5 times faster); the byte count
 * against the declared size is the EntryGuard's job.
 */
async function openContent(zip: yauzl.ZipFile, entry: ScannedEntry): Promise<Readable> {
  let raw: Readable;
  try {
    raw = await zip.openReadStreamPromise(entry.raw, { decodeFileData: false });
  } catch (error) {
    throw toArchiveError(error, entry.info.path);
  }
  if (entry.raw.compressionMethod === 0) return raw;
  const inflate = createInflateRaw({ chunkSize: INFLATE_CHUNK });
  raw.on('error', (error) => inflate.destroy(error));
  inflate.on('close', () => {
    if (!raw.destroyed) raw.destroy();
  });
  return raw.pipe(inflate);
}

/** Pipes yauzl's stream into the guard; yauzl's errors reach the guard as ArchiveErrors, and closing the guard releases the source. */
function connect(source: Readable, guard: EntryGuard, entryName: string): void {
  source.on('error', (error) => {
    const mapped = toArchiveError(error, entryName);
    guard.fail(mapped instanceof Error ? mapped : error);
  });
  guard.on('close', () => {
    if (!source.destroyed) source.destroy();
  });
  source.pipe(guard);
}

async function streamEntry(zip: yauzl.ZipFile, entry: ScannedEntry, limits: ArchiveLimits, totalBefore: number, onEntry: ExtractOptions['onEntry']): Promise<number> {
  const source = await openContent(zip, entry);
  const guard = new EntryGuard(entry, limits, totalBefore);
  connect(source, guard, entry.info.path);
  try {
    await onEntry(entry.info, guard);
    // A consumer may resolve while its reading is still under way (piped, resumed): wait for the end.
    if (!guard.completed && guard.failure === undefined && guard.readableFlowing === true) {
      await finished(guard).catch(() => undefined);
    }
  } catch (error) {
    throw guard.failure ?? error;
  } finally {
    if (!guard.completed) guard.destroy();
  }
  if (guard.failure) throw guard.failure;
  if (!guard.completed) throw new Error(`onEntry for ${quoteName(entry.info.path)} resolved without reading the content to its end`);
  return guard.bytes;
}

/**
 * Sits between yauzl and the consumer: counts the bytes that really come out and refuses more than
 * declared (or than the limits), fewer than declared, and a CRC-32 that does not match the central
 * directory (yauzl does not check CRCs). Errors are emitted before the consumer sees a bad byte
 * beyond the declared size.
 */
class EntryGuard extends Transform {
  bytes = 0;
  completed = false;
  /** The first error of this member: an ArchiveError, or a file system error while reading. */
  failure: Error | undefined;
  private crc = 0;

  constructor(
    private readonly entry: ScannedEntry,
    private readonly limits: ArchiveLimits,
    private readonly totalBefore: number,
  ) {
    super();
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.destroy(this.failure);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    const { info } = this.entry;
    const name = quoteName(info.path);
    const about = { entryName: info.path };
    let error: ArchiveError | undefined;
    if (this.bytes > info.size) {
      error = new ArchiveError('sizeMismatch', `archive entry ${name} inflates to more than the ${info.size} bytes its header declares`, about);
    } else if (this.bytes > this.limits.maxEntryBytes) {
      error = new ArchiveError('tooLarge', `archive entry ${name} has more than ${this.limits.maxEntryBytes} bytes uncompressed`, about);
    } else if (this.totalBefore + this.bytes > this.limits.maxTotalBytes) {
      error = new ArchiveError('tooLarge', `the extracted archive entries have more than ${this.limits.maxTotalBytes} bytes uncompressed`, about);
    }
    if (error !== undefined) {
      this.failure ??= error;
      callback(this.failure);
      return;
    }
    // zlib.crc32 of an empty buffer is 0 whatever the running value: skip empty chunks.
    if (chunk.length > 0) this.crc = crc32(chunk, this.crc);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    const { info, raw } = this.entry;
    const name = quoteName(info.path);
    const about = { entryName: info.path };
    if (this.bytes !== info.size) {
      this.failure ??= new ArchiveError('sizeMismatch', `archive entry ${name} has ${this.bytes} bytes, not the ${info.size} its header declares`, about);
    } else if (this.crc !== raw.crc32) {
      this.failure ??= new ArchiveError('corrupt', `archive entry ${name} fails its CRC-32 check`, about);
    }
    if (this.failure) {
      callback(this.failure);
      return;
    }
    this.completed = true;
    callback();
  }
}

/** yauzl's and zlib's plain errors → ArchiveError; errors of the file system (ENOENT, EACCES, EMFILE ...) pass unchanged. */
function toArchiveError(error: unknown, entryName?: string): unknown {
  if (error instanceof ArchiveError) return error;
  if (!(error instanceof Error)) return error;
  if (typeof (error as NodeJS.ErrnoException).syscall === 'string') return error;
  const message = error.message;
  const where = entryName === undefined ? 'the archive' : `archive entry ${quoteName(entryName)}`;
  const about = { entryName, cause: error };
  if (/too many bytes in the stream|not enough bytes in the stream|size mismatch/.test(message)) {
    return new ArchiveError('sizeMismatch', `${where} does not match its declared size (${message})`, about);
  }
  if (/encrypt/i.test(message)) return new ArchiveError('encrypted', `${where} is encrypted; encrypted archives are not supported`, about);
  if (/multi-disk|compression method/.test(message)) return new ArchiveError('unsupported', `${where} is not supported: ${message}`, about);
  return new ArchiveError('corrupt', `${where} is not a readable ZIP file: ${message}`, about);
}
