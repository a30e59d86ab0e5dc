import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../src/engines/archive/errors.js';
import type { ArchiveErrorKind } from '../../../src/engines/archive/errors.js';
import { compileFilter } from '../../../src/engines/archive/filter.js';
import { extractEntries, listEntries, openEntry } from '../../../src/engines/archive/zip-read.js';
import type { ArchiveEntry, ExtractOptions } from '../../../src/engines/archive/zip-read.js';
import { MINIMAL_PDF, PNG_1X1, buildZip, makeTempDir, openFdCount, pythonZip, readAll, writeRawZip } from './fixtures.js';
import type { RawEntry } from './fixtures.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('archive');
let counter = 0;

const next = (suffix = '.zip'): string => path.join(dir, `t${counter++}${suffix}`);
const raw = (entries: RawEntry[]): string => writeRawZip(next(), entries);

/** Runs an extraction collecting contents in memory; records whether anything was planned or handed out. */
async function extract(file: string, options: Partial<ExtractOptions> = {}): Promise<{ planned: ArchiveEntry[] | undefined; contents: Map<string, Buffer> }> {
  let planned: ArchiveEntry[] | undefined;
  const contents = new Map<string, Buffer>();
  await extractEntries(file, {
    onPlan: (entries) => {
      planned = entries;
    },
    onEntry: async (entry, content) => {
      contents.set(entry.path, await readAll(content));
    },
    ...options,
  });
  return { planned, contents };
}

/** Expects an ArchiveError of `kind` and that nothing was planned or handed out. */
async function refused(file: string, kind: ArchiveErrorKind, options: Partial<ExtractOptions> = {}, message?: RegExp): Promise<ArchiveError> {
  let touched = false;
  const error = await extractEntries(file, {
    onPlan: () => {
      touched = true;
    },
    onEntry: async (_entry, content) => {
      touched = true;
      content.resume();
    },
    ...options,
  }).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error, `expected ${kind}`).toBeInstanceOf(ArchiveError);
  expect((error as ArchiveError).kind, (error as Error).message).toBe(kind);
  if (message) expect((error as Error).message).toMatch(message);
  expect(touched).toBe(false);
  return error as ArchiveError;
}

const SAMPLE = {
  'logo.png': PNG_1X1,
  'form.pdf': MINIMAL_PDF,
  'docs/': '',
  'docs/readme.txt': 'Hello archive\n'.repeat(100),
  'docs/sub/': '',
  'docs/sub/deep.txt': 'deep',
  'empty.txt': '',
};

