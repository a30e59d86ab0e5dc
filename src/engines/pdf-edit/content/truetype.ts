import { PdfContentError } from './errors.js';

/**
 * A TrueType font (glyf outlines) read far enough to lay out text and embed a subset of it in a
 * PDF. pdf-lib embeds custom fonts only through fontkit, which this project does not ship; the
 * subset here keeps glyph ids unchanged (unused glyphs become empty), which lets the PDF use
 * CIDToGIDMap /Identity and needs neither a cmap nor a rebuilt hmtx in the font program.
 */
export interface TrueTypeFont {
  postScriptName: string;
  unitsPerEm: number;
  numGlyphs: number;
  /** Font units. */
  ascent: number;
  descent: number;
  capHeight: number;
  bbox: [number, number, number, number];
  italicAngle: number;
  fixedPitch: boolean;
  underlinePosition: number;
  underlineThickness: number;
  /** The glyph for a Unicode code point; 0 (.notdef) if the font has none. */
  glyphFor(codePoint: number): number;
  /** Advance width of a glyph, font units. */
  advance(glyph: number): number;
  /** A font program holding just these glyphs (plus .notdef and composite parts), same glyph ids. */
  subset(glyphs: Iterable<number>): Buffer;
}

interface TableRecord {
  offset: number;
  length: number;
}

/** Parses a .ttf, or face `index` of a .ttc. */
export function parseTrueType(data: Buffer, index = 0, label = 'font'): TrueTypeFont {
  try {
    return parse(data, index);
  } catch (error) {
    if (error instanceof PdfContentError) throw error;
    throw new PdfContentError('unsupported', `The font ${label} cannot be read: ${(error as Error).message}`, { cause: error });
  }
}

function parse(data: Buffer, index: number): TrueTypeFont {
  let start = 0;
  if (data.toString('latin1', 0, 4) === 'ttcf') {
    const count = data.readUInt32BE(8);
    if (index >= count) throw new Error(`the collection has ${count} faces`);
    start = data.readUInt32BE(12 + 4 * index);
  }
  const version = data.readUInt32BE(start);
  if (version !== 0x00010000 && data.toString('latin1', start, start + 4) !== 'true') {
    throw new Error(data.toString('latin1', start, start + 4) === 'OTTO' ? 'it has CFF outlines, not TrueType' : 'not a TrueType font');
  }
  const tables = new Map<string, TableRecord>();
  const numTables = data.readUInt16BE(start + 4);
  for (let i = 0; i < numTables; i++) {
    const at = start + 12 + 16 * i;
    const record = { offset: data.readUInt32BE(at + 8), length: data.readUInt32BE(at + 12) };
    if (record.offset + record.length > data.length) throw new Error(`table ${data.toString('latin1', at, at + 4)} is truncated`);
    tables.set(data.toString('latin1', at, at + 4), record);
  }
  const table = (tag: string): TableRecord => {
    const record = tables.get(tag);
    if (!record) throw new Error(`it has no ${tag} table`);
    return record;
  };
  for (const tag of ['head', 'hhea', 'maxp', 'hmtx', 'loca', 'glyf', 'cmap']) table(tag);

  const head = table('head').offset;
  const unitsPerEm = data.readUInt16BE(head + 18);
  const bbox: [number, number, number, number] = [data.readInt16BE(head + 36), data.readInt16BE(head + 38), data.readInt16BE(head + 40), data.readInt16BE(head + 42)];
  const longLoca = data.readInt16BE(head + 50) === 1;
  const hhea = table('hhea').offset;
  const numberOfHMetrics = data.readUInt16BE(hhea + 34);
  const numGlyphs = data.readUInt16BE(table('maxp').offset + 4);

  let ascent = data.readInt16BE(hhea + 4);
  let descent = data.readInt16BE(hhea + 6);
  let capHeight = Math.round(ascent * 0.7);
  const os2 = tables.get('OS/2');
  if (os2) {
    const fsType = data.readUInt16BE(os2.offset + 8);
    // Restricted-licence (2) or bitmap-only (0x200) fonts may not be embedded as outlines.
    if ((fsType & 0x000f) === 0x0002 || (fsType & 0x0200) !== 0) throw new PdfContentError('unsupported', 'the font\'s licence does not allow embedding it');
    if (os2.length >= 72) {
      ascent = data.readInt16BE(os2.offset + 68);
      descent = data.readInt16BE(os2.offset + 70);
    }
    if (data.readUInt16BE(os2.offset) >= 2 && os2.length >= 90) capHeight = data.readInt16BE(os2.offset + 88);
  }
  let italicAngle = 0;
  let fixedPitch = false;
  let underlinePosition = -Math.round(unitsPerEm * 0.1);
  let underlineThickness = Math.round(unitsPerEm * 0.05);
  const post = tables.get('post');
  if (post && post.length >= 16) {
    italicAngle = data.readInt32BE(post.offset + 4) / 65536;
    underlinePosition = data.readInt16BE(post.offset + 8);
    underlineThickness = data.readInt16BE(post.offset + 10) || underlineThickness;
    fixedPitch = data.readUInt32BE(post.offset + 12) !== 0;
  }

  const hmtx = table('hmtx').offset;
  const advance = (glyph: number) => data.readUInt16BE(hmtx + 4 * Math.min(glyph, numberOfHMetrics - 1));

  const locaOffset = table('loca').offset;
  const glyphRange = (glyph: number): [number, number] =>
    longLoca
      ? [data.readUInt32BE(locaOffset + 4 * glyph), data.readUInt32BE(locaOffset + 4 * glyph + 4)]
      : [data.readUInt16BE(locaOffset + 2 * glyph) * 2, data.readUInt16BE(locaOffset + 2 * glyph + 2) * 2];

  const glyphFor = readCmap(data, table('cmap'));
  const postScriptName = readPostScriptName(data, tables.get('name')) || 'EmbeddedFont';

  return {
    postScriptName,
    unitsPerEm,
    numGlyphs,
    ascent,
    descent,
    capHeight,
    bbox,
    italicAngle,
    fixedPitch,
    underlinePosition,
    underlineThickness,
    glyphFor: (codePoint) => {
      try {
        const glyph = glyphFor(codePoint);
        return glyph < numGlyphs ? glyph : 0;
      } catch {
        return 0; // a malformed subtable: treated as not covering the character
      }
    },
    advance,
    subset: (glyphs) => writeSubset(data, tables, numGlyphs, glyphRange, table('glyf').offset, glyphs),
  };
}

