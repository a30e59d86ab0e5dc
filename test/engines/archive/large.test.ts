import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { extractEntries, listEntries, openEntry } from '../../../src/engines/archive/zip-read.js';
import type { ArchiveLimits } from '../../../src/engines/archive/zip-read.js';
import { writeZip } from '../../../src/engines/archive/zip-write.js';
import { deflatedZeros, makeTempDir, readAll, writeRawZip } from './fixtures.js';

/**
 * Zip bombs, huge entry counts and ZIP64 sizes: time and memory must stay bounded. Timings are
 * printed (console.info) for the record.
 */
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

let dir: string;
let bomb: { compressed: Buffer; crc: number };
beforeAll(async () => {
  dir = makeTempDir();
  const started = performance.now();
  bomb = await deflatedZeros(GiB);
  console.info(`1 GiB of zeros deflated to ${bomb.compressed.length} bytes in ${Math.round(performance.now() - started)} ms`);
}, 120_000);
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function discard(onChunk?: () => void): Writable {
  return new Writable({
    highWaterMark: 64 * 1024,
    write(_chunk, _encoding, callback) {
      onChunk?.();
      callback();
    },
  });
}

/** Peak RSS growth over `run`, sampled on a timer and by the caller's own `sample` calls. */
async function peakRssGrowth(run: (sample: () => void) => Promise<void>): Promise<number> {
  globalThis.gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const sample = (): void => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  const timer = setInterval(sample, 10);
  try {
    await run(sample);
  } finally {
    clearInterval(timer);
  }
  sample();
  return peak - base;
}

const LENIENT: Partial<ArchiveLimits> = { maxRatio: Infinity, maxEntryBytes: 2 * GiB, maxTotalBytes: 2 * GiB };

