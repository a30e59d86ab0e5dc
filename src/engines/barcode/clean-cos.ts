import { readFile, stat } from 'node:fs/promises';
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

type Clean = NonNullable<ReturnType<typeof openCleanly>>;

/**
 * The last file found clean, kept for the stamp that follows in the same transaction (CleanInputTool
 * checks the input, then cos-stamp.ts stamps that same file: one read instead of two). It is used only
 * when path, inode, size and modification time all still match, handed out once, and dropped after a
 * few seconds in any case, so that an idle server holds no document.
 */
let kept: { file: string; ino: number; size: number; mtimeMs: number; clean: Clean; timer: NodeJS.Timeout } | undefined;
const KEEP_MS = 5_000;

function forget(): void {
  if (kept) clearTimeout(kept.timer);
  kept = undefined;
}

/** `openCleanly` of a file; a clean result is kept for `takeCleanly` (see above). */
export async function openCleanlyFile(file: string): Promise<Clean | undefined> {
  const before = await stat(file);
  if (before.size > IN_PROCESS_BYTES) return undefined;
  const clean = openCleanly(await readFile(file));
  forget();
  if (clean && clean.cos.bytes.length === before.size) {
    kept = { file, ino: before.ino, size: before.size, mtimeMs: before.mtimeMs, clean, timer: setTimeout(forget, KEEP_MS).unref() };
  }
  return clean;
}

/** What `openCleanlyFile` found for this very file, if it is still the same file; else read afresh. */
export async function takeCleanly(file: string): Promise<Clean | undefined> {
  const now = await stat(file);
  const hit = kept?.file === file && kept.ino === now.ino && kept.size === now.size && kept.mtimeMs === now.mtimeMs ? kept.clean : undefined;
  forget();
  if (hit) return hit;
  return now.size > IN_PROCESS_BYTES ? undefined : openCleanly(await readFile(file));
}
