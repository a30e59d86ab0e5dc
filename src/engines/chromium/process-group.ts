import { readFile, readdir } from 'node:fs/promises';

/**
 * Memory of a browser with all its helpers (zygote, renderers, GPU and network services), which share
 * the process group of the browser that puppeteer started as a group leader. Linux only (/proc).
 *
 * Counts each process's resident anonymous and shared-memory pages (RssAnon + RssShmem): what grows
 * with documents and leaks. Plain RSS would also count the mapped Chromium binary and libraries once
 * per process (≈530 MB of ≈700 MB for an idle browser here); the proportional set size avoids that but
 * costs 40–70 ms of kernel page-table walking per call, and the pool asks after every job.
 * Falls back to VmRSS on kernels before 4.5, which lack the split.
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
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const anon = kilobytes(status, 'RssAnon');
    return anon === undefined ? (kilobytes(status, 'VmRSS') ?? 0) : anon + (kilobytes(status, 'RssShmem') ?? 0);
  } catch {
    return 0; // ended meanwhile
  }
}

/** A "<name>: <n> kB" line of /proc/<pid>/status, in bytes. */
function kilobytes(status: string, name: string): number | undefined {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
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
