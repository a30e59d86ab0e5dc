/**
 * Fonts as the content uses them (ISO 32000-1 9.5–9.7, ISO 19005-2 6.2.11): PDFont and its kinds
 * (PDSimpleFont, PDTrueTypeFont, PDType1Font, PDType3Font, PDType0Font, PDCIDFont), the CMaps of Type 0
 * fonts (PDCMap, PDReferencedCMap, CMapFile) and TrueType font programs' cmap tables (TrueTypeFontProgram).
 *
 * A font is used when a content stream selects it (`Tf`); its `renderingMode` is 3 when every text
 * shown with it was in rendering mode 3 (invisible), else the first other mode it was shown in, and
 * null when no text was shown with it (then it counts as rendered: stricter). Glyph-level facts (Glyph,
 * widths, CharSet and CIDSet against the font program) are not read: PDType1Font's
 * `charSetListsAllGlyphs` and PDCIDFont's `cidSetListsAllGlyphs` are not implemented, so those types are
 * yielded (their other rules can fail) but not claimed.
 */
import type { CosDict, CosDocument, CosStream, CosValue } from '../../cos/index.js';
import { contentTokens, textString } from '../../cos/index.js';
import { type LocatedObject, modelObject } from '../cos/object.js';
import { charSetListsAllGlyphs, cidSetListsAllGlyphs, glyphObjects, type ShownCodes, unicodeOfName } from './glyphs.js';
import { pathOf } from './pages.js';
import { dictIn, entry, intOf, itemsOf, nameOf, streamOf } from './values.js';

export interface FontUse {
  readonly path: string;
  /** Rendering modes text was shown in with this font. */
  readonly modes: Set<number>;
  /** The codes shown with it (content.ts records them; glyphs.ts makes the Glyph objects). */
  shown?: ShownCodes;
  /** The first page (1-based) it is used on, when known. */
  readonly page?: number;
}

const T = {
  type1: ['PDType1Font', 'PDSimpleFont', 'PDFont'],
  trueType: ['PDTrueTypeFont', 'PDSimpleFont', 'PDFont'],
  type3: ['PDType3Font', 'PDSimpleFont', 'PDFont'],
  type0: ['PDType0Font', 'PDFont'],
  cid: ['PDCIDFont', 'PDFont'],
  other: ['PDFont'],
  cmap: ['PDCMap'],
  referencedCMap: ['PDReferencedCMap', 'PDCMap'],
  cmapFile: ['CMapFile'],
  ttProgram: ['TrueTypeFontProgram'],
} as const;

/** The standard 14 fonts (ISO 32000-1 9.6.2.2), which PDF 1.4 readers have and need no widths for. */
const STANDARD_14 = new Set([
  'Times-Roman',
  'Times-Bold',
  'Times-Italic',
  'Times-BoldItalic',
  'Helvetica',
  'Helvetica-Bold',
  'Helvetica-Oblique',
  'Helvetica-BoldOblique',
  'Courier',
  'Courier-Bold',
  'Courier-Oblique',
  'Courier-BoldOblique',
  'Symbol',
  'ZapfDingbats',
]);

export function renderingModeOf(use: FontUse): number | null {
  for (const m of use.modes) if (m !== 3) return m;
  return use.modes.size > 0 ? 3 : null;
}

