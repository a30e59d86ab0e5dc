/**
 * Just enough of the ZIP format for the fuzzer: write an archive from entries (stored or deflated,
 * fixed timestamps so that seeds are byte-stable) and locate the records of an existing one (end of
 * central directory, central and local headers) so that mutators can make their fields lie.
 */
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

export interface ZipEntryInput {
  name: string;
  data: Buffer;
  /** Default: deflate. */
  method?: 'store' | 'deflate';
}

/** 1980-01-01 00:00 in DOS format: timestamps must not make seeds differ between runs. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

export function writeZip(entries: ZipEntryInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const stored = entry.method === 'store';
    const body = stored ? entry.data : deflateRawSync(entry.data);
    const crc = crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(stored ? 0 : 8, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(stored ? 0 : 8, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export interface ZipRecords {
  /** Offset of the end-of-central-directory record. */
  eocd: number;
  /** Offsets of the central directory headers found by walking the directory. */
  centrals: number[];
  /** Offsets of the local headers those central headers name (when inside the file). */
  locals: number[];
}

/** Finds the records of an archive; undefined when there is no end-of-central-directory record. */
export function zipRecords(zip: Buffer): ZipRecords | undefined {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 65_535); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return undefined;
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const centrals: number[] = [];
  const locals: number[] = [];
  for (let i = 0; i < count && at + 46 <= zip.length && zip.readUInt32LE(at) === 0x02014b50; i++) {
    centrals.push(at);
    const local = zip.readUInt32LE(at + 42);
    if (local + 30 <= zip.length && zip.readUInt32LE(local) === 0x04034b50) locals.push(local);
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return { eocd, centrals, locals };
}

/** The members of a well-formed archive, uncompressed (stored and deflated only); undefined otherwise. */
export function readZipEntries(zip: Buffer): ZipEntryInput[] | undefined {
  const records = zipRecords(zip);
  if (!records) return undefined;
  const entries: ZipEntryInput[] = [];
  try {
    for (const central of records.centrals) {
      const method = zip.readUInt16LE(central + 10);
      const compressedSize = zip.readUInt32LE(central + 20);
      const nameLength = zip.readUInt16LE(central + 28);
      const name = zip.subarray(central + 46, central + 46 + nameLength).toString('utf8');
      const local = zip.readUInt32LE(central + 42);
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const body = zip.subarray(start, start + compressedSize);
      if (method === 0) entries.push({ name, data: Buffer.from(body), method: 'store' });
      else if (method === 8) entries.push({ name, data: inflateRawSync(body, { maxOutputLength: 64 * 1024 * 1024 }), method: 'deflate' });
      else return undefined;
    }
  } catch {
    return undefined;
  }
  return entries;
}
