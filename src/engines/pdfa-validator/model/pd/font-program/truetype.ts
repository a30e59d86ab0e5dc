/**
 * A TrueType/OpenType (sfnt) program as the glyph checks need it: numGlyphs ('maxp'), advance widths ('hhea',
 * 'hmtx', scaled by 'head' unitsPerEm), cmap subtables (formats 0, 4, 6, 12, looked up on demand) and the 'post'
 * glyph names (format 2). Every offset and count is checked against the data; nothing is copied.
 */
import { type FontProgram, MAX_GLYPHS, need } from './program.js';

interface Table {
  readonly offset: number;
  readonly length: number;
}

export function readTrueType(data: Buffer): FontProgram {
  need(data.length >= 12, 'no sfnt header');
  const numTables = data.readUInt16BE(4);
  need(numTables <= 512 && 12 + numTables * 16 <= data.length, 'bad table directory');
  const tables = new Map<string, Table>();
  for (let i = 0; i < numTables; i++) {
    const at = 12 + i * 16;
    const offset = data.readUInt32BE(at + 8);
    const length = data.readUInt32BE(at + 12);
    if (offset + length <= data.length) tables.set(data.toString('latin1', at, at + 4), { offset, length });
  }
  const table = (tag: string, min: number): Table => {
    const t = tables.get(tag);
    need(t !== undefined && t.length >= min, `no '${tag}' table`);
    return t;
  };
  const head = table('head', 54);
  const unitsPerEm = data.readUInt16BE(head.offset + 18);
  need(unitsPerEm >= 16 && unitsPerEm <= 16384, 'bad unitsPerEm');
  const maxp = table('maxp', 6);
  const numGlyphs = Math.min(data.readUInt16BE(maxp.offset + 4), MAX_GLYPHS);
  const hhea = tables.get('hhea');
  const hmtx = tables.get('hmtx');
  const numberOfHMetrics = hhea !== undefined && hhea.length >= 36 ? data.readUInt16BE(hhea.offset + 34) : 0;
  const metrics = hmtx === undefined ? 0 : Math.min(numberOfHMetrics, Math.floor(hmtx.length / 4));

  const subtables = new Map<string, number>();
  const cmap = tables.get('cmap');
  if (cmap !== undefined && cmap.length >= 4) {
    const count = data.readUInt16BE(cmap.offset + 2);
    for (let i = 0; i < count && 4 + i * 8 + 8 <= cmap.length; i++) {
      const rec = cmap.offset + 4 + i * 8;
      const at = cmap.offset + data.readUInt32BE(rec + 4);
      const key = `${data.readUInt16BE(rec)},${data.readUInt16BE(rec + 2)}`;
      if (at + 4 <= cmap.offset + cmap.length && !subtables.has(key)) subtables.set(key, at);
    }
  }
  const cmapEnd = cmap === undefined ? 0 : cmap.offset + cmap.length;

  let postNames: Map<string, number> | undefined;
  const names = (): Map<string, number> => {
    postNames ??= readPostNames(data, tables.get('post'), numGlyphs);
    return postNames;
  };

  return {
    format: 'truetype',
    numGlyphs,
    gidOfName: (name) => names().get(name),
    widthOf: (gid) => {
      if (hmtx === undefined || metrics === 0 || gid >= numGlyphs) return null;
      const advance = data.readUInt16BE(hmtx.offset + 4 * Math.min(gid, metrics - 1));
      return (advance * 1000) / unitsPerEm;
    },
    hasOutline: (gid) => {
      // 'loca' (short: offsets/2 as uint16, long: uint32; head.indexToLocFormat) has numGlyphs + 1 entries.
      const loca = tables.get('loca');
      const long = data.readInt16BE(head.offset + 50) === 1;
      const size = long ? 4 : 2;
      if (loca === undefined || gid >= numGlyphs || (gid + 2) * size > loca.length) return undefined;
      const at = loca.offset + gid * size;
      return long ? data.readUInt32BE(at + 4) > data.readUInt32BE(at) : data.readUInt16BE(at + 2) > data.readUInt16BE(at);
    },
    cmapLookup: (platform, encoding, code) => {
      const at = subtables.get(`${platform},${encoding}`);
      return at === undefined ? undefined : cmapGlyph(data, at, cmapEnd, code);
    },
  };
}

