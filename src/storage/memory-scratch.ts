import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, statfs } from 'node:fs/promises';
import path from 'node:path';

/**
 * Scratch directories on a memory file system (tmpfs, `/dev/shm` by default) for intermediates that
 * are many small files: a 1,000-page burst writes 1,000 PDFs that live for a few milliseconds until
 * they are zipped. Creating a file on a journalled disk costs far more than writing a few KiB (on our
 * VM ~0.6 ms of kernel time per file on ext4, against ~0.03 ms on tmpfs), so such work goes to memory
 * when it is small enough, and to the disk scratch otherwise.
 *
 * Memory stays bounded: every directory is granted against an estimate of what it will hold, the sum
 * of grants never passes `budgetBytes`, and the file system must have the estimate free with a margin.
 * A grant that turns out too small fails with the file system's ENOSPC at worst; callers redo the
 * work on disk then.
 */
export interface MemoryScratchOptions {
  /** A tmpfs mount point; undefined or "" turns memory scratch off. */
  dir: string | undefined;
  /** Bytes all granted directories together may be estimated to hold; 0 turns memory scratch off. */
  budgetBytes: number;
}

export interface MemoryScratchDir {
  path: string;
  /** Removes the directory and returns its grant to the budget. Idempotent. */
  release(): Promise<void>;
}

/** Free space the file system keeps beyond a grant (other users of /dev/shm). */
const MARGIN = 64 * 1024 * 1024;

export class MemoryScratch {
  private granted = 0;
  private readonly root: string | undefined;

  constructor(private readonly options: MemoryScratchOptions) {
    this.root = options.dir ? path.join(options.dir, `quire-${process.pid}`) : undefined;
  }

  /** A fresh directory in memory for about `estimatedBytes`, or undefined when it should go to disk. */
  async reserve(estimatedBytes: number): Promise<MemoryScratchDir | undefined> {
    if (!this.root || this.options.budgetBytes <= 0) return undefined;
    if (this.granted + estimatedBytes > this.options.budgetBytes) return undefined;
    this.granted += estimatedBytes;
    const dir = path.join(this.root, randomBytes(8).toString('hex'));
    try {
      const fs = await statfs(this.options.dir!);
      if (fs.bavail * fs.bsize < estimatedBytes + MARGIN) throw new Error('tmpfs too full');
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch {
      // No such mount, too full, not writable: the disk will do.
      this.granted -= estimatedBytes;
      return undefined;
    }
    let released = false;
    return {
      path: dir,
      release: async () => {
        if (released) return;
        released = true;
        this.granted -= estimatedBytes;
        await rm(dir, { recursive: true, force: true });
      },
    };
  }

  /** Opens the scratch and removes the roots that crashed processes left behind. */
  static async open(options: MemoryScratchOptions): Promise<MemoryScratch> {
    const scratch = new MemoryScratch(options);
    if (options.dir) {
      const names = await readdir(options.dir).catch(() => [] as string[]);
      for (const name of names) {
        const pid = Number(/^quire-(\d+)$/.exec(name)?.[1]);
        if (pid && pid !== process.pid && !alive(pid)) await rm(path.join(options.dir, name), { recursive: true, force: true });
      }
    }
    return scratch;
  }

  /** Removes this process's root (at shutdown; a crashed process's root is left to the next boot or tmpfs cleaner). */
  async close(): Promise<void> {
    if (this.root) await rm(this.root, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