/** The best Unicode subtable: full repertoire (format 12) before BMP-only (format 4). */
function readCmap(data: Buffer, cmap: TableRecord): (codePoint: number) => number {
  const count = data.readUInt16BE(cmap.offset + 2);
  let format4: number | undefined;
  let format12: number | undefined;
  for (let i = 0; i < count; i++) {
    const at = cmap.offset + 4 + 8 * i;
    const platform = data.readUInt16BE(at);
    const encoding = data.readUInt16BE(at + 2);
    const sub = cmap.offset + data.readUInt32BE(at + 4);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    const format = data.readUInt16BE(sub);
    if (format === 12) format12 ??= sub;
    if (format === 4) format4 ??= sub;
  }
  if (format12 !== undefined) {
    const sub = format12;
    const groups = data.readUInt32BE(sub + 12);
    return (cp) => {
      let lo = 0;
      let hi = groups - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const at = sub + 16 + 12 * mid;
        const first = data.readUInt32BE(at);
        const last = data.readUInt32BE(at + 4);
        if (cp < first) hi = mid - 1;
        else if (cp > last) lo = mid + 1;
        else return data.readUInt32BE(at + 8) + (cp - first);
      }
      return 0;
    };
  }
  if (format4 !== undefined) {
    const sub = format4;
    const segments = data.readUInt16BE(sub + 6) / 2;
    const ends = sub + 14;
    const starts = ends + 2 * segments + 2;
    const deltas = starts + 2 * segments;
    const rangeOffsets = deltas + 2 * segments;
    return (cp) => {
      if (cp > 0xffff) return 0;
      for (let s = 0; s < segments; s++) {
        if (cp > data.readUInt16BE(ends + 2 * s)) continue;
        const first = data.readUInt16BE(starts + 2 * s);
        if (cp < first) return 0;
        const delta = data.readInt16BE(deltas + 2 * s);
        const rangeOffset = data.readUInt16BE(rangeOffsets + 2 * s);
        if (rangeOffset === 0) return (cp + delta) & 0xffff;
        const glyphAt = rangeOffsets + 2 * s + rangeOffset + 2 * (cp - first);
        const glyph = data.readUInt16BE(glyphAt);
        return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
      }
      return 0;
    };
  }
  throw new Error('it has no Unicode character map');
}

