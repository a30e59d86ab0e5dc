/**
 * Fixture builders for the archive tests. Normal archives come from python3's zipfile and Info-ZIP
 * (`zip -P` for encryption); hostile ones are written byte by byte here, because no well-behaved
 * tool writes `../evil.txt`, lying sizes or overlapping members.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';

export function makeTempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'quire-archive-'));
}

export interface RawEntry {
  name: string | Buffer;
  /** Uncompressed content (CRC and, for method 8 without `compressed`, the deflated data come from it). */
  data?: Buffer;
  /** Stored bytes as they go into the archive; defaults to `data` (method 0) or deflate(`data`) (method 8). */
  compressed?: Buffer;
  /** 0 = store (default), 8 = deflate, anything else is written as is. */
  method?: number;
  /** Uncompressed size written to both headers (default: data length). */
  declaredSize?: number;
  /** CRC-32 written to both headers (default: of data). */
  crc?: number;
  /** General purpose flags (bit 11, UTF-8 names, is always added for string names). */
  flags?: number;
  versionMadeBy?: number;
  externalAttributes?: number;
  /** Point the central directory at the local header of an earlier entry (overlapping members). */
  sameDataAs?: number;
}

const DOS_DATE = ((2021 - 1980) << 9) | (6 << 5) | 15; // 2021-06-15
const DOS_TIME = (12 << 11) | (30 << 5); // 12:30:00

/** A ZIP assembled by hand from `entries`; a ZIP64 end record is added when there are 65535 entries or more. */
export function buildZip(entries: RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  const offsets: number[] = [];
  let offset = 0;
  entries.forEach((entry, index) => {
    const name = typeof entry.name === 'string' ? Buffer.from(entry.name, 'utf8') : entry.name;
    const flags = (entry.flags ?? 0) | (typeof entry.name === 'string' ? 0x800 : 0);
    const method = entry.method ?? 0;
    const data = entry.data ?? Buffer.alloc(0);
    const compressed = entry.compressed ?? (method === 8 ? deflateRawSync(data) : data);
    const size = entry.declaredSize ?? data.length;
    const crc = entry.crc ?? crc32(data);
    let localOffset = offset;
    if (entry.sameDataAs !== undefined) {
      localOffset = offsets[entry.sameDataAs]!;
    } else {
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(flags, 6);
      local.writeUInt16LE(method, 8);
      local.writeUInt16LE(DOS_TIME, 10);
      local.writeUInt16LE(DOS_DATE, 12);
      local.writeUInt32LE(crc >>> 0, 14);
      local.writeUInt32LE(compressed.length, 18);
      local.writeUInt32LE(size, 22);
      local.writeUInt16LE(name.length, 26);
      local.writeUInt16LE(0, 28);
      locals.push(local, name, compressed);
      offset += local.length + name.length + compressed.length;
    }
    offsets[index] = localOffset;
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(entry.versionMadeBy ?? 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((entry.externalAttributes ?? 0) >>> 0, 38);
    central.writeUInt32LE(localOffset, 42);
    centrals.push(central, name);
  });
  const centralStart = offset;
  const centralSize = centrals.reduce((sum, part) => sum + part.length, 0);
  const tail: Buffer[] = [];
  const zip64 = entries.length >= 0xffff;
  if (zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(entries.length), 24);
    record.writeBigUInt64LE(BigInt(entries.length), 32);
    record.writeBigUInt64LE(BigInt(centralSize), 40);
    record.writeBigUInt64LE(BigInt(centralStart), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(centralStart + centralSize), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 8);
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(centralStart, 16);
  return Buffer.concat([...locals, ...centrals, ...tail, end]);
}

export function writeRawZip(file: string, entries: RawEntry[]): string {
  fs.writeFileSync(file, buildZip(entries));
  return file;
}

/**
 * Runs python3 with `script`; `args` arrive as sys.argv[1:]. The helpers `zf` (zipfile) and `ZipInfo`
 * are imported.
 */
export function python(script: string, ...args: string[]): string {
  return execFileSync('python3', ['-c', `import sys, zipfile\nfrom zipfile import ZipInfo\n${script}`, ...args], { encoding: 'utf8' });
}

/** A zip written by python's zipfile: `files` maps member names to content (a name ending in / is a directory). */
export function pythonZip(file: string, files: Record<string, string | Buffer>, compression: 'stored' | 'deflated' = 'deflated'): string {
  const spec = Object.entries(files).map(([name, content]) => [name, Buffer.from(content).toString('base64')]);
  python(
    `import base64, json
spec = json.loads(sys.argv[2])
method = zipfile.ZIP_DEFLATED if sys.argv[3] == 'deflated' else zipfile.ZIP_STORED
with zipfile.ZipFile(sys.argv[1], 'w', method) as z:
    for name, data in spec:
        info = ZipInfo(name, date_time=(2022, 3, 4, 5, 6, 8))
        info.compress_type = method
        if name.endswith('/'):
            info.external_attr = 0o40755 << 16 | 0x10
            z.writestr(info, b'')
        else:
            info.external_attr = 0o100644 << 16
            z.writestr(info, base64.b64decode(data))
`,
    file,
    JSON.stringify(spec),
    compression,
  );
  return file;
}

/** Deflates `total` zero bytes without ever holding them: returns the raw deflate data and the CRC-32. */
export async function deflatedZeros(total: number): Promise<{ compressed: Buffer; crc: number }> {
  const chunk = Buffer.alloc(1024 * 1024);
  const deflate = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (part: Buffer) => out.push(part));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  let crc = 0;
  for (let written = 0; written < total; written += chunk.length) {
    const piece = chunk.subarray(0, Math.min(chunk.length, total - written));
    crc = crc32(piece, crc);
    if (!deflate.write(piece)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  return { compressed: Buffer.concat(out), crc };
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export function sha256File(file: string): string {
  return sha256(fs.readFileSync(file));
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Open file descriptors of this process (Linux). */
export function openFdCount(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

export const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
export const MINIMAL_PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1');
