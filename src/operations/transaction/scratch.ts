import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * The scratch directory of one transaction: every intermediate file of the call lives in it (or in
 * what registered itself through `onCleanup`, e.g. a memory (tmpfs) scratch directory), and all of
 * it goes when the transaction ends, on every path.
 */
export class Scratch {
  private counter = 0;
  private readonly prefix = randomBytes(3).toString('hex');
  private readonly releases: (() => Promise<void>)[] = [];

  private constructor(readonly dir: string) {}

  /** Creates the directory `dir` (a fresh path under the store's tmp). */
  static async open(dir: string): Promise<Scratch> {
    await mkdir(dir);
    return new Scratch(dir);
  }

  /** A fresh, unused path in the directory ending in `.<extension>`. */
  file(extension: string): string {
    return path.join(this.dir, `${this.prefix}-${this.counter++}.${extension.replace(/[^a-z0-9]/gi, '') || 'bin'}`);
  }

  /** Something else to release when the transaction ends (a memory scratch directory). */
  onCleanup(release: () => Promise<void>): void {
    this.releases.push(release);
  }

  /** Removes the directory and releases what registered. */
  async dispose(): Promise<void> {
    await Promise.all([rm(this.dir, { recursive: true, force: true }), ...this.releases.map((release) => release())]);
  }
}
