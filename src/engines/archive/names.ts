/**
 * Entry names: what a safe member name is, unique names for a new archive, and the name-based
 * classifications (nested archives, zip-based documents, already compressed types).
 */

/** Longest entry name accepted, in UTF-16 code units (also the longest name a filter regex runs on). */
export const MAX_ENTRY_NAME_LENGTH = 1024;

/**
 * Why `name` is not a safe relative member path, or undefined when it is.
 *
 * A safe name is non-empty, at most {@link MAX_ENTRY_NAME_LENGTH} long, has no control characters
 * (C0, DEL, C1; NUL included) and no backslash, is not absolute (`/x`, `C:x`, `C:\x`), and every `/`-separated
 * segment is a real name: no `..`, no `.`, no empty segment (`a//b`). A single trailing `/` marks a
 * directory. This is stricter than zip-slip needs (`.` and empty segments are harmless) so that one
 * member has exactly one spelling and duplicate detection is meaningful.
 */
export function unsafeNameReason(name: string): string | undefined {
  if (name.length === 0) return 'empty name';
  if (name.length > MAX_ENTRY_NAME_LENGTH) return `name longer than ${MAX_ENTRY_NAME_LENGTH} characters`;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return name.includes('\u0000') ? 'NUL character in name' : 'control character in name';
  if (name.includes('\\')) return 'backslash in name';
  if (name.startsWith('/')) return 'absolute path';
  if (/^[A-Za-z]:/.test(name)) return 'drive letter';
  const body = name.endsWith('/') ? name.slice(0, -1) : name;
  for (const segment of body.split('/')) {
    if (segment === '..') return 'parent directory segment (..)';
    if (segment === '.') return 'current directory segment (.)';
    if (segment === '') return 'empty path segment';
  }
  return undefined;
}

export function isDirectoryName(name: string): boolean {
  return name.endsWith('/');
}

/** The last path segment (a directory name keeps no trailing slash). */
export function baseName(name: string): string {
  const body = isDirectoryName(name) ? name.slice(0, -1) : name;
  return body.slice(body.lastIndexOf('/') + 1);
}