/** The glyph of `code` in the cmap subtable at `at` (0 when unmapped or unreadable; formats 0, 4, 6, 12). */
function cmapGlyph(data: Buffer, at: number, end: number, code: number): number {
  const u16 = (o: number): number => (o + 2 <= end ? data.readUInt16BE(o) : 0);
  const u32 = (o: number): number => (o + 4 <= end ? data.readUInt32BE(o) : 0);
  const format = u16(at);
  if (format === 0) return code < 256 && at + 6 + code < end ? (data[at + 6 + code] as number) : 0;
  if (format === 6) {
    const first = u16(at + 6);
    const count = u16(at + 8);
    return code >= first && code < first + count ? u16(at + 10 + 2 * (code - first)) : 0;
  }
  if (format === 4) {
    const segCount = u16(at + 6) >> 1;
    const ends = at + 14;
    const starts = ends + 2 * segCount + 2;
    const deltas = starts + 2 * segCount;
    const rangeOffsets = deltas + 2 * segCount;
    if (rangeOffsets + 2 * segCount > end) return 0;
    // Binary search for the first segment whose endCode ≥ code.
    let lo = 0;
    let hi = segCount - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (u16(ends + 2 * mid) < code) lo = mid + 1;
      else hi = mid;
    }
    if (segCount === 0 || u16(ends + 2 * lo) < code || u16(starts + 2 * lo) > code) return 0;
    const delta = u16(deltas + 2 * lo);
    const rangeOffset = u16(rangeOffsets + 2 * lo);
    if (rangeOffset === 0) return (code + delta) & 0xffff;
    const g = u16(rangeOffsets + 2 * lo + rangeOffset + 2 * (code - u16(starts + 2 * lo)));
    return g === 0 ? 0 : (g + delta) & 0xffff;
  }
  if (format === 12) {
    const groups = u32(at + 12);
    if (at + 16 + groups * 12 > end) return 0;
    let lo = 0;
    let hi = groups - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const g = at + 16 + mid * 12;
      if (code < u32(g)) hi = mid - 1;
      else if (code > u32(g + 4)) lo = mid + 1;
      else return u32(g + 8) + (code - u32(g));
    }
  }
  return 0;
}

/** The 'post' table's glyph names (format 2: the 258 Macintosh names by index, then its own Pascal strings; format 1: the Macintosh names). */
function readPostNames(data: Buffer, post: Table | undefined, numGlyphs: number): Map<string, number> {
  const out = new Map<string, number>();
  if (post === undefined || post.length < 32) return out;
  const version = data.readUInt32BE(post.offset);
  if (version === 0x00010000) {
    MAC_GLYPH_NAMES.forEach((n, i) => i < numGlyphs && out.set(n, i));
    return out;
  }
  if (version !== 0x00020000 || post.length < 34) return out;
  const end = post.offset + post.length;
  const count = Math.min(data.readUInt16BE(post.offset + 32), numGlyphs);
  const indexAt = post.offset + 34;
  if (indexAt + 2 * count > end) return out;
  const own: string[] = [];
  for (let at = indexAt + 2 * count; at < end && own.length < MAX_GLYPHS; ) {
    const len = data[at] as number;
    if (at + 1 + len > end) break;
    own.push(data.toString('latin1', at + 1, at + 1 + len));
    at += 1 + len;
  }
  for (let gid = 0; gid < count; gid++) {
    const i = data.readUInt16BE(indexAt + 2 * gid);
    const name = i < 258 ? MAC_GLYPH_NAMES[i] : own[i - 258];
    if (name !== undefined && !out.has(name)) out.set(name, gid);
  }
  return out;
}

/** The 258 standard Macintosh glyph names of 'post' formats 1 and 2 (Apple TrueType Reference, 'post'). */
const MAC_GLYPH_NAMES: readonly string[] = (
  '.notdef .null nonmarkingreturn space exclam quotedbl numbersign dollar percent ampersand quotesingle parenleft parenright asterisk plus comma hyphen period slash ' +
  'zero one two three four five six seven eight nine colon semicolon less equal greater question at A B C D E F G H I J K L M N O P Q R S T U V W X Y Z ' +
  'bracketleft backslash bracketright asciicircum underscore grave a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft bar braceright asciitilde ' +
  'Adieresis Aring Ccedilla Eacute Ntilde Odieresis Udieresis aacute agrave acircumflex adieresis atilde aring ccedilla eacute egrave ecircumflex edieresis ' +
  'iacute igrave icircumflex idieresis ntilde oacute ograve ocircumflex odieresis otilde uacute ugrave ucircumflex udieresis dagger degree cent sterling section ' +
  'bullet paragraph germandbls registered copyright trademark acute dieresis notequal AE Oslash infinity plusminus lessequal greaterequal yen mu partialdiff ' +
  'summation product pi integral ordfeminine ordmasculine Omega ae oslash questiondown exclamdown logicalnot radical florin approxequal Delta guillemotleft ' +
  'guillemotright ellipsis nonbreakingspace Agrave Atilde Otilde OE oe endash emdash quotedblleft quotedblright quoteleft quoteright divide lozenge ydieresis ' +
  'Ydieresis fraction currency guilsinglleft guilsinglright fi fl daggerdbl periodcentered quotesinglbase quotedblbase perthousand Acircumflex Ecircumflex ' +
  'Aacute Edieresis Egrave Iacute Icircumflex Idieresis Igrave Oacute Ocircumflex apple Ograve Uacute Ucircumflex Ugrave dotlessi circumflex tilde macron breve ' +
  'dotaccent ring cedilla hungarumlaut ogonek caron Lslash lslash Scaron scaron Zcaron zcaron brokenbar Eth eth Yacute yacute Thorn thorn minus multiply ' +
  'onesuperior twosuperior threesuperior onehalf onequarter threequarters franc Gbreve gbreve Idotaccent Scedilla scedilla Cacute cacute Ccaron ccaron dcroat'
).split(' ');
