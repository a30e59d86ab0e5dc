import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Quire's LibreOffice settings, at the same place relative to this module in `src/` and in `dist/`. */
const SETTINGS = fileURLToPath(new URL('../../../resources/libreoffice/registrymodifications.xcu', import.meta.url));

/**
 * Prepares a fresh LibreOffice user profile with Quire's settings (no linked graphics from untrusted
 * documents, links never updated, no recalculation on load, no macros) before soffice first starts on
 * it. soffice keeps a user layer it finds and adds its own defaults around it, so the settings hold
 * from the very first document.
 */
export async function seedProfile(profileDir: string): Promise<void> {
  const user = path.join(profileDir, 'user');
  await mkdir(user, { recursive: true });
  await copyFile(SETTINGS, path.join(user, 'registrymodifications.xcu'));
}