/** Lower-case extension of the base name without the dot ('' when none; a leading dot is no extension). */
export function extensionOf(name: string): string {
  const base = baseName(name);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/** Name suffixes of archives (nested-archive check by name). */
const ARCHIVE_SUFFIXES = [
  '.zip',
  '.zipx',
  '.jar',
  '.war',
  '.ear',
  '.apk',
  '.7z',
  '.rar',
  '.tar',
  '.gz',
  '.tgz',
  '.bz2',
  '.tbz',
  '.tbz2',
  '.xz',
  '.txz',
  '.zst',
  '.tzst',
  '.lz4',
  '.lzma',
  '.cab',
  '.z',
];

export function isArchiveName(name: string): boolean {
  const lower = baseName(name).toLowerCase();
  return ARCHIVE_SUFFIXES.some((suffix) => lower.endsWith(suffix) && lower.length > suffix.length);
}

/**
 * Documents that are ZIP containers by design (OOXML, ODF, EPUB, XPS). Their content starts with
 * `PK\3\4` like any zip, so the content check lets them through on their name alone; the caller's
 * format detection then tells a real document from a renamed archive.
 */
const ZIP_DOCUMENT_EXTENSIONS = new Set([
  'docx',
  'docm',
  'dotx',
  'dotm',
  'xlsx',
  'xlsm',
  'xltx',
  'xltm',
  'pptx',
  'pptm',
  'potx',
  'potm',
  'ppsx',
  'ppsm',
  'odt',
  'ott',
  'ods',
  'ots',
  'odp',
  'otp',
  'odg',
  'otg',
  'epub',
  'xps',
  'oxps',
]);

export function isZipDocumentName(name: string): boolean {
  return ZIP_DOCUMENT_EXTENSIONS.has(extensionOf(name));
}

/** Bytes of the content an archive signature check needs (tar's "ustar" sits at offset 257). */
export const ARCHIVE_SIGNATURE_BYTES = 264;

/** Which archive format the first bytes of a member announce, if any. */
export function archiveSignature(head: Uint8Array): string | undefined {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const starts = (...bytes: number[]): boolean => b.length >= bytes.length && bytes.every((value, i) => b[i] === value);
  if (starts(0x50, 0x4b, 0x03, 0x04) || starts(0x50, 0x4b, 0x05, 0x06) || starts(0x50, 0x4b, 0x07, 0x08)) return 'zip';
  if (starts(0x1f, 0x8b, 0x08)) return 'gzip';
  if (starts(0x42, 0x5a, 0x68) && b.length >= 4 && b[3]! >= 0x31 && b[3]! <= 0x39) return 'bzip2';
  if (starts(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)) return 'xz';
  if (starts(0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c)) return '7z';
  if (starts(0x52, 0x61, 0x72, 0x21, 0x1a, 0x07)) return 'rar';
  if (starts(0x28, 0xb5, 0x2f, 0xfd)) return 'zstd';
  if (starts(0x04, 0x22, 0x4d, 0x18)) return 'lz4';
  if (starts(0x4d, 0x53, 0x43, 0x46)) return 'cab';
  if (starts(0x1f, 0x9d)) return 'compress';
  if (b.length >= 262 && b.toString('latin1', 257, 262) === 'ustar') return 'tar';
  return undefined;
}

/** Types whose content is already compressed: stored, not deflated, in a new archive. */
const STORED_EXTENSIONS = new Set([
  'pdf',
  'jpg',
  'jpeg',
  'jpe',
  'jfif',
  'png',
  'gif',
  'webp',
  'avif',
  'heic',
  'heif',
  'jp2',
  'jpx',
  'jpf',
  'j2k',
  'jxl',
  'zip',
  'zipx',
  'jar',
  'apk',
  'gz',
  'tgz',
  'bz2',
  'tbz',
  'tbz2',
  'xz',
  'txz',
  '7z',
  'rar',
  'zst',
  'lz4',
  'cab',
  'mp3',
  'mp4',
  'm4a',
  'm4v',
  'aac',
  'ogg',
  'oga',
  'opus',
  'flac',
  'mov',
  'mkv',
  'webm',
  'avi',
  'woff',
  'woff2',
  ...ZIP_DOCUMENT_EXTENSIONS,
]);

export function isCompressedType(name: string): boolean {
  return STORED_EXTENSIONS.has(extensionOf(name));
}

/**
 * Makes member names unique for a new archive: the first occurrence keeps its name, later ones
 * become `name (2).ext`, `name (3).ext`, ... Names compare case-insensitively, because the archive
 * will usually be unpacked onto a case-insensitive file system (Windows, macOS); a generated name
 * never takes a name that occurs in the input. The extension is the last `.suffix` of the base name
 * (`a.tar.gz` → `a.tar (2).gz`; `.profile` → `.profile (2)`).
 */
export function uniqueEntryNames(names: readonly string[]): string[] {
  const key = (name: string): string => name.toLowerCase();
  const original = new Set(names.map(key));
  const used = new Set<string>();
  return names.map((name) => {
    if (!used.has(key(name))) {
      used.add(key(name));
      return name;
    }
    const slash = name.lastIndexOf('/');
    const folder = name.slice(0, slash + 1);
    const base = name.slice(slash + 1);
    const dot = base.lastIndexOf('.');
    const stem = dot <= 0 ? base : base.slice(0, dot);
    const extension = dot <= 0 ? '' : base.slice(dot);
    for (let n = 2; ; n++) {
      const candidate = `${folder}${stem} (${n})${extension}`;
      if (!used.has(key(candidate)) && !original.has(key(candidate))) {
        used.add(key(candidate));
        return candidate;
      }
    }
  });
}
