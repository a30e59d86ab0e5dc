import { statfs } from 'node:fs/promises';
import { QuireError } from '../core/errors.js';

/** The floor as configured (documents.minFreeSpace): bytes, or a percentage of the disk; both 0 = none. */
export interface FreeSpaceFloor {
  bytes: number;
  percent: number;
}

export interface DiskSpace {
  /** Bytes an unprivileged process may still write (statfs bavail). */
  free: number;
  /** Size of the file system. */
  total: number;
}

/** How long one statfs answer is trusted: checks run on every upload chunk and every result. */
const CACHE_MS = 1000;

/**
 * The global free-disk floor: below `documents.minFreeSpace` free on the data dir's file system,
 * uploads and operations that store new results are refused with INSUFFICIENT_STORAGE (507), so
 * that many sessions each within their own quota cannot fill the disk together (which would break
 * the session files, the queue journal and the logs too). statfs is asked at most once a second;
 * concurrent checks share one call. `floor` is read on every check, so a changed value applies at once.
 */
export class DiskFloor {
  private cached: { at: number; space: DiskSpace } | undefined;
  private pending: Promise<DiskSpace> | undefined;
  private low = false;

  constructor(
    private readonly dir: string,
    private readonly floor: () => FreeSpaceFloor,
    /** Told when the disk falls below the floor and when it is above it again (for the log). */
    private readonly onChange: (low: boolean, space: DiskSpace, required: number) => void = () => undefined,
  ) {}

  /** Throws INSUFFICIENT_STORAGE when the data disk is below the floor. */
  async ensure(): Promise<void> {
    const { bytes, percent } = this.floor();
    if (bytes === 0 && percent === 0) return;
    const space = await this.space();
    const required = Math.max(bytes, Math.ceil((space.total * percent) / 100));
    const low = space.free < required;
    if (low !== this.low) {
      this.low = low;
      this.onChange(low, space, required);
    }
    if (low) {
      throw new QuireError(
        'INSUFFICIENT_STORAGE',
        'The server is short of disk space (below its documents.minFreeSpace floor): new uploads and results are refused until space is freed. Try again later.',
      );
    }
  }

  /** Free and total bytes of the data dir's file system, at most CACHE_MS old. */
  async space(): Promise<DiskSpace> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < CACHE_MS) return this.cached.space;
    this.pending ??= statfs(this.dir)
      .then((stats) => {
        const space = { free: stats.bavail * stats.bsize, total: stats.blocks * stats.bsize };
        this.cached = { at: Date.now(), space };
        return space;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}
