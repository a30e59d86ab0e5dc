import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileTypeByExtension } from '../../../core/file-types.js';

/** Writes the data of a file to embed and returns what its parameters record (size, MD5 checksum). */
export async function writeEmbeddedData(data: Buffer, file: string): Promise<{ size: number; md5: Buffer }> {
  await writeFile(file, data);
  return { size: data.length, md5: createHash('md5').update(data).digest() };
}

/** The MIME type of a file name's extension, when Quire knows it; else application/octet-stream. */
export function mimeTypeOf(fileName: string): string {
  const extension = path.extname(fileName).slice(1).toLowerCase();
  return (extension && fileTypeByExtension(extension)?.mimeType) || 'application/octet-stream';
}

/** A MIME type as RFC 6838 spells it (type/subtype, restricted characters). */
export function isMimeType(value: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/.test(value);
}
