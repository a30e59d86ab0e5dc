import { QuireError } from '../../core/errors.js';
import { fileTypeByExtension, type FileType } from '../../core/file-types.js';

/** Which converter handles a document. */
export type InputKind = 'office' | 'delimited' | 'html' | 'text' | 'image' | 'mail' | 'pdf' | 'postscript';

const IMAGE_KEYS = new Set(['png', 'jpeg', 'gif', 'bmp', 'tiff', 'webp']);
const TEXT_KEYS = new Set(['txt', 'json', 'md', 'xml']);

/** The converter for a file type, or undefined when none handles it. */
export function inputKindOf(type: Pick<FileType, 'key' | 'groups'>): InputKind | undefined {
  if (type.key === 'pdf') return 'pdf';
  if (type.key === 'csv' || type.key === 'tsv') return 'delimited';
  if (type.groups.includes('office')) return 'office';
  if (type.key === 'html' || type.key === 'svg') return 'html';
  if (IMAGE_KEYS.has(type.key)) return 'image';
  if (TEXT_KEYS.has(type.key)) return 'text';
  if (type.groups.includes('mail')) return 'mail';
  if (type.groups.includes('postscript')) return 'postscript';
  return undefined;
}

/**
 * The type to convert from: the stored type, or the one `fileExtension` forces (content detection is
 * then skipped, as webPDF documents it).
 */
export function effectiveType(stored: FileType, forcedExtension: string | undefined): FileType {
  const forced = forcedExtension?.trim().replace(/^\./, '').toLowerCase();
  if (!forced) return stored;
  const type = fileTypeByExtension(forced);
  if (!type) throw new QuireError('PARAMETER', `Invalid parameter converter.fileExtension: "${forced}" is not a known file type.`);
  return type;
}

export function unsupportedType(type: Pick<FileType, 'key' | 'mimeType'>): QuireError {
  const what = type.key === 'unknown' ? 'a document of unknown type' : `"${type.key}" documents (${type.mimeType})`;
  return new QuireError(
    'CONVERSION_UNSUPPORTED',
    `The converter cannot convert ${what}. Supported: Office and OpenDocument files, RTF, CSV, text, HTML, SVG, images (PNG, JPEG, GIF, BMP, TIFF, WebP), e-mail (EML, MSG), PostScript and PDF. converter.fileExtension forces a type.`,
  );
}
