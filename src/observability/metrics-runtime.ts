import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import v8 from 'node:v8';

/** The V8 heap, in bytes (the counterpart of a JVM's heap figures). */
export interface HeapReading {
  /** Committed heap. */
  allocated: number;
  used: number;
  /** The heap limit (--max-old-space-size or V8's default). */
  max: number;
}

export function heapReading(): HeapReading {
  const heap = v8.getHeapStatistics();
  return { allocated: heap.total_heap_size, used: heap.used_heap_size, max: heap.heap_size_limit };
}

export interface MachineReading {
  /** docker, podman, kubernetes, or '' outside a container we recognise. */
  container: string;
  logicalProcessors: number;
  memoryTotal: number;
  memoryFree: number;
  swapTotal: number;
  swapFree: number;
  /** Virtual memory of this process, bytes (0 where /proc is missing). */
  processVirtualBytes: number;
  /** Share of all processors this process used since the previous reading, 0–1. */
  processCpuLoad: number;
  /** One-minute load average (0 on Windows). */
  loadAverage: number;
}

/**
 * Readings of the machine and the process for the status page. Cheap enough for every call: two
 * small /proc files, no processes started.
 */
export class MachineReader {
  private readonly container = detectContainer();
  /** The previous CPU reading; the first load covers the time since the process started. */
  private last = { cpu: { user: 0, system: 0 }, at: performance.now() - process.uptime() * 1000 };

  async read(): Promise<MachineReading> {
    const [meminfo, status] = await Promise.all([procFile('/proc/meminfo'), procFile('/proc/self/status')]);
    return {
      container: this.container,
      logicalProcessors: os.availableParallelism(),
      memoryTotal: os.totalmem(),
      memoryFree: os.freemem(),
      swapTotal: kilobytes(meminfo, 'SwapTotal'),
      swapFree: kilobytes(meminfo, 'SwapFree'),
      processVirtualBytes: kilobytes(status, 'VmSize'),
      processCpuLoad: this.cpuLoad(),
      loadAverage: os.loadavg()[0] ?? 0,
    };
  }

  private cpuLoad(): number {
    const now = { cpu: process.cpuUsage(), at: performance.now() };
    const usedMicros = now.cpu.user - this.last.cpu.user + (now.cpu.system - this.last.cpu.system);
    const wallMicros = (now.at - this.last.at) * 1000;
    this.last = now;
    if (wallMicros <= 0) return 0;
    return Math.min(1, usedMicros / (wallMicros * os.availableParallelism()));
  }
}

function detectContainer(): string {
  if (process.env.KUBERNETES_SERVICE_HOST) return 'kubernetes';
  if (existsSync('/run/.containerenv')) return 'podman';
  if (existsSync('/.dockerenv')) return 'docker';
  return '';
}

async function procFile(file: string): Promise<string> {
  return readFile(file, 'utf8').catch(() => '');
}

/** A "Name:  1234 kB" line of a /proc file, in bytes; 0 when absent. */
function kilobytes(text: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
  return match ? Number(match[1]) * 1024 : 0;
}
