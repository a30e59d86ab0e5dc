import { createHash } from 'node:crypto';
import { lstat, readdir, rm, unlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * What a killed soffice leaves besides processes (those go in the start-up sweep, see
 * process/leftovers.ts): its profile under the engine's work dir and two Unix sockets in /tmp that
 * LibreOffice's OSL layer never removes after a SIGKILL — `OSL_PIPE_<uid>_<name>` of the UNO
 * listener (`--accept=pipe,name=…`) and `OSL_PIPE_<uid>_SingleOfficeIPC_<hash>` of the profile.
 * The listener's pipe name carries a token of the work dir (see `listenerPipeName`), the other's
 * hash is derived from the profile URL, so only this data dir's sockets are touched, and only those
 * no running process uses.
 */

/** Where LibreOffice puts its pipes (osl/unx/pipe.cxx: /tmp, /var/tmp when /tmp is not usable). */
const PIPE_DIRS = ['/tmp', '/var/tmp'];

/** A short token of the work dir, part of every listener pipe name of an engine working there. */
export function workDirToken(workDir: string): string {
  return createHash('sha256').update(path.resolve(workDir)).digest('hex').slice(0, 12);
}

/** The UNO pipe of a warm listener: the work dir's token first, so that a later start can find it. */
export function listenerPipeName(workDir: string, unique: string): string {
  return `quire-${workDirToken(workDir)}-${unique}`;
}

/**
 * The name LibreOffice gives the single-instance pipe of a profile: "SingleOfficeIPC_" and the MD5
 * of the profile URL as UTF-16 code units, each byte in hex without a leading zero
 * (desktop/source/app/officeipcthread.cxx, CreateMD5FromString).
 */
export function singleInstancePipeName(profileUrl: string): string {
  const digest = createHash('md5').update(Buffer.from(profileUrl, 'utf16le')).digest();
  return `SingleOfficeIPC_${[...digest].map((byte) => byte.toString(16)).join('')}`;
}

export interface OfficeLeftovers {
  /** Sockets removed. */
  pipes: number;
  /** Profile directories (warm and one-shot) removed. */
  profiles: number;
}

/**
 * Removes the profiles in `workDir` that no running process uses (`inUse` of the sweep: soffice and
 * uno_worker.py name the profile URL in their arguments, the listener its pipe name), with their
 * single-instance sockets, and the listener sockets of this work dir nobody serves any more.
 */
export async function removeOfficeLeftovers(workDir: string, inUse: (value: string) => boolean): Promise<OfficeLeftovers> {
  const removed: OfficeLeftovers = { pipes: 0, profiles: 0 };
  const socketNames = new Set<string>();
  let entries: string[] = [];
  try {
    entries = await readdir(workDir);
  } catch {
    return removed; // never started here
  }
  for (const entry of entries) {
    // profile-<slot>-<generation> of a warm worker; oneshot-*/profile of a one-shot run.
    const profile = /^profile-\d+-\d+$/.test(entry) ? path.join(workDir, entry) : entry.startsWith('oneshot-') ? path.join(workDir, entry, 'profile') : undefined;
    if (profile === undefined) continue;
    const url = `file://${profile}`;
    if (inUse(url)) continue;
    socketNames.add(singleInstancePipeName(url));
    await rm(path.join(workDir, entry), { recursive: true, force: true });
    removed.profiles++;
  }
  const listenerPrefix = `quire-${workDirToken(workDir)}-`;
  for (const dir of PIPE_DIRS) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      // OSL_PIPE_<uid>_<pipe name>; the uid is 0 for a soffice in a user namespace mapped to root.
      const pipe = /^OSL_PIPE_\d+_(.+)$/.exec(name)?.[1];
      if (pipe === undefined) continue;
      const ours = socketNames.has(pipe) || (pipe.startsWith(listenerPrefix) && !inUse(pipe));
      if (!ours) continue;
      const file = path.join(dir, name);
      try {
        if (!(await lstat(file)).isSocket()) continue;
        await unlink(file);
        removed.pipes++;
      } catch {
        // gone meanwhile, or not ours to remove (another user's /tmp entry)
      }
    }
  }
  return removed;
}
