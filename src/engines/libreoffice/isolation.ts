import { existsSync } from 'node:fs';
import { readdir, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../process/run.js';

/**
 * The walls around LibreOffice that do not depend on LibreOffice: uploaded Office documents are
 * untrusted, and LibreOffice follows links in them (images, OLE objects, sections, external data)
 * over the network and into the server's filesystem. Two kernel features close that, each where the
 * system allows it:
 *
 * - an empty network namespace (`unshare --net`, or `unshare --user --map-root-user --net` for a
 *   user without CAP_SYS_ADMIN where unprivileged user namespaces are enabled): no interface but a
 *   loopback that is down, so no connection and no DNS, whatever the protocol;
 * - a Landlock sandbox (`resources/sandbox.py`, Linux 5.13+): soffice reads only the system, its
 *   installation and fonts, writes only its profile and the engine's job folder, and (ABI 4+) opens
 *   no TCP connection. Some LibreOffice import code reads linked files directly, past every setting
 *   and URL check (RTF INCLUDEPICTURE does): only the kernel stops that.
 *
 * Inside LibreOffice a second layer holds on its own: the profile's settings and the content broker
 * guard of `resources/uno_worker.py` (see profile.ts). `mode` says what happens when a wall is missing.
 */

export type IsolationMode = 'auto' | 'required' | 'off';

export interface Isolation {
  /** argv prefix that runs a command in an empty network namespace; empty when there is none. */
  network: readonly string[];
  /** Landlock ABI version the sandbox uses; 0 when there is none. */
  landlock: number;
  /** What is missing and why, one sentence each (empty when both walls stand, or when switched off). */
  missing: string[];
}

/** The Landlock wrapper, at the same place relative to this module in `src/` and in `dist/`. */
export const SANDBOX_SCRIPT = fileURLToPath(new URL('../../../resources/sandbox.py', import.meta.url));

const PROBE_TIMEOUT_MS = 10_000;

/** Namespace commands to try, the cheaper first; the second works without root where user namespaces are allowed. */
const NAMESPACE_CANDIDATES: readonly (readonly string[])[] = [
  ['unshare', '--net', '--'],
  ['unshare', '--user', '--map-root-user', '--net', '--'],
];

/** Finds out which walls this system can put up. `python` runs the Landlock wrapper. */
export async function detectIsolation(mode: IsolationMode, python: string): Promise<Isolation> {
  if (mode === 'off') return { network: [], landlock: 0, missing: [] };
  const missing: string[] = [];
  let network: readonly string[] = [];
  const failures: string[] = [];
  for (const candidate of NAMESPACE_CANDIDATES) {
    const why = await runsOk(candidate[0]!, [...candidate.slice(1), 'true']);
    if (why === undefined) {
      network = candidate;
      break;
    }
    failures.push(`${candidate.slice(0, -1).join(' ')}: ${why}`);
  }
  if (network.length === 0) missing.push(`no network namespace (${failures.join('; ')})`);

  let landlock = 0;
  const probe = await probeLandlock(python);
  if (typeof probe === 'number' && probe > 0) landlock = probe;
  else missing.push(`no Landlock filesystem sandbox (${typeof probe === 'string' ? probe : 'the kernel has none'})`);
  return { network, landlock, missing };
}

/** The argv prefix that runs a command in the Landlock sandbox with these folders. */
export function sandboxCommand(python: string, folders: { read: readonly string[]; write: readonly string[]; socket: readonly string[] }): string[] {
  return [python, SANDBOX_SCRIPT, ...folders.read.flatMap((dir) => ['--read', dir]), ...folders.write.flatMap((dir) => ['--write', dir]), ...folders.socket.flatMap((dir) => ['--socket', dir]), '--'];
}

/** What every soffice needs to read: the system, never the data dir, /home, /root, /srv or /tmp. */
const SYSTEM_READ = ['/usr', '/etc', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/sys', '/dev', '/var/cache/fontconfig'];

/**
 * The folders soffice reads: the system, its installation, and where the links in the installation
 * lead (Debian keeps parts of it in /var/lib/libreoffice and /var/spool/libreoffice).
 */
export async function officeReadFolders(soffice: string): Promise<string[]> {
  const install = path.dirname(path.dirname(await realpath(soffice).catch(() => soffice)));
  const folders = new Set([...SYSTEM_READ, install]);
  for (const target of await linkTargets(install, 3)) {
    if (![...folders].some((folder) => target === folder || target.startsWith(`${folder}/`))) folders.add(target);
  }
  return [...folders].filter((folder) => existsSync(folder));
}

/** Real paths that symbolic links up to `depth` levels below `dir` point to (their folders, for files). */
async function linkTargets(dir: string, depth: number): Promise<string[]> {
  const targets: string[] = [];
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return targets;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) {
      try {
        const target = path.resolve(dir, await readlink(full));
        const real = await realpath(target);
        targets.push((await stat(real)).isDirectory() ? real : path.dirname(real));
      } catch {
        // a dangling link leads nowhere
      }
    } else if (entry.isDirectory() && depth > 1) {
      targets.push(...(await linkTargets(full, depth - 1)));
    }
  }
  return targets;
}

async function runsOk(command: string, args: string[]): Promise<string | undefined> {
  try {
    const result = await run(command, args, { timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 4096 });
    if (result.exitCode === 0) return undefined;
    return result.stderr.trim().split('\n').pop() || `exit ${result.exitCode ?? result.signal}`;
  } catch (error) {
    return (error as Error).message;
  }
}

async function probeLandlock(python: string): Promise<number | string> {
  try {
    const result = await run(python, [SANDBOX_SCRIPT, '--probe'], { timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 4096 });
    if (result.exitCode !== 0) return result.stderr.trim().split('\n').pop() || `exit ${result.exitCode ?? result.signal}`;
    return Number(result.stdout.toString('utf8').trim()) || 0;
  } catch (error) {
    return (error as Error).message;
  }
}
