/**
 * Processes from /proc: the server's descendants with their resident memory, and processes that
 * mention the data dir on their command line (orphans a dead server left behind).
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  comm: string;
  rssBytes: number;
  /** Start time in clock ticks since boot: tells a process from a later one that reused its pid. */
  startTime: number;
}

const PAGE_SIZE = 4096;

export function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    // Fields after "(comm) ": state(3) ppid(4) … starttime(22) vsize(23) rss(24).
    const fields = stat.slice(close + 2).split(' ');
    return { pid, ppid: Number(fields[1]), comm, startTime: Number(fields[19]), rssBytes: Number(fields[21]) * PAGE_SIZE };
  } catch {
    return undefined;
  }
}

export function allProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const info = readProc(Number(name));
    if (info) out.push(info);
  }
  return out;
}

/** The descendants of `root` (not root itself), from one snapshot of /proc. */
export function descendantsOf(root: number, procs: ProcInfo[] = allProcs()): ProcInfo[] {
  const children = new Map<number, ProcInfo[]>();
  for (const p of procs) {
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const out: ProcInfo[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/** Processes whose command line contains `text` (e.g. the data dir in a LibreOffice profile path). */
export function processesMentioning(text: string, exclude: Set<number> = new Set()): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || exclude.has(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(text)) {
        const info = readProc(pid);
        if (info) out.push(info);
      }
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** SIGKILL to a process we know, unless its pid now belongs to another process. */
export function killKnown(proc: ProcInfo): boolean {
  const now = readProc(proc.pid);
  if (!now || now.startTime !== proc.startTime) return false;
  try {
    process.kill(proc.pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}
