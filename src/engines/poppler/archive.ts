import { createWriteStream } from 'node:fs';
import { ArchiveError, unsafeNameReason, writeZip, type ZipSource } from '../archive/index.js';
import { PopplerError } from './errors.js';

/** Most members of one result archive (yazl's bookkeeping grows with the square of the count). */
export const MAX_ARCHIVE_MEMBERS = 20_000;

/** Writes `sources` as a ZIP file at `output`. */
export async function zipFiles(sources: readonly ZipSource[], output: string): Promise<void> {
  if (sources.length > MAX_ARCHIVE_MEMBERS) {
    throw new PopplerError('tooLarge', `The result would hold ${sources.length} files, more than the ${MAX_ARCHIVE_MEMBERS} one archive may; select fewer pages.`);
  }
  try {
    await writeZip(sources, createWriteStream(output));
  } catch (error) {
    if (error instanceof ArchiveError) throw new PopplerError('invalidOption', error.message, { cause: error });
    throw error;
  }
}

/**
 * A member name from a template such as "page[%d]": every %d becomes the number; the rest is kept
 * as it is ("page[3]"). Returns the reason when the result cannot be a file name.
 */
export function nameFromTemplate(template: string, value: number): { name: string } | { reason: string } {
  const name = template.replace(/%d/g, String(value));
  if (name.trim() === '') return { reason: 'it gives an empty name' };
  if (name.includes('/') || name.includes('\\')) return { reason: 'a file name cannot contain / or \\' };
  const reason = unsafeNameReason(name);
  return reason === undefined ? { name } : { reason };
}
