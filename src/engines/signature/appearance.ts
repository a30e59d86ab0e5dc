import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';
import { SignatureEngineError } from './errors.js';
import { pdfNumber } from './pdf-values.js';
import type { AppearanceObjects } from './update-writer.js';

/**
 * The visible appearance of a signature field (a form XObject): a name area on the left (the
 * signer's name, large), an identifier area on the right (lines of text), and an optional image
 * (centre: behind both areas; left or right: in place of that area's text), with the image's
 * opacity. Text is set in an embedded TrueType subset as a Type0/Identity-H font with a ToUnicode
 * map, so umlauts render and text extraction finds the words.
 */

const require = createRequire(import.meta.url);
type Fontkit = typeof import('fontkit');
type Font = import('fontkit').Font;
type Glyph = import('fontkit').Glyph;
type Subset = ReturnType<Font['createSubset']>;

/** TrueType faces with Latin, Greek and Cyrillic coverage, the first installed one is used. */
const FONT_FILES = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf',
  '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf',
];

/**
 * CJK faces for text the first font cannot show (Debian's fonts-noto-cjk: OpenType with CFF outlines
 * in a collection). Loaded only when an appearance needs them: the collection is ~20 MB.
 */
const CJK_FONT_FILES: [file: string, postscriptName: string][] = [
  ['/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', 'NotoSansCJKjp-Regular'],
  ['/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc', 'NotoSerifCJKjp-Regular'],
];

let fontPromise: Promise<Font> | undefined;
let cjkPromise: Promise<Font | undefined> | undefined;

/** The first installed CJK face; undefined when none is. */
function loadCjkFont(): Promise<Font | undefined> {
  cjkPromise ??= (async () => {
    const fontkit = require('fontkit') as Fontkit;
    for (const [file, name] of CJK_FONT_FILES) {
      try {
        const font = fontkit.create(await readFile(file), name);
        if ('layout' in font) return font as Font;
      } catch {
        // the next one
      }
    }
    return undefined;
  })();
  return cjkPromise;
}

/** The font for the appearance's text: the Latin face, or a CJK face when it shows characters the Latin one lacks. */
async function fontFor(texts: string[]): Promise<Font> {
  const font = await loadFont();
  const missing = [...texts.join('')].map((c) => c.codePointAt(0)!).filter((cp) => cp > 0x20 && !font.hasGlyphForCodePoint(cp));
  if (missing.length === 0) return font;
  const cjk = await loadCjkFont();
  return cjk && missing.filter((cp) => cjk.hasGlyphForCodePoint(cp)).length > 0 ? cjk : font;
}

async function loadFont(): Promise<Font> {
  fontPromise ??= (async () => {
    const fontkit = require('fontkit') as Fontkit;
    for (const file of FONT_FILES) {
      try {
        const font = fontkit.create(await readFile(file));
        if ('layout' in font) return font as Font;
      } catch {
        // the next one
      }
    }
    throw new SignatureEngineError('unreadable', 'no TrueType font for the signature appearance is installed (fonts-dejavu-core or fonts-liberation2)');
  })();
  fontPromise.catch(() => (fontPromise = undefined));
  return fontPromise;
}

export interface AppearanceImage {
  /** Raw 8-bit RGB samples, and the alpha channel when the image has one. */
  rgb: Buffer;
  alpha: Buffer | undefined;
  width: number;
  height: number;
  position: 'center' | 'left' | 'right';
  /** 0–100. */
  opacity: number;
}

export interface AppearanceSpec {
  width: number;
  height: number;
  /** Left area; '' = none (the identifier takes the whole width). */
  name: string;
  /** Right area, one entry per line. */
  lines: string[];
  image?: AppearanceImage;
  /**
   * The page's /Rotate: the content is turned back by it so that it stands upright as the viewer shows
   * the page. `width` and `height` are as the viewer sees them; the form's BBox is the widget's /Rect,
   * whose extents are swapped for 90 and 270.
   */
  rotate?: 0 | 90 | 180 | 270;
}

/** The `cm` from the upright drawing (width × height as seen) into the form's BBox on a page turned by `rotate`. */
function uprightMatrix(rotate: AppearanceSpec['rotate'], width: number, height: number): string {
  const n = pdfNumber;
  if (rotate === 90) return `0 1 -1 0 ${n(height)} 0 cm\n`;
  if (rotate === 180) return `-1 0 0 -1 ${n(width)} ${n(height)} cm\n`;
  if (rotate === 270) return `0 -1 1 0 0 ${n(width)} cm\n`;
  return '';
}

interface ShapedText {
  gids: number[];
  /** Width at size 1. */
  width: number;
}

class FontSubset {
  private readonly subset: Subset;
  /** New glyph id → (advance width in 1/1000 em, the text it stands for). */
  private readonly used = new Map<number, { width: number; text: string }>();

  constructor(private readonly font: Font) {
    this.subset = font.createSubset();
  }

