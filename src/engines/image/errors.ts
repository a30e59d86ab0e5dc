import { EngineError } from '../engine-error.js';

/**
 * Failures of the image engine, by kind. The engine knows nothing of HTTP or the errors catalogue; the
 * operations layer maps the kinds, e.g. `unreadable` → webPDF -106 (the official clients test
 * "converter on a corrupt GIF → -106").
 */
export type ImageEngineErrorKind =
  /** Not an image, or corrupt, truncated or otherwise undecodable pixel data. */
  | 'unreadable'
  /** A real image in a form this engine does not handle (RLE/JPEG/PNG-in-BMP, 64-bit BMP, SVG, HEIF, ...). */
  | 'unsupported'
  /** A frame has more pixels than the configured limit; nothing was decoded. */
  | 'tooLarge'
  /** A requested frame number does not exist; the message names it and the frame count. */
  | 'frameOutOfRange'
  /** The options cannot work: no printable area left by the margins, quality outside 1-100, ... */
  | 'invalidOptions';

export class ImageEngineError extends EngineError<ImageEngineErrorKind> {}

/**
 * Turns a libvips/sharp failure into an engine error. Any decode failure is `unreadable`; a pixel
 * flood is `tooLarge`. The reason is kept because it tells a user what is wrong ("premature end of
 * JPEG file"), but without what only means something inside libvips: the server's path to the file,
 * loader and saver names ("VipsJpeg:", "tiff2vips:", "vips2png:") and sharp's wrapper phrases. Node
 * system errors (ENOENT, EACCES, ENOSPC ...) are not about the image and pass through unchanged.
 */
export function fromSharpError(error: unknown, inputPath: string): Error {
  if (error instanceof ImageEngineError) return error;
  if (error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string') return error;
  const raw = error instanceof Error ? error.message : String(error);
  const reason = imageFailureReason(raw, inputPath);
  if (/pixel limit|maximum supported image dimension|image too large|exceeds? .*(limit|dimension)/i.test(raw)) {
    return new ImageEngineError('tooLarge', `The image is too large to decode: ${reason}`, { cause: error });
  }
  return new ImageEngineError('unreadable', `The image cannot be decoded: ${reason}`, { cause: error });
}

/** Library-internal prefixes of libvips and sharp messages: operation and loader names, wrapper phrases. */
const INTERNAL_PREFIX =
  /^\s*(?:[A-Za-z0-9_]*vips[A-Za-z0-9_]*|(?:gif|png|jpeg|jpg|tiff|webp|heif|svg|magick|pdf|jp2k|jxl|bmp)(?:load|save)[A-Za-z0-9_]*|input (?:file|buffer) (?:has corrupt header|contains unsupported image format))\s*:\s*/i;

/** The one meaningful line of a libvips failure, cleaned for a client. */
export function imageFailureReason(raw: string, inputPath: string): string {
  let reason = (raw.split('\n')[0] ?? '').split(inputPath).join('<image>');
  for (let previous = ''; previous !== reason; ) {
    previous = reason;
    reason = reason.replace(INTERNAL_PREFIX, '');
  }
  reason = reason.trim().replace(/[.\s]+$/, '');
  // libvips reports a decode that failed half-way as the failure of the write that consumed it.
  if (reason === '' || /unable to write to (target|memory|buffer)/i.test(reason)) return 'the image data is damaged or inconsistent';
  return reason.slice(0, 300);
}
