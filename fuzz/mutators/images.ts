/**
 * Image header mutations: declared dimensions (pixel floods, zero, negative), chunk and segment
 * lengths that lie, TIFF IFD loops and bad offsets. PNG chunks get a valid CRC again (most of the
 * time), so that the lie is believed rather than the chunk rejected.
 */
import { crc32 } from 'node:zlib';
import type { Rng } from '../prng.js';
import type { Mutator } from './types.js';

const DIMENSIONS_32 = [0, 1, 65535, 65536, 100_000, 1_000_000, 0x7fffffff, 0x80000000, 0xffffffff];
const DIMENSIONS_16 = [0, 1, 0x7fff, 0x8000, 0xffff];

function isPng(b: Buffer): boolean {
  return b.length > 33 && b.readUInt32BE(0) === 0x89504e47;
}

function pngChunks(b: Buffer): { type: string; at: number; length: number }[] {
  const chunks: { type: string; at: number; length: number }[] = [];
  let at = 8;
  while (at + 12 <= b.length && chunks.length < 10_000) {
    const length = b.readUInt32BE(at);
    chunks.push({ type: b.toString('latin1', at + 4, at + 8), at, length });
    if (length > b.length) break;
    at += 12 + length;
  }
  return chunks;
}

function fixPngCrc(b: Buffer, chunk: { at: number; length: number }): void {
  const end = chunk.at + 8 + chunk.length;
  if (end + 4 <= b.length) b.writeUInt32BE(crc32(b.subarray(chunk.at + 4, end)), end);
}

const mutatePng = (input: Buffer, rng: Rng) => {
  const out = Buffer.from(input);
  const chunks = pngChunks(out);
  const ihdr = chunks.find((c) => c.type === 'IHDR');
  if (!ihdr) return undefined;
  const choice = rng.int(0, 3);
  if (choice <= 1) {
    const w = rng.pick(DIMENSIONS_32);
    const h = rng.pick(DIMENSIONS_32);
    out.writeUInt32BE(w, ihdr.at + 8);
    out.writeUInt32BE(h, ihdr.at + 12);
    if (rng.chance(0.9)) fixPngCrc(out, ihdr);
    return { bytes: out, note: `PNG IHDR ${w}×${h}` };
  }
  if (choice === 2) {
    const depth = rng.pick([0, 3, 16, 255]);
    const colour = rng.pick([1, 5, 7, 255]);
    out[ihdr.at + 16] = depth;
    out[ihdr.at + 17] = colour;
    if (rng.chance(0.9)) fixPngCrc(out, ihdr);
    return { bytes: out, note: `PNG bit depth ${depth}, colour type ${colour}` };
  }
  const chunk = rng.pick(chunks);
  const length = rng.pick([0, 0x7fffffff, 0xffffffff, chunk.length + 1, chunk.length * 1000]);
  out.writeUInt32BE(length >>> 0, chunk.at);
  return { bytes: out, note: `PNG ${chunk.type} length ${chunk.length} → ${length}` };
};

const mutateJpeg = (input: Buffer, rng: Rng) => {
  if (input.length < 4 || input.readUInt16BE(0) !== 0xffd8) return undefined;
  const out = Buffer.from(input);
  const segments: { marker: number; at: number }[] = [];
  let at = 2;
  while (at + 4 <= out.length && out[at] === 0xff) {
    const marker = out[at + 1]!;
    segments.push({ marker, at });
    if (marker === 0xda) break;
    at += 2 + out.readUInt16BE(at + 2);
  }
  const sof = segments.find((s) => s.marker >= 0xc0 && s.marker <= 0xcf && s.marker !== 0xc4 && s.marker !== 0xc8 && s.marker !== 0xcc);
  if (sof && sof.at + 9 <= out.length && rng.chance(0.6)) {
    const h = rng.pick(DIMENSIONS_16);
    const w = rng.pick(DIMENSIONS_16);
    out.writeUInt16BE(h, sof.at + 5);
    out.writeUInt16BE(w, sof.at + 7);
    if (rng.chance(0.3)) out[sof.at + 9] = rng.pick([0, 4, 255]);
    return { bytes: out, note: `JPEG SOF ${w}×${h}` };
  }
  if (!segments.length) return undefined;
  const segment = rng.pick(segments);
  const length = rng.pick([0, 1, 2, 0xffff]);
  out.writeUInt16BE(length, segment.at + 2);
  return { bytes: out, note: `JPEG segment ${segment.marker.toString(16)} length → ${length}` };
};

const mutateGif = (input: Buffer, rng: Rng) => {
  if (input.length < 13 || input.toString('latin1', 0, 3) !== 'GIF') return undefined;
  const out = Buffer.from(input);
  const w = rng.pick(DIMENSIONS_16);
  const h = rng.pick(DIMENSIONS_16);
  if (rng.chance(0.5)) {
    out.writeUInt16LE(w, 6);
    out.writeUInt16LE(h, 8);
    return { bytes: out, note: `GIF screen ${w}×${h}` };
  }
  const descriptor = out.indexOf(0x2c, 13);
  if (descriptor < 0 || descriptor + 10 > out.length) return undefined;
  out.writeUInt16LE(w, descriptor + 5);
  out.writeUInt16LE(h, descriptor + 7);
  if (descriptor + 10 < out.length && rng.chance(0.3)) out[descriptor + 10] = rng.pick([0, 12, 255]);
  return { bytes: out, note: `GIF image descriptor ${w}×${h}` };
};

