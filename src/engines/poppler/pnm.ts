import { readFile } from 'node:fs/promises';
import { PopplerError } from './errors.js';

/**
 * Reads the binary PPM (P6, RGB) and PGM (P5, grey) files pdftoppm writes without compression. They
 * are handed to libvips as raw pixels: pdftoppm's own PNG writer costs several times the rendering,
 * and libvips cannot read PNM.
 */
export interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 3;
}

export async function readPnm(path: string): Promise<Pixels> {
  const file = await readFile(path);
  let at = 0;
  const token = (): string => {
    // Skip white space and comments, then read up to the next white space.
    for (;;) {
      while (at < file.length && /\s/.test(String.fromCharCode(file[at]!))) at++;
      if (file[at] !== 0x23) break;
      while (at < file.length && file[at] !== 0x0a) at++;
    }
    const start = at;
    while (at < file.length && !/\s/.test(String.fromCharCode(file[at]!))) at++;
    return file.toString('latin1', start, at);
  };
  const magic = token();
  const width = Number(token());
  const height = Number(token());
  const max = Number(token());
  at++; // the single white-space character before the pixels
  const channels = magic === 'P6' ? 3 : magic === 'P5' ? 1 : 0;
  if (channels === 0 || !Number.isInteger(width) || !Number.isInteger(height) || max !== 255) {
    throw new PopplerError('failed', 'pdftoppm wrote a page image that is not 8-bit PPM/PGM.');
  }
  const size = width * height * channels;
  if (at + size > file.length) throw new PopplerError('failed', 'pdftoppm wrote a truncated page image.');
  return { data: file.subarray(at, at + size), width, height, channels };
}
