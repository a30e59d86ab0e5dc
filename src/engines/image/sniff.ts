import { open } from 'node:fs/promises';

/** The formats the image engine converts. */
export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'bmp' | 'tiff' | 'webp';

/** Bytes needed to recognise every format below. */
const HEAD_BYTES = 32;

/**
 * Recognises the input from its magic bytes before libvips sees it: only these six formats reach a
 * decoder, so an SVG, PDF or HEIF renamed to .png is refused here instead of being parsed by a
 * loader nobody meant to expose. BMP is recognised here because libvips cannot read it.
 */
export function sniffImageFormat(head: Buffer): ImageFormat | undefined {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.length >= 8 && head.readUInt32BE(0) === 0x89504e47 && head.readUInt32BE(4) === 0x0d0a1a0a) return 'png';
  const ascii = head.toString('latin1', 0, Math.min(head.length, 16));
  if (/^GIF8[79]a/.test(ascii)) return 'gif';
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'webp';
  // Classic TIFF (42) and BigTIFF (43), either byte order.
  if (/^(II[*+]\0|MM\0[*+])/.test(ascii)) return 'tiff';
  // "BM" alone is too weak (text can start with it): also require a known DIB header size.
  if (ascii.startsWith('BM') && head.length >= 18 && [12, 16, 40, 52, 56, 64, 108, 124].includes(head.readUInt32LE(14))) return 'bmp';
  return undefined;
}

/** Reads the first bytes of a file and sniffs them. */
export async function sniffImageFile(file: string): Promise<ImageFormat | undefined> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
    return sniffImageFormat(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}
