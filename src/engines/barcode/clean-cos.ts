import { type CosDocument, dictOf, openCosBytes } from '../pdfa-validator/cos/index.js';
import { cleanlyRead, cosPageRefs } from '../signature/cos-objects.js';
import { IN_PROCESS_BYTES, IN_PROCESS_LIMITS } from '../signature/document.js';

/**
 * A file the bounded COS reader reads cleanly — the one test behind both CleanInputTool (is qpdf's
 * repair check needed?) and stamping in process (cos-stamp.ts), so that stamping takes exactly the
 * files the transaction hands over unrepaired. At most 8 MB; read without repairing, reconstructing
 * or reaching a limit (`cleanlyRead`); a regular page tree (`cosPageRefs`: the irregularities qpdf
 * repairs or warns about make it undefined); and a root /Count that is the number of pages found.
 * Undefined for any other file.
 */
export function openCleanly(bytes: Buffer): { cos: CosDocument; pageRefs: string[] } | undefined {
  if (bytes.length > IN_PROCESS_BYTES) return undefined;
  let cos: CosDocument;
  try {
    cos = openCosBytes(bytes, IN_PROCESS_LIMITS);
  } catch {
    return undefined;
  }
  if (!cleanlyRead(cos)) return undefined;
  const pageRefs = cosPageRefs(cos);
  if (!pageRefs) return undefined;
  const count = dictOf(cos.resolve(cos.catalog?.entries.get('Pages')))?.entries.get('Count');
  // Read last: resolving the tree may have met problems the first check could not see.
  return count?.kind === 'int' && count.value === pageRefs.length && cleanlyRead(cos) ? { cos, pageRefs } : undefined;
}