const mutateTiff = (input: Buffer, rng: Rng) => {
  if (input.length < 8) return undefined;
  const order = input.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return undefined;
  const le = order === 'II';
  const out = Buffer.from(input);
  const u16 = (at: number) => (le ? out.readUInt16LE(at) : out.readUInt16BE(at));
  const u32 = (at: number) => (le ? out.readUInt32LE(at) : out.readUInt32BE(at));
  const w16 = (v: number, at: number) => (le ? out.writeUInt16LE(v, at) : out.writeUInt16BE(v, at));
  const w32 = (v: number, at: number) => (le ? out.writeUInt32LE(v >>> 0, at) : out.writeUInt32BE(v >>> 0, at));
  const ifd = u32(4);
  if (ifd + 2 > out.length) return undefined;
  const count = u16(ifd);
  const entries: { tag: number; type: number; at: number }[] = [];
  for (let k = 0; k < count && ifd + 2 + k * 12 + 12 <= out.length; k++) {
    const at = ifd + 2 + k * 12;
    entries.push({ tag: u16(at), type: u16(at + 2), at });
  }
  const nextAt = ifd + 2 + count * 12;
  const choice = rng.int(0, 3);
  if (choice === 0 && nextAt + 4 <= out.length) {
    w32(rng.chance(0.5) ? ifd : 8, nextAt);
    return { bytes: out, note: 'TIFF next IFD → loop' };
  }
  if (choice === 1) {
    const dims = entries.filter((e) => e.tag === 256 || e.tag === 257);
    if (!dims.length) return undefined;
    const e = rng.pick(dims);
    const value = rng.pick(DIMENSIONS_32);
    if (e.type === 3) w16(Math.min(value, 0xffff), e.at + 8);
    else w32(value, e.at + 8);
    return { bytes: out, note: `TIFF tag ${e.tag} → ${value}` };
  }
  if (choice === 2 && entries.length) {
    const e = rng.pick(entries);
    const value = rng.pick([0, 1, 0xffff, 0x7fffffff, 0xffffffff, out.length]);
    if (rng.chance(0.5))
      w32(value, e.at + 4); // count
    else w32(value, e.at + 8); // value / offset
    return { bytes: out, note: `TIFF tag ${e.tag} count/offset → ${value}` };
  }
  w16(rng.pick([0, 0xffff, 4096]), ifd);
  return { bytes: out, note: 'TIFF IFD entry count lies' };
};

const mutateBmp = (input: Buffer, rng: Rng) => {
  if (input.length < 30 || input.toString('latin1', 0, 2) !== 'BM') return undefined;
  const out = Buffer.from(input);
  const field = rng.pick([
    ['width', 18, [0, -1, 100_000, 0x7fffffff, -0x80000000]],
    ['height', 22, [0, -1, -100_000, 100_000, 0x7fffffff, -0x80000000]],
    ['pixel offset', 10, [0, 14, 0x7fffffff, input.length]],
    ['header size', 14, [0, 12, 1000, 0x7fffffff]],
    ['colours used', 46, [0x7fffffff, 256, 65536]],
  ] as const);
  const [name, at, values] = field;
  if (at + 4 > out.length) return undefined;
  const value = rng.pick(values);
  out.writeInt32LE(value | 0, at);
  if (name !== 'pixel offset' && rng.chance(0.3)) out.writeUInt16LE(rng.pick([0, 3, 64]), 28);
  return { bytes: out, note: `BMP ${name} → ${value}` };
};

const mutateWebp = (input: Buffer, rng: Rng) => {
  if (input.length < 30 || input.toString('latin1', 0, 4) !== 'RIFF' || input.toString('latin1', 8, 12) !== 'WEBP') return undefined;
  const out = Buffer.from(input);
  if (rng.chance(0.4)) {
    const size = rng.pick([0, 4, 0x7fffffff, 0xffffffff]);
    out.writeUInt32LE(size >>> 0, 4);
    return { bytes: out, note: `WebP RIFF size → ${size}` };
  }
  const chunk = out.toString('latin1', 12, 16);
  if (chunk === 'VP8L' && out.length > 25) {
    // 14-bit width-1 and height-1 after the signature byte.
    const bits = rng.pick([0xffffffff, 0x3fff << 14, 0]);
    out.writeUInt32LE(bits >>> 0, 21);
    return { bytes: out, note: 'WebP VP8L dimensions' };
  }
  const size = rng.pick([0, 0x7fffffff, 0xffffffff]);
  out.writeUInt32LE(size >>> 0, 16);
  return { bytes: out, note: `WebP ${chunk} chunk size → ${size}` };
};

export const imageMutators: Mutator[] = [
  {
    name: 'image.header',
    kinds: ['image'],
    weight: 8,
    apply(input, { rng }) {
      if (isPng(input)) return mutatePng(input, rng);
      for (const mutate of [mutateJpeg, mutateGif, mutateTiff, mutateBmp, mutateWebp]) {
        const result = mutate(input, rng);
        if (result) return result;
      }
      return undefined;
    },
  },
];