describe('listEntries', () => {
  it('lists paths, sizes, directories and dates from the central directory', async () => {
    const file = pythonZip(next(), SAMPLE);
    const listing = await listEntries(file);
    expect(listing.truncated).toBe(false);
    expect(listing.totalEntries).toBe(7);
    expect(listing.entries.map((entry) => entry.path)).toEqual(Object.keys(SAMPLE));
    const readme = listing.entries.find((entry) => entry.path === 'docs/readme.txt')!;
    expect(readme).toMatchObject({ size: 1400, isDirectory: false, encrypted: false });
    expect(readme.compressedSize).toBeLessThan(100);
    expect(listing.entries.find((entry) => entry.path === 'docs/')).toMatchObject({ isDirectory: true, size: 0 });
    // python wrote a DOS time (local time): 2022-03-04 05:06:08.
    expect(readme.lastModified).toBe(new Date(2022, 2, 4, 5, 6, 8).getTime());
  });

  it('stops at maxEntries and says so', async () => {
    const file = pythonZip(next(), SAMPLE);
    const listing = await listEntries(file, { maxEntries: 3 });
    expect(listing.entries).toHaveLength(3);
    expect(listing).toMatchObject({ truncated: true, totalEntries: 7 });
  });

  it('lists hostile names as data (judging them is for extraction) and reports encryption', async () => {
    const file = raw([
      { name: '../evil.txt', data: Buffer.from('x') },
      { name: 'a\\b', data: Buffer.from('y') },
    ]);
    expect((await listEntries(file)).entries.map((entry) => entry.path)).toEqual(['../evil.txt', 'a\\b']);
    const encrypted = next();
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'secret content');
    execFileSync('zip', ['-q', '-j', '-P', 'pw', encrypted, path.join(dir, 'secret.txt')]);
    expect((await listEntries(encrypted)).entries[0]).toMatchObject({ path: 'secret.txt', encrypted: true });
  });

  it('refuses names over 1024 characters even in a listing; lists an empty zip', async () => {
    const long = raw([{ name: `${'n'.repeat(2000)}.txt`, data: Buffer.from('x') }]);
    await expect(listEntries(long)).rejects.toMatchObject({ kind: 'unsafePath', message: expect.stringMatching(/longer than 1024/) });
    const empty = pythonZip(next(), {});
    expect(await listEntries(empty)).toEqual({ entries: [], truncated: false, totalEntries: 0 });
    expect(await extract(empty)).toEqual({ planned: [], contents: new Map() });
  });

  it('refuses a file that is not a zip', async () => {
    const file = next('.bin');
    fs.writeFileSync(file, 'just text, no archive');
    await expect(listEntries(file)).rejects.toMatchObject({ kind: 'corrupt' });
    await expect(listEntries(path.join(dir, 'missing.zip'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('extractEntries', () => {
  it('extracts all files (not directories) with their content, after planning', async () => {
    const file = pythonZip(next(), SAMPLE);
    const order: string[] = [];
    const contents = new Map<string, Buffer>();
    await extractEntries(file, {
      onPlan: (entries) => {
        order.push(`plan:${entries.length}`);
      },
      onEntry: async (entry, content) => {
        order.push(entry.path);
        contents.set(entry.path, await readAll(content));
      },
    });
    expect(order).toEqual(['plan:5', 'logo.png', 'form.pdf', 'docs/readme.txt', 'docs/sub/deep.txt', 'empty.txt']);
    expect(contents.get('logo.png')).toEqual(PNG_1X1);
    expect(contents.get('docs/readme.txt')!.toString()).toBe(SAMPLE['docs/readme.txt']);
    expect(contents.get('empty.txt')).toEqual(Buffer.alloc(0));
  });

  it('applies the filter: the reference glob selects 2 of 3, excludes and compiled filters work', async () => {
    const file = pythonZip(next(), { 'logo.png': PNG_1X1, 'form.pdf': MINIMAL_PDF, 'notes.txt': 'n' });
    const reference = await extract(file, { filter: { includeRules: [{ rulePattern: '{logo.png,form.pdf}', ruleType: 'glob' }] } });
    expect([...reference.contents.keys()]).toEqual(['logo.png', 'form.pdf']);
    const excluded = await extract(file, { filter: compileFilter({ excludeRules: [{ rulePattern: '.PNG', ruleType: 'suffix' }] }) });
    expect([...excluded.contents.keys()]).toEqual(['form.pdf', 'notes.txt']);
    const none = await extract(file, { filter: { includeRules: [{ rulePattern: '\\.docx$', ruleType: 'regex' }] } });
    expect(none.planned).toEqual([]);
  });

  it('refuses a bad filter before opening the archive', async () => {
    await refused(path.join(dir, 'does-not-matter.zip'), 'badFilter', { filter: { includeRules: [{ rulePattern: '(a+)+', ruleType: 'regex' }] } });
  });

  it('refuses zip-slip names, whatever is selected', async () => {
    const names = ['../evil.txt', '/etc/passwd', 'C:\\x', 'C:/x', 'a/../../b', '..\\..\\evil', 'a\u0000b', '', 'a//b'];
    for (const name of names) {
      const file = raw([
        { name: 'good.txt', data: Buffer.from('ok') },
        { name, data: Buffer.from('evil') },
      ]);
      const error = await refused(file, 'unsafePath', { filter: { includeRules: [{ rulePattern: 'good.txt', ruleType: 'glob' }] } });
      expect(error.message).toContain(JSON.stringify(name));
      expect(error.entryName).toBe(name);
    }
  });

  it('refuses a CP437 name with a backslash too (yauzl would silently turn it into /)', async () => {
    const file = raw([{ name: Buffer.from('dir\\..\\..\\evil.txt', 'latin1'), data: Buffer.from('x') }]);
    await refused(file, 'unsafePath', {}, /backslash/);
  });

  it('refuses duplicate file names (case-sensitive), but not duplicate directories or case variants', async () => {
    await refused(
      raw([
        { name: 'a.txt', data: Buffer.from('1') },
        { name: 'a.txt', data: Buffer.from('2') },
      ]),
      'duplicate',
      {},
      /"a.txt" more than once/,
    );
    const fine = raw([{ name: 'd/' }, { name: 'd/' }, { name: 'A.txt', data: Buffer.from('1') }, { name: 'a.txt', data: Buffer.from('2') }]);
    expect([...(await extract(fine)).contents.keys()]).toEqual(['A.txt', 'a.txt']);
  });

  it('refuses more entries than maxEntries, counting directories', async () => {
    const file = pythonZip(next(), SAMPLE);
    await refused(file, 'tooManyEntries', { limits: { maxEntries: 6 } }, /has 7 entries; at most 6/);
    expect((await extract(file, { limits: { maxEntries: 7 } })).contents.size).toBe(5);
  });

  it('refuses declared sizes above maxEntryBytes / maxTotalBytes of the selection', async () => {
    const file = pythonZip(next(), { 'a.txt': 'a'.repeat(600), 'b.txt': 'b'.repeat(600) });
    await refused(file, 'tooLarge', { limits: { maxEntryBytes: 599 } }, /"a.txt" has 600 bytes/);
    await refused(file, 'tooLarge', { limits: { maxTotalBytes: 1000 } }, /more than 1000 bytes/);
    const one = await extract(file, { limits: { maxTotalBytes: 1000 }, filter: { includeRules: [{ rulePattern: 'a.txt', ruleType: 'glob' }] } });
    expect([...one.contents.keys()]).toEqual(['a.txt']);
  });

  it('refuses a compression ratio above maxRatio for entries above ratioMinBytes', async () => {
    const zeros = Buffer.alloc(4 * 1024 * 1024);
    const file = raw([{ name: 'zeros.bin', data: zeros, method: 8 }]);
    await refused(file, 'ratio', {}, /"zeros.bin" has a compression ratio of \d+:1; at most 200:1/);
    const allowed = await extract(file, { limits: { maxRatio: 10_000 } });
    expect(allowed.contents.get('zeros.bin')!.equals(zeros)).toBe(true);
    const small = await extract(file, { limits: { ratioMinBytes: 8 * 1024 * 1024 } });
    expect(small.contents.get('zeros.bin')!.length).toBe(zeros.length);
  });

  it('refuses nested archives by name and by content, unless allowed; zip-based documents pass', async () => {
    const inner = buildZip([{ name: 'x.txt', data: Buffer.from('x') }]);
    await refused(
      raw([
        { name: 'a.txt', data: Buffer.from('a') },
        { name: 'inner.zip', data: inner },
      ]),
      'nested',
      {},
      /"inner.zip" is itself an archive/,
    );
    await refused(raw([{ name: 'innocent.dat', data: inner, method: 8 }]), 'nested', {}, /zip content/);
    await refused(raw([{ name: 'data.bin', data: gzipSync(Buffer.from('hello')) }]), 'nested', {}, /gzip content/);
    await refused(raw([{ name: 'tarball.tgz', data: Buffer.from('not really') }]), 'nested');
    // Only the selected entries count.
    const mixed = raw([
      { name: 'a.txt', data: Buffer.from('a') },
      { name: 'inner.zip', data: inner },
    ]);
    expect([...(await extract(mixed, { filter: { excludeRules: [{ rulePattern: '.zip', ruleType: 'suffix' }] } })).contents.keys()]).toEqual(['a.txt']);
    expect([...(await extract(mixed, { limits: { allowNested: true } })).contents.keys()]).toEqual(['a.txt', 'inner.zip']);
    // A .docx is a zip by design: the caller's format detection re-checks it.
    expect((await extract(raw([{ name: 'report.docx', data: inner, method: 8 }]))).contents.get('report.docx')).toEqual(inner);
  });

  it('refuses an encrypted entry (zip -P)', async () => {
    const file = next();
    fs.writeFileSync(path.join(dir, 'plain.txt'), 'plain');
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'secret');
    execFileSync('zip', ['-q', '-j', file, path.join(dir, 'plain.txt')]);
    execFileSync('zip', ['-q', '-j', '-P', 'pw', file, path.join(dir, 'secret.txt')]);
    await refused(file, 'encrypted', {}, /"secret.txt" is encrypted/);
    expect([...(await extract(file, { filter: { includeRules: [{ rulePattern: 'plain.txt', ruleType: 'glob' }] } })).contents.keys()]).toEqual(['plain.txt']);
  });

  it('refuses strong encryption already in the listing', async () => {
    const file = raw([{ name: 'strong.bin', data: Buffer.from('x'), flags: 0x41 }]);
    await expect(listEntries(file)).rejects.toMatchObject({ kind: 'encrypted' });
    await refused(file, 'encrypted');
  });

  it('refuses unsupported compression methods and symbolic links', async () => {
    await refused(raw([{ name: 'a.bz', data: Buffer.from('x'), method: 12 }]), 'unsupported', {}, /compression method 12/);
    const link = raw([{ name: 'link', data: Buffer.from('/etc/passwd'), versionMadeBy: (3 << 8) | 20, externalAttributes: (0o120777 << 16) >>> 0 }]);
    await refused(link, 'unsupported', {}, /symbolic link/);
  });

  it('refuses a truncated zip', async () => {
    const whole = fs.readFileSync(pythonZip(next(), SAMPLE));
    for (const length of [whole.length - 10, Math.floor(whole.length / 2), 30]) {
      const file = next();
      fs.writeFileSync(file, whole.subarray(0, length));
      await refused(file, 'corrupt');
    }
  });

  it('refuses a member whose declared compressed size runs past the end of the file', async () => {
    const bytes = buildZip([{ name: 'a.txt', data: Buffer.from('hello world'), method: 8 }]);
    const file = next();
    // Central directory compressed size (offset 20 of the central header) → huge.
    const central = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    bytes.writeUInt32LE(0x7fffffff, central + 20);
    fs.writeFileSync(file, bytes);
    await refused(file, 'corrupt');
  });

  it('fails on a CRC mismatch and on broken deflate data while streaming', async () => {
    const badCrc = raw([{ name: 'a.txt', data: Buffer.from('hello'), crc: 12345 }]);
    await expect(extract(badCrc)).rejects.toMatchObject({ kind: 'corrupt', message: expect.stringMatching(/"a.txt" fails its CRC-32 check/) });
    const garbage = raw([{ name: 'b.txt', data: Buffer.alloc(5000, 1), compressed: Buffer.alloc(300, 0xff), method: 8 }]);
    await expect(extract(garbage)).rejects.toMatchObject({ kind: 'corrupt' });
  });

  it('refuses lying sizes: more data than declared, and less', async () => {
    const data = Buffer.alloc(64 * 1024 * 1024, 'z');
    const more = raw([{ name: 'liar.txt', data, compressed: deflateRawSync(data), method: 8, declaredSize: 1000 }]);
    const started = performance.now();
    // The look at the first bytes (nested-archive check) already notices, before anything is handed out.
    await refused(more, 'sizeMismatch');
    expect(performance.now() - started).toBeLessThan(1000);
    // When the check of the first bytes is skipped (allowNested), the guard stops the stream at the declared size.
    let received = 0;
    const error = await extractEntries(more, {
      limits: { allowNested: true },
      onEntry: async (_entry, content) => {
        content.on('data', (chunk: Buffer) => (received += chunk.length));
        await new Promise((resolve, reject) => content.on('end', resolve).on('error', reject));
      },
    }).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ kind: 'sizeMismatch' });
    expect(received).toBeLessThanOrEqual(1000);

    const less = raw([{ name: 'short.txt', data: Buffer.from('x'.repeat(1000)), method: 8, declaredSize: 2000 }]);
    await expect(extract(less)).rejects.toMatchObject({ kind: 'sizeMismatch' });
  });

  it('refuses overlapping members (non-recursive zip bomb)', async () => {
    const data = Buffer.alloc(100_000, 'q');
    const file = raw([
      { name: 'kernel.txt', data, method: 8 },
      { name: 'copy1.txt', data, method: 8, sameDataAs: 0 },
      { name: 'copy2.txt', data, method: 8, sameDataAs: 0 },
    ]);
    await refused(file, 'corrupt', {}, /overlap/);
  });

  it('streams to files and reports the totals', async () => {
    const file = pythonZip(next(), SAMPLE);
    const out = makeTempDir();
    try {
      let index = 0;
      const result = await extractEntries(file, {
        onEntry: async (_entry, content) => {
          await pipeline(content, fs.createWriteStream(path.join(out, `doc-${index++}`)));
        },
      });
      expect(result.entries).toHaveLength(5);
      expect(result.totalBytes).toBe(PNG_1X1.length + MINIMAL_PDF.length + 1400 + 4);
      expect(fs.readFileSync(path.join(out, 'doc-2'), 'utf8')).toBe(SAMPLE['docs/readme.txt']);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it('propagates an onEntry failure, rejects an onEntry that does not read to the end, and leaks no file descriptors', async () => {
    const file = pythonZip(next(), SAMPLE);
    const before = openFdCount();
    await expect(
      extractEntries(file, {
        onEntry: async (entry, content) => {
          content.resume();
          if (entry.path === 'form.pdf') throw new Error('disk full');
        },
      }),
    ).rejects.toThrow('disk full');
    await expect(extractEntries(file, { onEntry: async () => undefined })).rejects.toThrow(/resolved without reading the content to its end/);
    // Resolving while the stream still flows is fine: extraction waits for the end.
    const flowing: string[] = [];
    await extractEntries(file, {
      onEntry: async (entry, content) => {
        content.on('data', () => undefined);
        content.on('end', () => flowing.push(entry.path));
      },
    });
    expect(flowing).toHaveLength(5);
    await expect(
      extractEntries(file, {
        onPlan: () => {
          throw new Error('quota');
        },
        onEntry: async () => undefined,
      }),
    ).rejects.toThrow('quota');
    await refused(raw([{ name: '../x', data: Buffer.from('x') }]), 'unsafePath');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(openFdCount()).toBe(before);
  });
});

describe('openEntry', () => {
  it('opens one member by exact path', async () => {
    const file = pythonZip(next(), SAMPLE);
    const { entry, stream } = await openEntry(file, 'docs/readme.txt');
    expect(entry).toMatchObject({ path: 'docs/readme.txt', size: 1400 });
    expect((await readAll(stream)).toString()).toBe(SAMPLE['docs/readme.txt']);
    expect(await readAll((await openEntry(file, 'logo.png')).stream)).toEqual(PNG_1X1);
  });

  it('not found, directories, wildcards', async () => {
    const file = pythonZip(next(), SAMPLE);
    await expect(openEntry(file, 'nope.txt')).rejects.toMatchObject({ kind: 'notFound', message: 'no archive entry "nope.txt"' });
    await expect(openEntry(file, 'docs')).rejects.toMatchObject({ kind: 'notFound', message: expect.stringMatching(/is a directory/) });
    await expect(openEntry(file, 'docs/')).rejects.toMatchObject({ kind: 'notFound' });
    await expect(openEntry(file, '*.png')).rejects.toMatchObject({ kind: 'notFound' });
    await expect(openEntry(file, 'readme.txt')).rejects.toMatchObject({ kind: 'notFound' });
  });

  it('applies the same safety checks', async () => {
    const inner = buildZip([{ name: 'x.txt', data: Buffer.from('x') }]);
    await expect(
      openEntry(
        raw([
          { name: 'a.txt', data: Buffer.from('a') },
          { name: '../b', data: Buffer.from('b') },
        ]),
        'a.txt',
      ),
    ).rejects.toMatchObject({ kind: 'unsafePath' });
    await expect(openEntry(raw([{ name: 'x.dat', data: inner }]), 'x.dat')).rejects.toMatchObject({ kind: 'nested' });
    expect(await readAll((await openEntry(raw([{ name: 'x.dat', data: inner }]), 'x.dat', { allowNested: true })).stream)).toEqual(inner);
    await expect(openEntry(raw([{ name: 'z', data: Buffer.alloc(4 << 20), method: 8 }]), 'z')).rejects.toMatchObject({ kind: 'ratio' });
    await expect(openEntry(raw([{ name: 'a', data: Buffer.alloc(100) }]), 'a', { maxEntryBytes: 99 })).rejects.toMatchObject({ kind: 'tooLarge' });
    const stream: Readable = (await openEntry(raw([{ name: 'a.txt', data: Buffer.from('hello'), crc: 1 }]), 'a.txt')).stream;
    await expect(readAll(stream)).rejects.toMatchObject({ kind: 'corrupt' });
  });

  it('releases the archive file when the stream is destroyed early', async () => {
    const file = raw([{ name: 'big.txt', data: Buffer.alloc(8 << 20, 'b'), method: 8 }]);
    const before = openFdCount();
    const { stream } = await openEntry(file, 'big.txt', { maxRatio: 1e6 });
    await new Promise<void>((resolve) => stream.once('data', () => resolve()));
    stream.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(openFdCount()).toBe(before);
    const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    await pipeline((await openEntry(file, 'big.txt', { maxRatio: 1e6 })).stream, sink);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(openFdCount()).toBe(before);
  });
});