describe('zip bombs', () => {
  it('refuses 1 GiB of zeros at once by its ratio', async () => {
    const file = writeRawZip(path.join(dir, 'bomb.zip'), [{ name: 'zeros.txt', compressed: bomb.compressed, crc: bomb.crc, declaredSize: GiB, method: 8 }]);
    const started = performance.now();
    await expect(extractEntries(file, { onEntry: async () => undefined })).rejects.toMatchObject({ kind: 'ratio' });
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('streams the same 1 GiB in bounded memory when the limits allow it', async () => {
    const file = writeRawZip(path.join(dir, 'bomb2.zip'), [{ name: 'zeros.txt', compressed: bomb.compressed, crc: bomb.crc, declaredSize: GiB, method: 8 }]);
    let totalBytes = 0;
    const started = performance.now();
    const growth = await peakRssGrowth(async (sample) => {
      const result = await extractEntries(file, {
        limits: LENIENT,
        onEntry: async (_entry, content) => {
          await pipeline(content, discard(sample));
        },
      });
      totalBytes = result.totalBytes;
    });
    const ms = performance.now() - started;
    console.info(`1 GiB bomb streamed in ${Math.round(ms)} ms, peak RSS growth ${(growth / MiB).toFixed(1)} MiB`);
    expect(totalBytes).toBe(GiB);
    expect(growth).toBeLessThan(100 * MiB);
  });

  it('stops a lying entry (declares 1,000,000 bytes, inflates to 1 GiB) at the declared size', async () => {
    const file = writeRawZip(path.join(dir, 'liar.zip'), [{ name: 'liar.txt', compressed: bomb.compressed, crc: bomb.crc, declaredSize: 1_000_000, method: 8 }]);
    const started = performance.now();
    let received = 0;
    let planned = false;
    const growth = await peakRssGrowth(async () => {
      await expect(
        extractEntries(file, {
          onPlan: () => {
            planned = true;
          },
          onEntry: async (_entry, content) => {
            await pipeline(
              content,
              new Writable({
                write(chunk: Buffer, _encoding, callback) {
                  received += chunk.length;
                  callback();
                },
              }),
            );
          },
        }),
      ).rejects.toMatchObject({ kind: 'sizeMismatch', message: expect.stringMatching(/"liar.txt" inflates to more than the 1000000 bytes/) });
    });
    expect(planned).toBe(true); // the directory looked fine: the lie shows only in the data
    expect(received).toBeLessThanOrEqual(1_000_000);
    expect(performance.now() - started).toBeLessThan(500);
    expect(growth).toBeLessThan(50 * MiB);
    const opened = await openEntry(file, 'liar.txt');
    await expect(readAll(opened.stream)).rejects.toMatchObject({ kind: 'sizeMismatch' });
  });

  it('refuses a small lie before handing anything out (seen in the first inflated buffer)', async () => {
    const file = writeRawZip(path.join(dir, 'small-liar.zip'), [{ name: 'liar.txt', compressed: bomb.compressed, crc: bomb.crc, declaredSize: 100_000, method: 8 }]);
    let touched = false;
    await expect(
      extractEntries(file, {
        onPlan: () => {
          touched = true;
        },
        onEntry: async () => undefined,
      }),
    ).rejects.toMatchObject({ kind: 'sizeMismatch' });
    expect(touched).toBe(false);
  });

  it('refuses many entries that each look harmless but add up (declared total)', async () => {
    // 3000 × 900 KiB of zeros: each below ratioMinBytes, together 2.6 GiB > the default 2 GiB.
    const small = Buffer.alloc(900 * 1024);
    const compressed = deflateRawSync(small);
    const file = writeRawZip(
      path.join(dir, 'many-small.zip'),
      Array.from({ length: 3000 }, (_, i) => ({ name: `part${i}.txt`, compressed, crc: crc32(small), declaredSize: small.length, method: 8 })),
    );
    const started = performance.now();
    await expect(extractEntries(file, { onEntry: async () => undefined })).rejects.toMatchObject({ kind: 'tooLarge', message: expect.stringMatching(/more than 2147483648 bytes/) });
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('entry counts', () => {
  let file: string;
  beforeAll(() => {
    file = path.join(dir, 'hundred-thousand.zip');
    const started = performance.now();
    writeRawZip(
      file,
      Array.from({ length: 100_000 }, (_, i) => ({ name: `d${i % 100}/f${i}.txt`, data: Buffer.from(String(i)) })),
    );
    console.info(`100,000-entry zip (${(fs.statSync(file).size / MiB).toFixed(1)} MiB) built in ${Math.round(performance.now() - started)} ms`);
  });

  it('refuses 100,000 entries against maxEntries 10,000 without reading them', async () => {
    const started = performance.now();
    await expect(extractEntries(file, { limits: { maxEntries: 10_000 }, onEntry: async () => undefined })).rejects.toMatchObject({
      kind: 'tooManyEntries',
      message: 'the archive has 100000 entries; at most 10000 are allowed',
    });
    await expect(openEntry(file, 'd0/f0.txt', { maxEntries: 10_000 })).rejects.toMatchObject({ kind: 'tooManyEntries' });
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('lists at most maxEntries of them', async () => {
    const started = performance.now();
    const listing = await listEntries(file, { maxEntries: 10_000 });
    const ms = performance.now() - started;
    console.info(`listing 10,000 of 100,000 entries took ${Math.round(ms)} ms`);
    expect(listing).toMatchObject({ truncated: true, totalEntries: 100_000 });
    expect(listing.entries).toHaveLength(10_000);
    expect(listing.entries[9_999]!.path).toBe('d99/f9999.txt');
    expect(ms).toBeLessThan(3000);
  });

  it('extracts 10,000 tiny entries (the recommended maximum) in reasonable time', async () => {
    const tenThousand = writeRawZip(
      path.join(dir, 'ten-thousand.zip'),
      Array.from({ length: 10_000 }, (_, i) => ({ name: `f${i}.txt`, data: Buffer.from(`entry ${i}`) })),
    );
    let count = 0;
    const started = performance.now();
    await extractEntries(tenThousand, {
      onEntry: async (_entry, content) => {
        await readAll(content);
        count++;
      },
    });
    const ms = performance.now() - started;
    console.info(`extracting 10,000 tiny entries took ${Math.round(ms)} ms`);
    expect(count).toBe(10_000);
    expect(ms).toBeLessThan(20_000);
  });

  it('reads what yazl writes for more than 65,535 entries (ZIP64 end record)', async () => {
    // In-memory members keep this quick; writeZip's own run over 70,000 files is in write.test.ts (QUIRE_SLOW_TESTS=1).
    // yazl's bookkeeping is quadratic in the entry count: adding 70,000 entries alone takes several seconds.
    const started = performance.now();
    const zip = new yazl.ZipFile();
    for (let i = 0; i < 70_000; i++) zip.addBuffer(Buffer.from('x'), `f${i}.txt`, { compress: false, mtime: new Date(2024, 0, 1) });
    zip.end();
    const target = path.join(dir, 'yazl-70k.zip');
    await pipeline(zip.outputStream as unknown as NodeJS.ReadableStream, fs.createWriteStream(target));
    const writeMs = performance.now() - started;
    const listing = await listEntries(target, { maxEntries: 100_000 });
    expect(listing.totalEntries).toBe(70_000);
    expect(listing.entries).toHaveLength(70_000);
    expect(execFileSync('unzip', ['-l', target], { encoding: 'utf8', maxBuffer: 64 << 20 })).toMatch(/\s70000 files/);
    expect((await readAll((await openEntry(target, 'f69999.txt', { maxEntries: 100_000 })).stream)).toString()).toBe('x');
    console.info(`yazl wrote 70,000 in-memory entries in ${Math.round(writeMs)} ms; listing them took ${Math.round(performance.now() - started - writeMs)} ms with unzip -l and openEntry`);
  });
});

function freeBytes(target: string): number {
  const info = fs.statfsSync(target);
  return info.bavail * info.bsize;
}

describe('ZIP64 sizes', () => {
  // Writes a real 5 GiB file (the member is stored: zeros.jpg counts as already compressed), so a
  // small member after it sits beyond the 4 GiB offset limit of plain ZIP.
  it.skipIf(freeBytes(os.tmpdir()) < 10e9)('writes and reads back a 5 GiB archive', { timeout: 120_000 }, async () => {
    const source = path.join(dir, 'zeros');
    fs.writeFileSync(source, '');
    fs.truncateSync(source, 5 * GiB); // sparse: reading it costs no disk I/O
    const after = path.join(dir, 'after.txt');
    fs.writeFileSync(after, 'behind the 4 GiB mark');
    const target = path.join(dir, 'five-gib.zip');
    let started = performance.now();
    let peak = 0;
    const result = await writeZip(
      [
        { name: 'zeros.jpg', file: source },
        { name: 'after.txt', file: after },
      ],
      fs.createWriteStream(target),
    );
    peak = Math.max(peak, process.memoryUsage.rss());
    const writeMs = performance.now() - started;
    try {
      expect(result.bytes).toBe(fs.statSync(target).size);
      expect(result.bytes).toBeGreaterThan(5 * GiB);
      started = performance.now();
      const listing = await listEntries(target);
      expect(listing.entries.map(({ path: name, size }) => [name, size])).toEqual([
        ['zeros.jpg', 5 * GiB],
        ['after.txt', 21],
      ]);
      const opened = await openEntry(target, 'after.txt');
      expect((await readAll(opened.stream)).toString()).toBe('behind the 4 GiB mark');
      expect(execFileSync('unzip', ['-p', target, 'after.txt'], { encoding: 'utf8' })).toBe('behind the 4 GiB mark');
      expect(execFileSync('unzip', ['-l', target], { encoding: 'utf8' })).toMatch(/5368709120\s.*zeros\.jpg/);
      console.info(`5 GiB zip64 archive written in ${Math.round(writeMs)} ms, read back in ${Math.round(performance.now() - started)} ms, RSS ${(peak / MiB).toFixed(0)} MiB`);
    } finally {
      fs.rmSync(target, { force: true });
      fs.rmSync(source, { force: true });
    }
  });
});
