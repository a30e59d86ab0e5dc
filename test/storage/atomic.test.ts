import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discardPartialFile } from '../../src/storage/atomic.js';

describe('discardPartialFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'quire-atomic-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('leaves no file behind even when the stream has not opened its file yet', async () => {
    // Discarding right after creation races the stream's asynchronous open; repeat to make a leak show.
    for (let i = 0; i < 200; i++) {
      const file = path.join(dir, `partial-${i}`);
      const stream = createWriteStream(file);
      stream.write(Buffer.alloc(1024));
      await discardPartialFile(stream, file);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await readdir(dir)).toEqual([]);
  });

  it('removes a file whose stream already finished', async () => {
    const file = path.join(dir, 'finished');
    const stream = createWriteStream(file);
    await new Promise<void>((resolve) => stream.end(Buffer.from('x'), () => resolve()));
    if (!stream.closed) await new Promise<void>((resolve) => stream.once('close', () => resolve()));
    await discardPartialFile(stream, file);
    expect(existsSync(file)).toBe(false);
  });
});
