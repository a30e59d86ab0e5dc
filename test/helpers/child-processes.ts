import { readFileSync, readdirSync } from 'node:fs';

/** A process as /proc shows it. */
export interface ProcessInfo {
  pid: number;
  /** The executable's name (/proc/<pid>/comm, at most 15 characters). */
  name: string;
  /** Peak virtual size (VmPeak), bytes; 0 once it is a zombie. */
  peakBytes: number;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state, ppid. The command name may itself contain ") ".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') return undefined; // exited, waiting to be reaped
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

function describe(pid: number): ProcessInfo | undefined {
  try {
    const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    const peak = /^VmPeak:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return { pid, name, peakBytes: peak ? Number(peak[1]) * 1024 : 0 };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** Whether the process runs (a zombie that has exited but is not reaped yet does not). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** The living processes whose parent is `parent` (default: this process), read from /proc. */
export function childProcesses(parent = process.pid): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (parentOf(pid) !== parent) continue;
    const info = describe(pid);
    if (info) found.push(info);
  }
  return found;
}

/** Children of this process named `name` (e.g. "qpdf", "pdftoppm"). */
export function childrenNamed(name: string): ProcessInfo[] {
  return childProcesses().filter((child) => child.name === name);
}

/**
 * Samples this process's children named `name` every `intervalMs` until stopped; `seen` holds each
 * pid once with the highest VmPeak read.
 */
export function watchChildren(name: string, intervalMs = 25): { seen: Map<number, ProcessInfo>; stop(): void } {
  const seen = new Map<number, ProcessInfo>();
  const sample = (): void => {
    for (const child of childrenNamed(name)) {
      const known = seen.get(child.pid);
      if (!known || child.peakBytes > known.peakBytes) seen.set(child.pid, child);
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return { seen, stop: () => clearInterval(timer) };
}

/** Polls until no child named `name` is left, or `ms` passed; answers those still there. */
export async function waitForNoChildren(name: string, ms: number): Promise<ProcessInfo[]> {
  const deadline = Date.now() + ms;
  let left = childrenNamed(name);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    left = childrenNamed(name);
  }
  return left;
}

/**
 * Whether, within `boundMs`, there was a stretch of `quietMs` in which no child named `name` ran:
 * work made of many short runs (an inspection's qpdf calls) shows gaps between them, so "none right
 * now" is not "stopped"; a quiet stretch longer than any such gap is.
 */
export async function becomesQuiet(name: string, quietMs: number, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    if (childrenNamed(name).length > 0) quietSince = Date.now();
    else if (Date.now() - quietSince >= quietMs) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

/** Polls until a child named `name` matches `test` (e.g. has grown past some size), or `ms` passed. */
export async function waitForChild(name: string, test: (child: ProcessInfo) => boolean, ms: number): Promise<ProcessInfo | undefined> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const found = childrenNamed(name).find(test);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return undefined;
}

/** Polls until the process is gone (or a zombie), or `ms` passed; answers whether it is gone. */
export async function waitUntilGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return !isAlive(pid);
}
