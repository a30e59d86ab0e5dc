import { closeSync, createWriteStream, openSync, readFileSync, writevSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { crc32 } from 'node:zlib';
import { writeZip } from '../../archive/index.js';

/**
 * The ZIP of split parts: often a thousand small PDFs, stored as they are (PDF content is compressed
 * already). The archive engine's writeZip (yazl) sets up a stream pipeline per member, which costs
 * more than the bytes when members are a few KiB (about 0.3 ms each: a third of a 1,000-page burst).
 * So the common case is written here directly, in the plainest ZIP form (PKWARE APPNOTE 6.3.10
 * §4.3): per member a local header, the bytes, and at the end the central directory. One member is in
 * memory at a time, written with one vectored write. The file calls are synchronous (an asynchronous
 * one costs a thread-pool round trip, more than a small member's read itself), in slices of a few
 * milliseconds between which other requests get the event loop.
 *
 * Anything that would need ZIP64 (65,535 members or more, 4 GiB or more) or has a member too large to
 * read at once goes to writeZip instead, which streams and writes ZIP64. Names must be safe already
 * (the caller checks them with the archive engine's unsafeNameReason) and unique.
 */
export interface ZipMember {
  name: string;
  file: string;
}

const MAX_MEMBERS = 0xfffe;
const MAX_TOTAL = 0xffff_ffff - 64 * 1024 * 1024;
const MAX_MEMBER = 64 * 1024 * 1024;
const STAT_CONCURRENCY = 32;
/** Longest stretch of synchronous work before the event loop gets a turn. */
const SLICE_MS = 8;
/** UTF-8 names (general purpose bit 11). */
const UTF8 = 0x0800;
/** "Made by" Unix, version 2.0; members are regular files rw-r--r--. */
const MADE_BY = (3 << 8) | 20;
const FILE_ATTRIBUTES = (0o100644 << 16) >>> 0;

export async function zipParts(members: readonly ZipMember[], output: string): Promise<void> {
  const sizes: number[] = [];
  for (let i = 0; i < members.length; i += STAT_CONCURRENCY) {
    sizes.push(...(await Promise.all(members.slice(i, i + STAT_CONCURRENCY).map(async (m) => (await stat(m.file)).size))));
  }
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (members.length > MAX_MEMBERS || total > MAX_TOTAL || sizes.some((size) => size > MAX_MEMBER)) {
    await writeZip(members, createWriteStream(output, { mode: 0o600 }));
    return;
  }

  const { time, date } = dosDateTime(new Date());
  const central: Buffer[] = [];
  const fd = openSync(output, 'w', 0o600);
  try {
    let offset = 0;
    let sliceStart = performance.now();
    for (const member of members) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
      const bytes = readFileSync(member.file);
      const name = Buffer.from(member.name, 'utf8');
      const crc = crc32(bytes);
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(UTF8, 6);
      local.writeUInt16LE(0, 8); // stored
      local.writeUInt16LE(time, 10);
      local.writeUInt16LE(date, 12);
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(bytes.length, 18);
      local.writeUInt32LE(bytes.length, 22);
      local.writeUInt16LE(name.length, 26);
      local.writeUInt16LE(0, 28);
      writeAll(fd, [local, name, bytes]);

      const entry = Buffer.alloc(46);
      entry.writeUInt32LE(0x02014b50, 0);
      entry.writeUInt16LE(MADE_BY, 4);
      // From "version needed" to "extra field length" the central entry repeats the local header.
      local.copy(entry, 6, 4, 30);
      entry.writeUInt32LE(FILE_ATTRIBUTES, 38);
      entry.writeUInt32LE(offset, 42);
      central.push(entry, name);
      offset += local.length + name.length + bytes.length;
    }
    const directory = Buffer.concat(central);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(members.length, 8);
    end.writeUInt16LE(members.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(offset, 16);
    writeAll(fd, [directory, end]);
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, buffers: Buffer[]): void {
  let pending = buffers.filter((b) => b.length > 0);
  while (pending.length > 0) {
    let bytesWritten = writevSync(fd, pending);
    // A short write (rare, on full disks or signals): continue where it stopped.
    const rest: Buffer[] = [];
    for (const buffer of pending) {
      if (bytesWritten >= buffer.length) bytesWritten -= buffer.length;
      else {
        rest.push(buffer.subarray(bytesWritten));
        bytesWritten = 0;
      }
    }
    pending = rest;
  }
}

/** MS-DOS time and date of the members (local time, 2-second steps, from 1980). */
function dosDateTime(now: Date): { time: number; date: number } {
  const year = Math.max(1980, now.getFullYear());
  return {
    time: (now.getHours() << 11) | (now.getMinutes() << 5) | Math.floor(now.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((now.getMonth() + 1) << 5) | now.getDate(),
  };
}
