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
 * Turns a libvips/sharp failure into an engine error. Any decode failure is `unreadable` except the
 * pixel limit. The libvips reason is kept (first line only) because it tells a user what is wrong
 * ("premature end of JPEG image"); the server's own path to the file is cut out of it. Node system
 * errors (ENOENT, EACCES, ENOSPC ...) are not about the image and pass through unchanged.
 */
export function fromSharpError(error: unknown, inputPath: string): Error {
  if (error instanceof ImageEngineError) return error;
  if (error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string') return error;
  const raw = error instanceof Error ? error.message : String(error);
  const reason = (raw.split('\n')[0] ?? '').split(inputPath).join('<image>').slice(0, 300);
  if (/pixel limit/i.test(reason)) return new ImageEngineError('tooLarge', `The image exceeds the pixel limit: ${reason}`, { cause: error });
  return new ImageEngineError('unreadable', `The image cannot be decoded: ${reason}`, { cause: error });
}