export function* fontObjects(doc: CosDocument, fonts: ReadonlyMap<CosDict, FontUse>): Generator<LocatedObject> {
  for (const [font, use] of fonts) {
    const subtype = nameOf(doc, font, 'Subtype');
    const renderingMode = renderingModeOf(use);
    const descriptor = dictIn(doc, font.entries.get('FontDescriptor'));
    const base = {
      Type: nameOf(doc, font, 'Type'),
      Subtype: subtype,
      fontName: nameOf(doc, font, 'BaseFont'),
      renderingMode,
      ...fontFile(doc, descriptor),
    };
    if (subtype === 'Type0') {
      const descendantValue = doc.resolve(font.entries.get('DescendantFonts'));
      const descendantRef = descendantValue?.kind === 'array' ? descendantValue.items[0] : undefined;
      const descendant = dictIn(doc, descendantRef);
      const dd = dictIn(doc, descendant?.entries.get('FontDescriptor'));
      const cidInfo = dictIn(doc, descendant?.entries.get('CIDSystemInfo'));
      const enc = entry(doc, font, 'Encoding');
      const cmapFacts = type0CMap(doc, enc);
      yield modelObject(T.type0, use.path, {
        ...base,
        ...fontFile(doc, dd),
        CIDFontOrdering: textOf(doc, cidInfo, 'Ordering'),
        CIDFontRegistry: textOf(doc, cidInfo, 'Registry'),
        CIDFontSupplement: intOf(doc, cidInfo, 'Supplement'),
        ...cmapFacts.font,
      });
      if (descendant !== undefined) {
        const map = entry(doc, descendant, 'CIDToGIDMap');
        yield modelObject(
          T.cid,
          pathOf(descendantRef, `${use.path}/DescendantFonts[0]`),
          {
            Type: nameOf(doc, descendant, 'Type'),
            Subtype: nameOf(doc, descendant, 'Subtype'),
            fontName: nameOf(doc, descendant, 'BaseFont'),
            renderingMode,
            ...fontFile(doc, dd),
            // A stream, or the name Identity (ISO 32000-1 Table 117); any other value is no CIDToGIDMap (null), as the rules read it.
            CIDToGIDMap: map?.kind === 'stream' ? 'Stream' : map?.kind === 'name' && map.value === 'Identity' ? 'Identity' : null,
            containsCIDSet: streamOf(doc, dd?.entries.get('CIDSet')) !== undefined,
            ...optional('cidSetListsAllGlyphs', cidSetListsAllGlyphs(doc, descendant, dd)),
          },
          use.page,
        );
      }
      if (use.shown !== undefined) yield* glyphObjects(doc, font, use.shown, use.path, renderingMode);
      yield* cmapObjects(doc, enc, font.entries.get('Encoding'), `${use.path}/Encoding`);
      continue;
    }
    const widths = entry(doc, font, 'Widths');
    const simple = {
      ...base,
      FirstChar: intOf(doc, font, 'FirstChar'),
      LastChar: intOf(doc, font, 'LastChar'),
      Widths_size: widths?.kind === 'array' ? widths.items.length : null,
      isStandard: subtype === 'Type1' && base.containsFontFile === false && STANDARD_14.has(base.fontName ?? ''),
    };
    if (subtype === 'TrueType') {
      const enc = entry(doc, font, 'Encoding');
      const encDict = enc?.kind === 'dict' ? enc : undefined;
      const encName = enc?.kind === 'name' ? enc.value : encDict !== undefined ? nameOf(doc, encDict, 'BaseEncoding') : null;
      const differences = encDict !== undefined && entry(doc, encDict, 'Differences')?.kind === 'array';
      const isSymbolic = ((intOf(doc, descriptor, 'Flags') ?? 0) & 4) !== 0;
      // Every /Differences name has a Unicode value (Adobe Glyph List or uniXXXX): true, false when one has none; unknown
      // (absent: the rule is not-checked) when a name could not be looked up because no glyph list is on this machine.
      const diffNames = differences ? itemsOf(doc, entry(doc, encDict, 'Differences')).flatMap((v) => (v.kind === 'name' ? [v.value] : [])) : [];
      const values = diffNames.map((n) => unicodeOfName(n));
      const unicode = values.includes(undefined) ? {} : { differencesAreUnicodeCompliant: !values.includes(null) };
      yield modelObject(T.trueType, use.path, { ...simple, Encoding: encName, containsDifferences: differences, isSymbolic, ...unicode });
      const program = streamOf(doc, descriptor?.entries.get('FontFile2'));
      if (program !== undefined) yield trueTypeProgram(doc, program, isSymbolic, pathOf(descriptor?.entries.get('FontFile2'), `${use.path}/FontDescriptor/FontFile2`));
    } else if (subtype === 'Type1' || subtype === 'MMType1') {
      const charSet = entry(doc, descriptor, 'CharSet');
      const charSetText = charSet?.kind === 'string' ? charSet.bytes.toString('latin1') : null;
      yield modelObject(T.type1, use.path, { ...simple, CharSet: charSetText, ...optional('charSetListsAllGlyphs', charSetListsAllGlyphs(doc, font, descriptor, charSetText, use.shown)) }, use.page);
    } else if (subtype === 'Type3') yield modelObject(T.type3, use.path, simple, use.page);
    else yield modelObject(T.other, use.path, base, use.page);
    if (use.shown !== undefined) yield* glyphObjects(doc, font, use.shown, use.path, renderingMode);
  }
}

/** A property whose value may be unknown (undefined): left out then, so the rules reading it are not-checked. */
function optional(name: string, value: boolean | null | undefined): Record<string, boolean | null> {
  return value === undefined ? {} : { [name]: value };
}

function textOf(doc: CosDocument, d: CosDict | undefined, key: string): string | null {
  const v = entry(doc, d, key);
  return v?.kind === 'string' ? textString(v.bytes) : null;
}

/** The font program of a descriptor: whether there is one, and its stream's /Subtype. */
function fontFile(doc: CosDocument, descriptor: CosDict | undefined): { containsFontFile: boolean; fontFileSubtype: string | null } {
  for (const key of ['FontFile', 'FontFile2', 'FontFile3']) {
    const s = streamOf(doc, descriptor?.entries.get(key));
    if (s !== undefined) return { containsFontFile: true, fontFileSubtype: nameOf(doc, s.dict, 'Subtype') };
  }
  return { containsFontFile: false, fontFileSubtype: null };
}