function readPostScriptName(data: Buffer, name: TableRecord | undefined): string {
  if (!name) return '';
  const count = data.readUInt16BE(name.offset + 2);
  const strings = name.offset + data.readUInt16BE(name.offset + 4);
  for (let i = 0; i < count; i++) {
    const at = name.offset + 6 + 12 * i;
    if (data.readUInt16BE(at + 6) !== 6) continue;
    const platform = data.readUInt16BE(at);
    const length = data.readUInt16BE(at + 8);
    const offset = strings + data.readUInt16BE(at + 10);
    const raw = data.subarray(offset, offset + length);
    const text = platform === 3 || platform === 0 ? Buffer.from(raw.subarray(0, length & ~1)).swap16().toString('utf16le') : raw.toString('latin1');
    // A PostScript name is printable ASCII without PDF delimiters.
    const clean = text.replace(/[^\x21-\x7e]|[()<>[\]{}/%#]/g, '');
    if (clean) return clean.slice(0, 63);
  }
  return '';
}

const ARG_WORDS = 0x0001;
const HAS_SCALE = 0x0008;
const MORE_COMPONENTS = 0x0020;
const HAS_XY_SCALE = 0x0040;
const HAS_2X2 = 0x0080;

/** Tables a TrueType font program in a PDF needs (PDF 32000-1, 9.9; what fontkit's subsetter keeps). */
const KEPT_TABLES = ['cvt ', 'fpgm', 'prep'];

function writeSubset(
  data: Buffer,
  tables: Map<string, TableRecord>,
  numGlyphs: number,
  glyphRange: (glyph: number) => [number, number],
  glyf: number,
  wanted: Iterable<number>,
): Buffer {
  // .notdef, the wanted glyphs, and every component of composite glyphs among them.
  const keep = new Set<number>([0]);
  const queue = [...wanted].filter((g) => g >= 0 && g < numGlyphs);
  while (queue.length > 0) {
    const glyph = queue.pop()!;
    if (keep.has(glyph) && glyph !== 0) continue;
    keep.add(glyph);
    const [start, end] = glyphRange(glyph);
    if (end - start < 10 || data.readInt16BE(glyf + start) >= 0) continue;
    let at = glyf + start + 10;
    for (;;) {
      const flags = data.readUInt16BE(at);
      const component = data.readUInt16BE(at + 2);
      if (component < numGlyphs && !keep.has(component)) queue.push(component);
      at += 4 + (flags & ARG_WORDS ? 4 : 2) + (flags & HAS_SCALE ? 2 : flags & HAS_XY_SCALE ? 4 : flags & HAS_2X2 ? 8 : 0);
      if (!(flags & MORE_COMPONENTS)) break;
    }
  }

  const pieces: Buffer[] = [];
  const loca = Buffer.alloc(4 * (numGlyphs + 1));
  let offset = 0;
  for (let glyph = 0; glyph < numGlyphs; glyph++) {
    loca.writeUInt32BE(offset, 4 * glyph);
    if (!keep.has(glyph)) continue;
    const [start, end] = glyphRange(glyph);
    if (end <= start) continue;
    const bytes = data.subarray(glyf + start, glyf + end);
    const padded = Buffer.alloc((bytes.length + 3) & ~3);
    bytes.copy(padded);
    pieces.push(padded);
    offset += padded.length;
  }
  loca.writeUInt32BE(offset, 4 * numGlyphs);

  const copy = (tag: string) => {
    const record = tables.get(tag)!;
    return Buffer.from(data.subarray(record.offset, record.offset + record.length));
  };
  const head = copy('head');
  head.writeUInt32BE(0, 8); // checkSumAdjustment, set below
  head.writeInt16BE(1, 50); // long loca offsets
  const out = new Map<string, Buffer>([
    ['head', head],
    ['hhea', copy('hhea')],
    ['maxp', copy('maxp')],
    ['hmtx', copy('hmtx')],
    ['loca', loca],
    ['glyf', Buffer.concat(pieces)],
  ]);
  for (const tag of KEPT_TABLES) if (tables.has(tag)) out.set(tag, copy(tag));
  return assembleFont(out);
}

function assembleFont(tables: Map<string, Buffer>): Buffer {
  const tags = [...tables.keys()].sort();
  const count = tags.length;
  const entrySelector = Math.floor(Math.log2(count));
  const searchRange = 2 ** entrySelector * 16;
  const header = Buffer.alloc(12 + 16 * count);
  header.writeUInt32BE(0x00010000, 0);
  header.writeUInt16BE(count, 4);
  header.writeUInt16BE(searchRange, 6);
  header.writeUInt16BE(entrySelector, 8);
  header.writeUInt16BE(count * 16 - searchRange, 10);
  const bodies: Buffer[] = [];
  let offset = header.length;
  let headOffset = 0;
  tags.forEach((tag, i) => {
    const body = tables.get(tag)!;
    const padded = Buffer.alloc((body.length + 3) & ~3);
    body.copy(padded);
    const at = 12 + 16 * i;
    header.write(tag, at, 'latin1');
    header.writeUInt32BE(checksum(padded), at + 4);
    header.writeUInt32BE(offset, at + 8);
    header.writeUInt32BE(body.length, at + 12);
    if (tag === 'head') headOffset = offset;
    bodies.push(padded);
    offset += padded.length;
  });
  const font = Buffer.concat([header, ...bodies]);
  font.writeUInt32BE((0xb1b0afba - checksum(font)) >>> 0, headOffset + 8);
  return font;
}

function checksum(bytes: Buffer): number {
  let sum = 0;
  for (let i = 0; i + 3 < bytes.length; i += 4) sum = (sum + bytes.readUInt32BE(i)) >>> 0;
  return sum;
}
