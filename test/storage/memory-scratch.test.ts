import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryScratch } from '../../src/storage/memory-scratch.js';

// A plain directory stands in for the tmpfs mount: the class only needs statfs, mkdir and rm.
const mount = mkdtempSync(path.join(os.tmpdir(), 'quire-memscratch-'));
afterAll(() => rmSync(mount, { recursive: true, force: true }));

describe('MemoryScratch', () => {
  it('grants directories within the budget and takes grants back on release', async () => {
    const scratch = await MemoryScratch.open({ dir: mount, budgetBytes: 1000 });
    const first = await scratch.reserve(600);
    expect(first).toBeDefined();
    expect(existsSync(first!.path)).toBe(true);
    expect(first!.path.startsWith(path.join(mount, `quire-${process.pid}`))).toBe(true);
    // 600 + 600 > 1000: the disk must take this one.
    expect(await scratch.reserve(600)).toBeUndefined();
    writeFileSync(path.join(first!.path, 'part.pdf'), 'x');
    await first!.release();
    await first!.release();
    expect(existsSync(first!.path)).toBe(false);
    const again = await scratch.reserve(600);
    expect(again).toBeDefined();
    await again!.release();
    await scratch.close();
    expect(existsSync(path.join(mount, `quire-${process.pid}`))).toBe(false);
  });

  it('is off without a directory, with a zero budget, or when the mount is missing', async () => {
    expect(await (await MemoryScratch.open({ dir: '', budgetBytes: 1000 })).reserve(1)).toBeUndefined();
    expect(await (await MemoryScratch.open({ dir: mount, budgetBytes: 0 })).reserve(1)).toBeUndefined();
    const missing = await MemoryScratch.open({ dir: path.join(mount, 'nope'), budgetBytes: 1000 });
    expect(await missing.reserve(1)).toBeUndefined();
    // A failed grant is not counted: the full budget is still there.
    expect(await (await MemoryScratch.open({ dir: mount, budgetBytes: 1000 })).reserve(1000)).toBeDefined();
  });

  it('refuses a grant the file system has no room for', async () => {
    const scratch = await MemoryScratch.open({ dir: mount, budgetBytes: Number.MAX_SAFE_INTEGER });
    expect(await scratch.reserve(Number.MAX_SAFE_INTEGER / 2)).toBeUndefined();
  });

  it('removes the roots of processes that no longer run', async () => {
    // Pid 2^22 + 1 is above Linux's pid_max ceiling: no process can have it.
    const stale = path.join(mount, `quire-${2 ** 22 + 1}`);
    mkdirSync(path.join(stale, 'abc'), { recursive: true });
    const own = path.join(mount, `quire-${process.pid}`);
    mkdirSync(own, { recursive: true });
    await MemoryScratch.open({ dir: mount, budgetBytes: 1 });
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(own)).toBe(true);
  });
});
