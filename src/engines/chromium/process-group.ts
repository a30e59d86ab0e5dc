import { readFile, readdir } from 'node:fs/promises';

/**
 * Memory of a browser with all its helpers (zygote, renderers, GPU and network services), which share
 * the process group of the browser that puppeteer started as a group leader. Linux only (/proc).
 *
 * Counts the proportional set size (PSS): summing RSS would count the shared Chromium binary and
 * libraries once per process and report about twice the real footprint (≈700 MB instead of ≈300 MB
 * for an idle browser here). Falls back to RSS where smaps_rollup is missing (kernels before 4.14).
 */
export async function processGroupMemory(pgid: number): Promise<number> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const sizes = await Promise.all(pids.map(async (pid) => ((await groupOf(pid)) === pgid ? memoryOf(pid) : 0)));
  return sizes.reduce((sum, bytes) => sum + bytes, 0);
}

async function groupOf(pid: string): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state, ppid, pgrp. The command name may itself contain ") ".
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined; // ended meanwhile
  }
}

async function memoryOf(pid: string): Promise<number> {
  return (await kilobytes(`/proc/${pid}/smaps_rollup`, /^Pss:\s+(\d+) kB/m)) ?? (await kilobytes(`/proc/${pid}/status`, /^VmRSS:\s+(\d+) kB/m)) ?? 0;
}

/** A "<name>: <n> kB" line of a /proc file, in bytes; undefined when the file or line is missing. */
async function kilobytes(file: string, line: RegExp): Promise<number | undefined> {
  try {
    const match = line.exec(await readFile(file, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** SIGKILL to every process of the group; false when the group no longer exists. */
export function killGroup(pgid: number): boolean {
  try {
    process.kill(-pgid, 'SIGKILL');
    return true;
  } catch {
    return false; // ESRCH: already gone
  }
}
