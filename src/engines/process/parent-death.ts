import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Engine processes must not outlive the server, however it ends: a JS heap abort or `kill -9` runs
 * no exit handler, and children that lead process groups of their own are not reached by anything
 * the dead server could have done. Two mechanisms, both set on every child the server starts:
 *
 * - **Parent-death signal.** util-linux `setpriv --pdeathsig KILL -- <command>` sets
 *   PR_SET_PDEATHSIG=SIGKILL and then execs the command (same pid, no process stays behind), so the
 *   kernel SIGKILLs the child the moment its parent dies. It survives the further execs of the chain
 *   (prlimit, unshare, sandbox.py); the kernel clears it on a set-uid exec or a change of
 *   credentials, which `unshare --user --map-root-user` is not (measured as root and as an
 *   unprivileged user: the child of `setpriv --pdeathsig KILL -- unshare --user --map-root-user
 *   --net -- sleep` dies with its parent). uno_worker.py and sandbox.py set it again anyway, so the
 *   chain does not depend on what runs before them.
 *   The kernel ties the signal to the *thread* that forked the child: Node starts children through
 *   libuv's uv_spawn on the thread that calls `spawn()`, which for the server is the main thread
 *   (nothing in src/ spawns from a worker thread), and the main thread lives as long as the process.
 *   A server that spawned from a worker thread would see its children die with that thread.
 *   Helpers a child forks itself are its business: soffice.bin is started by uno_worker.py with the
 *   same signal (the one-shot fallback runs soffice.bin itself, not oosplash, which forks it), and
 *   Chromium's helpers end within ~200 ms of their browser (measured, a busy renderer too).
 * - **Owner mark.** `QUIRE_ENGINE_OWNER=<pid>:<start time>:<data dir>` in the environment of every
 *   child (inherited by everything below it), so that a later server on the same data dir finds what
 *   a dead one left (the window between fork and prctl, a system without setpriv) and no process
 *   that still has a live owner (see leftovers.ts).
 */

/** The environment variable that names the server that started an engine process. */
export const OWNER_ENV = 'QUIRE_ENGINE_OWNER';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((file) => existsSync(file));

let prefix: readonly string[] | undefined;

/**
 * The argv prefix that makes a command die with its parent, `[]` where setpriv is missing or too old
 * for `--pdeathsig` (util-linux < 2.33). Probed once, synchronously (a few ms at the first spawn),
 * because `run()` builds its argv synchronously.
 */
export function parentDeathPrefix(): readonly string[] {
  if (prefix !== undefined) return prefix;
  prefix = [];
  if (SETPRIV !== undefined) {
    const probe = spawnSync(SETPRIV, ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
    if (probe.status === 0) prefix = [SETPRIV, '--pdeathsig', 'KILL', '--'];
  }
  return prefix;
}

/** Whether children die with the server on this machine (for a warning at start). */
export function parentDeathAvailable(): boolean {
  return parentDeathPrefix().length > 0;
}

let owner: string | undefined;

/** Marks every child started from now on as this server's, working on `dataDir` (the wiring calls it). */
export function setEngineOwner(dataDir: string): void {
  owner = `${process.pid}:${startTime(process.pid) ?? 0}:${path.resolve(dataDir)}`;
}

/** Back to no mark (tests). */
export function clearEngineOwner(): void {
  owner = undefined;
}

/** `env` (default: this process's) with the owner mark, or `env` itself when no owner is set. */
export function withOwner(env: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv | undefined {
  if (owner === undefined) return env;
  return { ...(env ?? process.env), [OWNER_ENV]: owner };
}

/** The owner mark as `withOwner` adds it (for environments built elsewhere, e.g. Chromium's). */
export function ownerMark(): Record<string, string> {
  return owner === undefined ? {} : { [OWNER_ENV]: owner };
}

/**
 * When the process started, in clock ticks since boot (/proc/<pid>/stat field 22): with the pid it
 * names one process, even after the pid is reused. undefined when the process is gone.
 */
export function startTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) " come the fields from 3 (state) on; the command name may contain ") ".
    const value = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
