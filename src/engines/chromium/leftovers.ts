import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PROFILE_PREFIX } from './chromium-worker.js';

/**
 * Removes the browser profiles in `dir` that no running browser uses (`inUse` of the start-up sweep,
 * process/leftovers.ts: a browser names its profile in `--user-data-dir=`). A browser removes its
 * profile when it ends; one killed with its server leaves it behind. Returns how many were removed.
 */
export async function removeStaleProfiles(dir: string, inUse: (value: string) => boolean): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const profile = path.join(dir, name);
    if (!name.startsWith(PROFILE_PREFIX) || inUse(profile)) continue;
    await rm(profile, { recursive: true, force: true, maxRetries: 3 });
    removed++;
  }
  return removed;
}