  shape(text: string): ShapedText {
    const run = this.font.layout(text);
    const gids: number[] = [];
    let width = 0;
    run.glyphs.forEach((glyph: Glyph) => {
      // fontkit returns the glyph's id in the subset (its typings say boolean).
      const gid = this.subset.includeGlyph(glyph) as unknown as number;
      const advance = (glyph.advanceWidth * 1000) / this.font.unitsPerEm;
      if (!this.used.has(gid)) this.used.set(gid, { width: advance, text: String.fromCodePoint(...(glyph.codePoints.length > 0 ? glyph.codePoints : [0xfffd])) });
      gids.push(gid);
      width += advance / 1000;
    });
    return { gids, width };
  }

  /** The font's objects: Type0 {{0}}, CIDFont {{1}}, descriptor {{2}}, ToUnicode {{3}}, font file {{4}} (offset by `base`). */
  objects(base: number): Buffer[] {
    const ref = (i: number) => `{{${base + i}}}`;
    const name = `QUIREA+${(this.font.postscriptName ?? 'Font').replace(/[^A-Za-z0-9-]/g, '')}`;
    const scale = 1000 / this.font.unitsPerEm;
    const bbox = this.font.bbox;
    const widths = [...this.used.entries()].sort((a, b) => a[0] - b[0]).map(([gid, { width }]) => `${gid} [${pdfNumber(Math.round(width))}]`);
    const fontFile = Buffer.from(this.subset.encode());
    const file = deflateSync(fontFile);
    // CFF outlines (the CJK faces): fontkit's subset is a bare CFF whose CIDs are the subset's glyph ids,
    // embedded as CIDFontType0 with FontFile3 /CIDFontType0C (ISO 32000-1 §9.7.4, §9.9); TrueType as CIDFontType2.
    const cff = (this.font as unknown as { directory?: { tables?: Record<string, unknown> } }).directory?.tables?.['CFF '] !== undefined;
    const cmap = deflateSync(Buffer.from(toUnicodeCMap(this.used), 'latin1'));
    const stream = (dict: string, data: Buffer) => Buffer.concat([Buffer.from(`${dict}\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
    return [
      Buffer.from(`<</Type /Font /Subtype /Type0 /BaseFont /${name} /Encoding /Identity-H /DescendantFonts [${ref(1)}] /ToUnicode ${ref(3)}>>`, 'latin1'),
      Buffer.from(
        `<</Type /Font /Subtype /${cff ? 'CIDFontType0' : 'CIDFontType2'} /BaseFont /${name} /CIDSystemInfo <</Registry (Adobe) /Ordering (Identity) /Supplement 0>> /FontDescriptor ${ref(2)}${cff ? '' : ' /CIDToGIDMap /Identity'} /DW 1000 /W [${widths.join(' ')}]>>`,
        'latin1',
      ),
      Buffer.from(
        `<</Type /FontDescriptor /FontName /${name} /Flags 32 /FontBBox [${[bbox.minX, bbox.minY, bbox.maxX, bbox.maxY].map((n) => Math.round(n * scale)).join(' ')}] /ItalicAngle 0 /Ascent ${Math.round(this.font.ascent * scale)} /Descent ${Math.round(this.font.descent * scale)} /CapHeight ${Math.round((this.font.capHeight || this.font.ascent) * scale)} /StemV 80 /${cff ? 'FontFile3' : 'FontFile2'} ${ref(4)}>>`,
        'latin1',
      ),
      stream(`<</Filter /FlateDecode /Length ${cmap.length}>>`, cmap),
      stream(`<</Filter /FlateDecode /Length ${file.length}${cff ? ' /Subtype /CIDFontType0C' : ` /Length1 ${fontFile.length}`}>>`, file),
    ];
  }
}

function utf16Hex(text: string): string {
  return Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase();
}

function toUnicodeCMap(used: Map<number, { text: string }>): string {
  const entries = [...used.entries()].sort((a, b) => a[0] - b[0]);
  const chunks: string[] = [];
  for (let i = 0; i < entries.length; i += 100) {
    const slice = entries.slice(i, i + 100);
    chunks.push(`${slice.length} beginbfchar\n${slice.map(([gid, { text }]) => `<${gid.toString(16).padStart(4, '0').toUpperCase()}> <${utf16Hex(text)}>`).join('\n')}\nendbfchar`);
  }
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <FFFF>',
    'endcodespacerange',
    ...chunks,
    'endcmap',
    'CMapName currentdict /CMap defineresource pop',
    'end',
    'end',
  ].join('\n');
}

function textOperator(shaped: ShapedText, size: number, x: number, y: number): string {
  const hex = shaped.gids.map((gid) => gid.toString(16).padStart(4, '0')).join('');
  return `BT /F1 ${pdfNumber(size)} Tf ${pdfNumber(x)} ${pdfNumber(y)} Td <${hex}> Tj ET`;
}

/** Decodes a PNG, JPEG (or any format sharp reads) into RGB and alpha samples, at most 1000 px on a side. */
export async function decodeImage(bytes: Buffer, position: AppearanceImage['position'], opacity: number): Promise<AppearanceImage> {
  const sharp = (await import('sharp')).default;
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: 50_000_000 })
      .resize({ width: 1000, height: 1000, fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const pixels = info.width * info.height;
    const rgb = Buffer.alloc(pixels * 3);
    const alpha = info.channels === 4 || info.channels === 2 ? Buffer.alloc(pixels) : undefined;
    for (let i = 0; i < pixels; i++) {
      const at = i * info.channels;
      if (info.channels >= 3) data.copy(rgb, i * 3, at, at + 3);
      else rgb.fill(data[at]!, i * 3, i * 3 + 3);
      if (alpha) alpha[i] = data[at + info.channels - 1]!;
    }
    return { rgb, alpha, width: info.width, height: info.height, position, opacity };
  } catch (error) {
    throw new SignatureEngineError('image', `the appearance image cannot be read: ${(error as Error).message}`);
  }
}

/** Builds the appearance objects (the XObject's content, resources and the font and image objects). */
export async function buildAppearance(spec: AppearanceSpec): Promise<AppearanceObjects> {
  const font = await fontFor([spec.name, ...spec.lines]);
  const subset = new FontSubset(font);
  const { width, height } = spec;
  const pad = Math.min(2, width / 20, height / 20);
  const ops: string[] = [];
  const objects: Buffer[] = [];
  let resources = '';

  const image = spec.image;
  const imageArea = image ? (image.position === 'left' ? [0, 0, width / 2, height] : image.position === 'right' ? [width / 2, 0, width / 2, height] : [0, 0, width, height]) : undefined;
  const showName = spec.name !== '' && image?.position !== 'left';
  const showLines = spec.lines.length > 0 && image?.position !== 'right';
  const split = showName && showLines ? width / 2 : image?.position === 'left' ? width / 2 : 0;

  if (image && imageArea) {
    const [ax, ay, aw, ah] = imageArea as [number, number, number, number];
    const fit = Math.min(aw / image.width, ah / image.height);
    const [w, h] = [image.width * fit, image.height * fit];
    const imageIndex = 0;
    const data = deflateSync(image.rgb);
    const smask = image.alpha ? deflateSync(image.alpha) : undefined;
    objects.push(
      Buffer.concat([
        Buffer.from(
          `<</Type /XObject /Subtype /Image /Width ${image.width} /Height ${image.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode${smask ? ' /SMask {{1}}' : ''} /Length ${data.length}>>\nstream\n`,
          'latin1',
        ),
        data,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
    if (smask) {
      objects.push(
        Buffer.concat([
          Buffer.from(
            `<</Type /XObject /Subtype /Image /Width ${image.width} /Height ${image.height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${smask.length}>>\nstream\n`,
            'latin1',
          ),
          smask,
          Buffer.from('\nendstream', 'latin1'),
        ]),
      );
    }
    const alpha = pdfNumber(Math.max(0, Math.min(100, image.opacity)) / 100);
    resources += ` /XObject <</Im1 {{${imageIndex}}}>> /ExtGState <</GS1 <</ca ${alpha} /CA ${alpha}>>>>`;
    ops.push(`q /GS1 gs ${pdfNumber(w)} 0 0 ${pdfNumber(h)} ${pdfNumber(ax + (aw - w) / 2)} ${pdfNumber(ay + (ah - h) / 2)} cm /Im1 Do Q`);
  }

  const fontBase = objects.length;
  if (showName) {
    const shaped = subset.shape(spec.name);
    const areaWidth = (showLines ? split : width) - 2 * pad;
    const size = Math.max(1, Math.min((height - 2 * pad) * 0.6, areaWidth / Math.max(shaped.width, 0.01)));
    ops.push(textOperator(shaped, size, pad + (areaWidth - shaped.width * size) / 2, (height - size * 0.7) / 2));
  }
  if (showLines) {
    const x0 = (showName ? split : image?.position === 'left' ? split : 0) + pad;
    const areaWidth = width - x0 - pad;
    const shapedLines = spec.lines.map((line) => subset.shape(line));
    const widest = Math.max(...shapedLines.map((s) => s.width), 0.01);
    const size = Math.max(1, Math.min((height - 2 * pad) / (shapedLines.length * 1.2), areaWidth / widest));
    shapedLines.forEach((shaped, i) => ops.push(textOperator(shaped, size, x0, height - pad - size * (i + 1) * 1.2 + size * 0.25)));
  }
  if (showName || showLines) {
    objects.push(...subset.objects(fontBase));
    resources += ` /Font <</F1 {{${fontBase}}}>>`;
  }
  return { content: Buffer.from(`${uprightMatrix(spec.rotate, width, height)}0 g\n${ops.join('\n')}\n`, 'latin1'), resources: `<<${resources} /ProcSet [/PDF /Text /ImageC]>>`, objects };
}
