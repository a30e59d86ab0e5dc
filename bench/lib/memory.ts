import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

export interface MemoryStatus {
  /** Current resident set size, bytes (VmRSS). */
  rss: number;
  /** Peak resident set size, bytes (VmHWM): since start, or since the last resetPeak(). */
  hwm: number;
}

/** VmRSS and VmHWM of a process from /proc/<pid>/status. */
export function memoryOf(pid: number): MemoryStatus {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : NaN;
  };
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/**
 * Resets VmHWM to the current RSS (writing "5" to /proc/<pid>/clear_refs, Linux ≥ 4.0), so that the
 * peak of one phase can be read on its own. Returns false where the kernel refuses; VmHWM then stays
 * the peak since the process started, which is still an upper bound.
 */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Samples VmRSS every `intervalMs` until stopped; reports the largest value seen. */
export class RssSampler {
  private max = 0;
  private samples = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    intervalMs = 50,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  private sample(): void {
    try {
      const { rss } = memoryOf(this.pid);
      if (rss > this.max) this.max = rss;
      this.samples++;
    } catch {
      // the process is gone; the caller will notice
    }
  }

  stop(): { maxRss: number; samples: number } {
    clearInterval(this.timer);
    this.sample();
    return { maxRss: this.max, samples: this.samples };
  }
}

let clockTicks: number | undefined;

/** CPU time (user + system, seconds) a process has used, from /proc/<pid>/stat. */
export function cpuSecondsOf(pid: number): number {
  const { user, system } = cpuTimesOf(pid);
  return user + system;
}

/** User and system CPU seconds a process has used, from /proc/<pid>/stat. */
export function cpuTimesOf(pid: number): { user: number; system: number } {
  if (clockTicks === undefined) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    clockTicks = Number(out.stdout?.trim()) || 100;
  }
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after "(comm)": state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / clockTicks, system: Number(fields[12]) / clockTicks };
}