/** A Type 0 font's CMap facts: the name, and the registry, ordering and supplement of an embedded CMap (a predefined one's are not tabled: unknown, so absent). */
function type0CMap(doc: CosDocument, enc: CosValue | undefined): { font: Record<string, string | number | null> } {
  if (enc?.kind === 'name') {
    const identity = enc.value === 'Identity-H' || enc.value === 'Identity-V';
    return { font: identity ? { cmapName: enc.value, CMapRegistry: null, CMapOrdering: null, CMapSupplement: null } : { cmapName: enc.value } };
  }
  if (enc?.kind === 'stream') {
    const info = dictIn(doc, enc.dict.entries.get('CIDSystemInfo'));
    return {
      font: { cmapName: nameOf(doc, enc.dict, 'CMapName'), CMapRegistry: textOf(doc, info, 'Registry'), CMapOrdering: textOf(doc, info, 'Ordering'), CMapSupplement: intOf(doc, info, 'Supplement') },
    };
  }
  return { font: { cmapName: null, CMapRegistry: null, CMapOrdering: null, CMapSupplement: null } };
}

function* cmapObjects(doc: CosDocument, enc: CosValue | undefined, raw: CosValue | undefined, path: string): Generator<LocatedObject> {
  if (enc?.kind === 'name') {
    yield modelObject(T.cmap, path, { CMapName: enc.value, containsEmbeddedFile: false });
    return;
  }
  if (enc?.kind !== 'stream') return;
  const p = pathOf(raw, path);
  yield modelObject(T.cmap, p, { CMapName: nameOf(doc, enc.dict, 'CMapName'), containsEmbeddedFile: true });
  const use = entry(doc, enc.dict, 'UseCMap');
  if (use?.kind === 'name') yield modelObject(T.referencedCMap, `${p}/UseCMap`, { CMapName: use.value, containsEmbeddedFile: false });
  else if (use?.kind === 'stream') yield modelObject(T.referencedCMap, `${p}/UseCMap`, { CMapName: nameOf(doc, use.dict, 'CMapName'), containsEmbeddedFile: true });
  const facts = cmapFile(doc, enc);
  yield modelObject(T.cmapFile, p, { dictWMode: intOf(doc, enc.dict, 'WMode') ?? 0, ...facts });
}

/** An embedded CMap's own WMode (`/WMode n def`, 0 when absent) and its largest CID (cidrange, cidchar); nothing when it cannot be decoded. */
function cmapFile(doc: CosDocument, stream: CosStream): { WMode?: number; maximalCID?: number } {
  const decoded = doc.decodeStream(stream);
  if (!decoded.ok) return {};
  let wmode = 0;
  let max = 0;
  let section: 'range' | 'char' | null = null;
  let operands: CosValue[] = [];
  for (const token of contentTokens(decoded.data, doc.env)) {
    if (token.kind === 'operand') {
      if (section === 'range' && operands.length === 2) {
        const lo = codeOf(operands[0]);
        const hi = codeOf(operands[1]);
        if (token.value.kind === 'int' && lo !== null && hi !== null) max = Math.max(max, token.value.value + Math.max(0, hi - lo));
        operands = [];
      } else if (section === 'char' && operands.length === 1) {
        if (token.value.kind === 'int') max = Math.max(max, token.value.value);
        operands = [];
      } else if (operands.length < 64) operands.push(token.value);
      continue;
    }
    if (token.kind !== 'operator') continue;
    if (token.name === 'begincidrange') section = 'range';
    else if (token.name === 'begincidchar') section = 'char';
    else if (token.name === 'endcidrange' || token.name === 'endcidchar') section = null;
    else if (token.name === 'def' && operands.length >= 2) {
      const [key, value] = operands.slice(-2);
      if (key?.kind === 'name' && key.value === 'WMode' && value?.kind === 'int') wmode = value.value;
    }
    operands = [];
  }
  return { WMode: wmode, maximalCID: max };
}

function codeOf(v: CosValue | undefined): number | null {
  if (v?.kind !== 'string' || v.bytes.length === 0 || v.bytes.length > 4) return null;
  return v.bytes.readUIntBE(0, v.bytes.length);
}

/** A TrueType program's cmap table (the OpenType/TrueType 'cmap'): how many encoding records, and whether one is (3,0) Microsoft Symbol. */
function trueTypeProgram(doc: CosDocument, program: CosStream, isSymbolic: boolean, path: string): LocatedObject {
  const decoded = doc.decodeStream(program);
  const facts = decoded.ok ? cmapTable(decoded.data) : undefined;
  return modelObject(T.ttProgram, path, { isSymbolic, ...(facts ?? {}) });
}

export function cmapTable(data: Buffer): { nrCmaps: number; cmap30Present: boolean } | undefined {
  if (data.length < 12) return undefined;
  const numTables = data.readUInt16BE(4);
  for (let i = 0; i < numTables; i++) {
    const at = 12 + i * 16;
    if (at + 16 > data.length) return undefined;
    if (data.toString('latin1', at, at + 4) !== 'cmap') continue;
    const offset = data.readUInt32BE(at + 8);
    if (offset + 4 > data.length) return undefined;
    const count = data.readUInt16BE(offset + 2);
    let cmap30 = false;
    for (let j = 0; j < count; j++) {
      const rec = offset + 4 + j * 8;
      if (rec + 4 > data.length) return undefined;
      if (data.readUInt16BE(rec) === 3 && data.readUInt16BE(rec + 2) === 0) cmap30 = true;
    }
    return { nrCmaps: count, cmap30Present: cmap30 };
  }
  // No cmap table at all: no encodings.
  return { nrCmaps: 0, cmap30Present: false };
}
