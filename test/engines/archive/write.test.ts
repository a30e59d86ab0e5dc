import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { uniqueEntryNames } from '../../../src/engines/archive/names.js';
import { extractEntries, listEntries } from '../../../src/engines/archive/zip-read.js';
import { prepareZip, useNativeCrc32, writeZip } from '../../../src/engines/archive/zip-write.js';
import { MINIMAL_PDF, PNG_1X1, makeTempDir, openFdCount, python, sha256, sha256File } from './fixtures.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('archive');
let counter = 0;

const next = (suffix = '.zip'): string => path.join(dir, `w${counter++}${suffix}`);

function source(name: string, content: string | Buffer): string {
  const file = path.join(dir, 'src', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

async function writeTo(file: string, entries: Parameters<typeof writeZip>[0]): Promise<number> {
  return (await writeZip(entries, fs.createWriteStream(file))).bytes;
}

describe('writeZip', () => {
  it('uses the native CRC-32 for yazl, with results identical to buffer-crc32', async () => {
    expect(useNativeCrc32()).toBe(true);
    const { createRequire } = await import('node:module');
    const bufferCrc32 = createRequire(createRequire(import.meta.url).resolve('yazl'))('buffer-crc32') as {
      unsigned(data: unknown, previous?: unknown): number;
      signed(data: unknown, previous?: unknown): number;
    };
    for (let i = 0; i < 200; i++) {
      const data = Buffer.from(Array.from({ length: i * 3 }, () => Math.floor(Math.random() * 256)));
      const previous = Math.floor(Math.random() * 2 ** 32);
      expect(bufferCrc32.unsigned(data, previous)).toBe(bufferCrc32.signed(data, previous) >>> 0);
      expect(bufferCrc32.unsigned(data)).toBe(bufferCrc32.signed(data) >>> 0);
    }
    expect(bufferCrc32.unsigned('a string')).toBe(bufferCrc32.signed('a string') >>> 0);
  });

  it('round-trips a tree with folders: unzip -t passes, contents match by sha256, types are stored or deflated', async () => {
    const text = 'Lorem ipsum dolor sit amet. '.repeat(2000);
    const binary = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 251));
    const members = [
      { name: 'report.pdf', file: source('a.pdf', MINIMAL_PDF) },
      { name: 'images/logo.png', file: source('b.png', PNG_1X1) },
      { name: 'docs/notes/readme.txt', file: source('c.txt', text) },
      { name: 'docs/data.bin', file: source('d.bin', binary) },
      { name: 'docs/empty.txt', file: source('e.txt', '') },
      { name: 'Umlaute äöü €.txt', file: source('f.txt', 'utf-8 name') },
    ];
    const zipFile = next();
    const bytes = await writeTo(
      zipFile,
      members.map((member) => ({ ...member, mtime: new Date(2023, 4, 6, 7, 8, 10) })),
    );
    expect(bytes).toBe(fs.statSync(zipFile).size);

    expect(execFileSync('unzip', ['-t', zipFile], { encoding: 'utf8' })).toMatch(/No errors detected/);
    const unpacked = makeTempDir();
    try {
      execFileSync('unzip', ['-q', zipFile, '-d', unpacked]);
      for (const member of members) expect(sha256File(path.join(unpacked, member.name)), member.name).toBe(sha256File(member.file));
    } finally {
      fs.rmSync(unpacked, { recursive: true, force: true });
    }

    const digests = new Map<string, string>();
    await extractEntries(zipFile, {
      onEntry: async (entry, content) => {
        const chunks: Buffer[] = [];
        for await (const chunk of content) chunks.push(chunk as Buffer);
        digests.set(entry.path, sha256(Buffer.concat(chunks)));
      },
    });
    expect(Object.fromEntries(digests)).toEqual(Object.fromEntries(members.map((member) => [member.name, sha256File(member.file)])));

    const listing = await listEntries(zipFile);
    const readme = listing.entries.find((entry) => entry.path === 'docs/notes/readme.txt')!;
    expect(readme.compressedSize).toBeLessThan(readme.size / 10);
    expect(readme.lastModified).toBe(new Date(2023, 4, 6, 7, 8, 10).getTime());

    // python: compression method per member (0 = stored, 8 = deflated) and unix mode.
    const methods = JSON.parse(python('import json\nprint(json.dumps({i.filename: [i.compress_type, i.external_attr >> 16] for i in zipfile.ZipFile(sys.argv[1]).infolist()}))', zipFile)) as Record<
      string,
      [number, number]
    >;
    expect(methods['report.pdf']).toEqual([0, 0o100644]);
    expect(methods['images/logo.png']![0]).toBe(0);
    expect(methods['docs/notes/readme.txt']![0]).toBe(8);
    expect(methods['docs/data.bin']![0]).toBe(8);
  });

  it('writes an empty archive', async () => {
    const zipFile = next();
    expect(await writeTo(zipFile, [])).toBe(22);
    expect(await listEntries(zipFile)).toEqual({ entries: [], truncated: false, totalEntries: 0 });
  });

  it('takes unique names from uniqueEntryNames', async () => {
    const file = source('same.pdf', MINIMAL_PDF);
    const names = uniqueEntryNames(['doc.pdf', 'doc.pdf', 'DOC.pdf']);
    const zipFile = next();
    await writeTo(
      zipFile,
      names.map((name) => ({ name, file })),
    );
    expect((await listEntries(zipFile)).entries.map((entry) => entry.path)).toEqual(['doc.pdf', 'doc (2).pdf', 'DOC (3).pdf']);
  });

  it('refuses unsafe and duplicate names before writing anything, leaving the destination untouched', async () => {
    const file = source('x.txt', 'x');
    for (const name of ['../x.txt', '/x.txt', 'C:\\x.txt', 'a/../../x', 'dir/', '', 'a\u0000b']) {
      let written = 0;
      const sink = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          written += chunk.length;
          callback();
        },
      });
      await expect(
        writeZip(
          [
            { name: 'ok.txt', file },
            { name, file },
          ],
          sink,
        ),
      ).rejects.toMatchObject({ kind: 'unsafePath', entryName: name });
      expect(written).toBe(0);
      // Still usable, e.g. for an error response.
      expect(sink.destroyed || sink.writableEnded).toBe(false);
    }
    await expect(
      writeZip(
        [
          { name: 'a.txt', file },
          { name: 'a.txt', file },
        ],
        new Writable(),
      ),
    ).rejects.toMatchObject({ kind: 'duplicate' });
    await expect(prepareZip([{ name: 'd', file: dir }])).rejects.toThrow(/not a regular file/);
  });

  it('rejects a missing source before writing, and cleans up on a destination error', async () => {
    const before = openFdCount();
    const written: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk);
        callback();
      },
    });
    await expect(writeZip([{ name: 'a.txt', file: path.join(dir, 'missing.txt') }], sink)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(written).toHaveLength(0);

    const big = source('big.bin', Buffer.alloc(4 << 20, 7));
    let total = 0;
    const failing = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        total += chunk.length;
        callback(total > 1000 ? new Error('disk full') : null);
      },
    });
    await expect(
      writeZip(
        [
          { name: 'big.jpg', file: big },
          { name: 'big2.jpg', file: big },
        ],
        failing,
      ),
    ).rejects.toThrow('disk full');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(openFdCount()).toBe(before);
  });

  it('rejects when a source changes size between stat and read', async () => {
    const file = source('shrinking.txt', 'x'.repeat(10_000));
    let shrunk = false;
    const sink = new Writable({
      write(_chunk, _encoding, callback) {
        // The first bytes come after every source was stat'ed; the second member is read later.
        if (!shrunk) fs.writeFileSync(file, 'short');
        shrunk = true;
        callback();
      },
    });
    await expect(
      writeZip(
        [
          { name: 'first.jpg', file: source('first.jpg', Buffer.alloc(2 << 20)) },
          { name: 'shrinking.txt', file },
        ],
        sink,
      ),
    ).rejects.toThrow(/unexpected number of bytes/);
  });

  it('honours an abort signal', async () => {
    const controller = new AbortController();
    const file = source('abort.bin', Buffer.alloc(8 << 20, 3));
    const sink = new Writable({
      write(_chunk, _encoding, callback) {
        controller.abort();
        setTimeout(callback, 5);
      },
    });
    await expect(
      writeZip(
        [
          { name: 'a.jpg', file },
          { name: 'b.jpg', file },
        ],
        sink,
        { signal: controller.signal },
      ),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });

  // yazl's bookkeeping is quadratic in the entry count: this takes ~35 s, so it runs on request only.
  it.runIf(process.env.QUIRE_SLOW_TESTS === '1')('writes ZIP64 end records for 70,000 entries, readable by yauzl and unzip', { timeout: 180_000 }, async () => {
    const file = source('tiny.txt', 't');
    const zipFile = next();
    const started = performance.now();
    await writeZip(
      Array.from({ length: 70_000 }, (_, i) => ({ name: `d${i % 100}/f${i}.txt`, file, mtime: new Date(2024, 0, 1) })),
      fs.createWriteStream(zipFile),
    );
    const writeMs = performance.now() - started;
    const listing = await listEntries(zipFile, { maxEntries: 100_000 });
    expect(listing.totalEntries).toBe(70_000);
    expect(listing.entries[69_999]!.path).toBe('d99/f69999.txt');
    expect(execFileSync('unzip', ['-l', zipFile], { encoding: 'utf8', maxBuffer: 64 << 20 })).toMatch(/\s70000 files/);
    console.info(`70,000 entries written in ${Math.round(writeMs)} ms`);
  });

  it('streams into any Writable (e.g. an HTTP response)', async () => {
    const file = source('s.txt', 'stream me');
    const chunks: Buffer[] = [];
    const result = await writeZip(
      [{ name: 's.txt', file }],
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          chunks.push(chunk);
          callback();
        },
      }),
    );
    expect(result).toMatchObject({ entries: 1, bytes: Buffer.concat(chunks).length });
    const zipFile = next();
    fs.writeFileSync(zipFile, Buffer.concat(chunks));
    expect(execFileSync('unzip', ['-p', zipFile, 's.txt'], { encoding: 'utf8' })).toBe('stream me');
  });
});
