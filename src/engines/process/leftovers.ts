import { readFileSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { OWNER_ENV, startTime } from './parent-death.js';

/**
 * The start-up sweep, the second line behind the parent-death signal (parent-death.ts): engine
 * processes that a previous server on the same data dir left running when it died — in the window
 * between fork and prctl, on a system without setpriv, or from a version without either — are
 * killed before the engines start, so they neither hold memory nor collide with the new ones.
 *
 * A process is a leftover of this data dir when its environment carries the owner mark naming the
 * data dir, or its command line names a path under `<dataDir>/engines/` (LibreOffice profiles,
 * Chromium user data dirs: nothing but engines works there; this also finds what a version without
 * the mark left, and processes whose environment cannot be read); its descendants go with it. An
 * unmarked process that names other paths of the data dir (an administrator's `qpdf` on a stored
 * file) is not an engine's. It is left alone while anything in its line of ancestors has a live owner:
 * this server (an in-process restart sweeps after the previous instance closed its engines), or
 * another server still running on the same data dir. Processes are read from /proc (Linux); a
 * process another user owns cannot be read and is never touched.
 */

export interface LeftoverProcess {
  pid: number;
  /** The command line, for the log. */
  command: string;
}

export interface Sweep {
  /** The processes killed (and gone, unless the kill did not land within the wait). */
  killed: LeftoverProcess[];
  /**
   * Whether a process still running has `value` as an argument, or an argument `--x=value`: for
   * cleaning up profiles and sockets that nothing uses any more.
   */
  inUse(value: string): boolean;
}

interface Proc {
  pid: number;
  ppid: number;
  start: number;
  zombie: boolean;
  args: string[];
  /** The owner mark; undefined without one or when the environment cannot be read. */
  mark: string | undefined;
}

/** How long the sweep waits for killed processes to be gone (their sockets and profiles are removed next). */
const GONE_WAIT_MS = 5_000;

export async function sweepLeftovers(dataDir: string): Promise<Sweep> {
  const root = path.resolve(dataDir);
  const procs = await readProcesses();
  const byPid = new Map(procs.map((proc) => [proc.pid, proc]));
  const self = process.pid;
  const ownStart = startTime(self);

  const ownerAlive = (mark: string): boolean => {
    const [pid, start] = mark.split(':', 2).map(Number);
    if (pid === self) return start === ownStart;
    const owner = byPid.get(pid ?? -1);
    return owner !== undefined && !owner.zombie && owner.start === start;
  };
  const markedHere = (mark: string): boolean => mark.split(':').slice(2).join(':') === root;

  // This process and its ancestors are never touched (an administrator's shell may name the data dir).
  const protectedPids = new Set<number>();
  for (let pid: number | undefined = self; pid !== undefined && pid > 0 && !protectedPids.has(pid); pid = byPid.get(pid)?.ppid) protectedPids.add(pid);

  const liveOwned = new Map<number, boolean>();
  const isLiveOwned = (proc: Proc, depth = 0): boolean => {
    const known = liveOwned.get(proc.pid);
    if (known !== undefined) return known;
    // This server's own children (and their descendants) are in use; its ancestors are merely protected.
    let live = proc.pid === self || (proc.mark !== undefined && ownerAlive(proc.mark));
    const parent = byPid.get(proc.ppid);
    if (!live && parent && parent.pid !== proc.pid && depth < 1000) live = isLiveOwned(parent, depth + 1);
    liveOwned.set(proc.pid, live);
    return live;
  };
  const engines = `${root}/engines/`;
  const isLeftover = (proc: Proc): boolean => (proc.mark !== undefined && markedHere(proc.mark)) || proc.args.some((arg) => arg.includes(engines));

  const doomed = new Set<number>();
  for (const proc of procs) {
    if (proc.zombie || protectedPids.has(proc.pid) || isLiveOwned(proc) || !isLeftover(proc)) continue;
    doomed.add(proc.pid);
  }
  // Their descendants go too (a helper whose own line shows no mark): not live-owned either, since their line passes through a leftover.
  for (let grew = true; grew; ) {
    grew = false;
    for (const proc of procs) {
      if (!doomed.has(proc.pid) && doomed.has(proc.ppid) && !proc.zombie && !protectedPids.has(proc.pid)) {
        doomed.add(proc.pid);
        grew = true;
      }
    }
  }

  const killed: LeftoverProcess[] = [];
  for (const pid of doomed) {
    const proc = byPid.get(pid)!;
    // The same process still (a pid can be reused since the snapshot).
    if (startTime(pid) !== proc.start) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push({ pid, command: proc.args.join(' ').slice(0, 300) });
    } catch {
      // gone meanwhile
    }
  }
  await waitGone(killed.map((k) => ({ pid: k.pid, start: byPid.get(k.pid)!.start })));

  const live = procs.filter((proc) => !doomed.has(proc.pid) && !proc.zombie).map((proc) => proc.args);
  return {
    killed,
    inUse: (value) => live.some((args) => args.some((arg) => arg === value || arg.endsWith(`=${value}`))),
  };
}

async function readProcesses(): Promise<Proc[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const procs = await Promise.all(pids.map(readProcess));
  return procs.filter((proc): proc is Proc => proc !== undefined);
}

async function readProcess(pid: number): Promise<Proc | undefined> {
  let stat: string;
  let cmdline: string;
  try {
    [stat, cmdline] = await Promise.all([readFile(`/proc/${pid}/stat`, 'utf8'), readFile(`/proc/${pid}/cmdline`, 'utf8')]);
  } catch {
    return undefined; // ended meanwhile
  }
  // After "pid (comm) ": field 3 (state), 4 (ppid), ... 22 (starttime).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  let mark: string | undefined;
  try {
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
    const entry = environ.split('\0').find((line) => line.startsWith(`${OWNER_ENV}=`));
    mark = entry?.slice(OWNER_ENV.length + 1);
  } catch {
    mark = undefined; // another user's, or not dumpable
  }
  return {
    pid,
    ppid: Number(fields[1]),
    start: Number(fields[19]),
    zombie: fields[0] === 'Z' || fields[0] === 'X',
    args: cmdline.split('\0').filter((arg) => arg !== ''),
    mark,
  };
}

async function waitGone(procs: { pid: number; start: number }[]): Promise<void> {
  const deadline = Date.now() + GONE_WAIT_MS;
  // Gone, reused, or a zombie its new parent (init) has not reaped yet: all the same here.
  const running = ({ pid, start }: { pid: number; start: number }): boolean => {
    const now = stateOf(pid);
    return now !== undefined && now.start === start && now.state !== 'Z' && now.state !== 'X';
  };
  let left = procs.filter(running);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    left = left.filter(running);
  }
}

function stateOf(pid: number): { state: string; start: number } | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = fields.slice(fields.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0] ?? '', start: Number(rest[19]) };
  } catch {
    return undefined;
  }
}
