import type { FileType } from '../../core/file-types.js';
import { UNKNOWN_FILE_TYPE } from '../../core/file-types.js';

/**
 * The client's file name is for display only: it never chooses a path on disk and never decides
 * the format. These helpers turn it into a harmless display name and extension.
 */

const MAX_NAME_LENGTH = 255;
/** An extension is 1-16 ASCII letters or digits; anything else after the last dot is part of the name. */
const EXTENSION = /^[a-z0-9]{1,16}$/i;
/** C0/C1 controls plus the bidi overrides used to disguise names ("invoice\u202Efdp.exe"). */
const UNSAFE_CHARACTERS = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Reduces a client-supplied name to its last path segment without control characters, trimmed,
 * at most 255 characters (keeping the extension when shortening). Returns '' when nothing is left.
 */
export function sanitizeClientFileName(name: string | undefined): string {
  if (typeof name !== 'string') return '';
  let clean = name.replace(UNSAFE_CHARACTERS, '');
  // Both separators: a Windows client sends "C:\temp\a.pdf", which POSIX basename would keep whole.
  clean = clean.slice(Math.max(clean.lastIndexOf('/'), clean.lastIndexOf('\\')) + 1);
  // Trailing dots and blanks are dropped the way Windows does, which also disposes of "." and "..".
  clean = clean.trim().replace(/[.\s]+$/u, '');
  const characters = Array.from(clean); // by code point, so a surrogate pair is never split
  if (characters.length <= MAX_NAME_LENGTH) return clean;
  const { extension } = splitExtension(clean);
  const suffix = extension === '' ? '' : `.${extension}`;
  return (
    characters
      .slice(0, MAX_NAME_LENGTH - suffix.length)
      .join('')
      .trimEnd() + suffix
  );
}

/** Splits "name.ext" at the last dot; dot-files and names without a valid extension have none. */
export function splitExtension(name: string): { base: string; extension: string } {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return { base: name, extension: '' };
  const extension = name.slice(dot + 1);
  const base = name.slice(0, dot).trimEnd();
  if (!EXTENSION.test(extension) || base === '') return { base: name, extension: '' };
  return { base, extension };
}

/** The lower-case extension of a client file name, or ''. */
export function clientExtension(clientFileName: string | undefined): string {
  return splitExtension(sanitizeClientFileName(clientFileName)).extension.toLowerCase();
}

/**
 * Display name and extension of a stored document. The extension follows the detected content:
 * the client's spelling is kept only when it names that same type (`photo.JPEG` stays `jpeg`),
 * otherwise the type's canonical extension replaces it. For unknown content the client's
 * extension is all there is, so it is kept.
 */
export function documentNames(clientFileName: string | undefined, type: FileType): { fileName: string; fileExtension: string } {
  const clean = sanitizeClientFileName(clientFileName);
  if (clean === '') return { fileName: 'document', fileExtension: type.extension };
  const { base, extension } = splitExtension(clean);
  const lower = extension.toLowerCase();
  if (type.id === UNKNOWN_FILE_TYPE.id) return { fileName: base, fileExtension: lower };
  if (lower === type.extension || type.aliases.includes(lower)) return { fileName: base, fileExtension: lower };
  return { fileName: base, fileExtension: type.extension };
}
