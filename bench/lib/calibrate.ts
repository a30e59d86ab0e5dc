import { createHash, randomBytes } from 'node:crypto';

export interface Calibration {
  /** SHA-256 over in-memory data, MB/s: a CPU-bound figure. */
  sha256MBps: number;
  /** Buffer copies between two warm 16 MiB buffers, MB/s: a memory-bandwidth figure. */
  memcpyMBps: number;
}

function rate(bytes: number, start: bigint): number {
  return bytes / (Number(process.hrtime.bigint() - start) / 1e9) / 1e6;
}

/**
 * A quick speed check of this machine (about half a second), taken before and after the
 * measurements: on a shared or virtual machine the speed itself can drift during a run.
 */
export function calibrate(): Calibration {
  const block = randomBytes(16 * 1024 * 1024);
  const copy = Buffer.allocUnsafe(block.length);
  block.copy(copy); // touch the target once
  let start = process.hrtime.bigint();
  const hash = createHash('sha256');
  for (let i = 0; i < 16; i++) hash.update(block);
  hash.digest();
  const sha256MBps = rate(16 * block.length, start);
  start = process.hrtime.bigint();
  for (let i = 0; i < 64; i++) block.copy(copy);
  const memcpyMBps = rate(64 * block.length, start);
  return { sha256MBps, memcpyMBps };
}
