import { StandardFonts, type PDFDocument, type PDFRef } from '@cantoo/pdf-lib';
import { fillColor, formXObject, rectPath, roundedRectPath, strokeColor } from './content.js';
import { showText, standardFont, wrapText, type FontCache, type FontFamily } from './fonts.js';
import type { Box } from './geometry.js';
import { n } from './pdf-values.js';
import type { Color } from './shapes.js';

/** Appearances with text: free text boxes, rubber stamps and note icons. */

export type Justification = 'leftJustified' | 'centered' | 'rightJustified';

export interface FreeTextLook {
  rect: Box;
  text: string;
  family: FontFamily;
  bold: boolean;
  italic: boolean;
  size: number;
  textColor: Color;
  frameColor: Color;
  justification: Justification;
  opacity: number;
}

/** A framed box with the text wrapped inside; text beyond the box is clipped. */
export async function freeTextAppearance(document: PDFDocument, fonts: FontCache, look: FreeTextLook): Promise<PDFRef> {
  const font = await fonts.get(standardFont(look.family, look.bold, look.italic));
  const [x1, y1, x2, y2] = look.rect;
  const frame = 1;
  const padding = frame + 2;
  const lines = wrapText(font, look.size, fonts.drawable(font, look.text), Math.max(1, x2 - x1 - 2 * padding));
  const ascent = font.heightAtSize(look.size, { descender: false });
  const leading = look.size * 1.2;
  const ops = [
    'q',
    strokeColor(look.frameColor),
    `${n(frame)} w`,
    rectPath([x1 + frame / 2, y1 + frame / 2, x2 - frame / 2, y2 - frame / 2]),
    'S',
    rectPath([x1 + frame, y1 + frame, x2 - frame, y2 - frame]),
    'W n',
    'BT',
    `/F0 ${n(look.size)} Tf`,
    fillColor(look.textColor),
  ];
  let baseline = y2 - padding - ascent;
  for (const line of lines) {
    if (baseline < y1 - look.size) break;
    const width = font.widthOfTextAtSize(line, look.size);
    const x = look.justification === 'centered' ? (x1 + x2 - width) / 2 : look.justification === 'rightJustified' ? x2 - padding - width : x1 + padding;
    if (line !== '') ops.push(`1 0 0 1 ${n(x)} ${n(baseline)} Tm`, showText(font, line));
    baseline -= leading;
  }
  ops.push('ET', 'Q');
  return formXObject(document.context, look.rect, `${ops.join('\n')}\n`, { fonts: { F0: font.ref }, opacity: look.opacity });
}

/** A rubber stamp: a rounded frame with the label in capitals, as large as fits. */
export async function stampAppearance(document: PDFDocument, fonts: FontCache, rect: Box, label: string, color: Color, opacity: number): Promise<PDFRef> {
  const font = await fonts.get(StandardFonts.HelveticaBold);
  const text = fonts.drawable(font, label.toUpperCase());
  const [x1, y1, x2, y2] = rect;
  const w = x2 - x1;
  const h = y2 - y1;
  const border = Math.max(1, Math.min(w, h) * 0.06);
  const widthAtOne = Math.max(font.widthOfTextAtSize(text, 1), 0.001);
  const size = Math.max(1, Math.min((h - 2 * border) * 0.6, (w - 4 * border) / widthAtOne));
  const textWidth = font.widthOfTextAtSize(text, size);
  const ops = [
    strokeColor(color),
    `${n(border)} w`,
    roundedRectPath([x1 + border / 2, y1 + border / 2, x2 - border / 2, y2 - border / 2], Math.min(w, h) * 0.15),
    'S',
    'BT',
    `/F0 ${n(size)} Tf`,
    fillColor(color),
    `1 0 0 1 ${n(x1 + (w - textWidth) / 2)} ${n((y1 + y2) / 2 - size * 0.35)} Tm`,
    showText(font, text),
    'ET',
  ];
  return formXObject(document.context, rect, `${ops.join('\n')}\n`, { fonts: { F0: font.ref }, opacity });
}

interface Glyph {
  font: StandardFonts;
  text: string;
  /** Degrees, counter-clockwise. */
  rotate?: number;
}

const ZAPF = StandardFonts.ZapfDingbats;
const BOLD = StandardFonts.HelveticaBold;

const NOTE_GLYPHS: Record<string, Glyph> = {
  check: { font: ZAPF, text: '\u2713' },
  checkmark: { font: ZAPF, text: '\u2714' },
  circle: { font: ZAPF, text: '\u25CF' },
  comment: { font: ZAPF, text: '\u275D' },
  cross: { font: ZAPF, text: '\u2717' },
  crossHair: { font: ZAPF, text: '\u271B' },
  insert: { font: BOLD, text: '^' },
  key: { font: BOLD, text: 'K' },
  note: { font: ZAPF, text: '\u270E' },
  help: { font: BOLD, text: '?' },
  newParagraph: { font: BOLD, text: 'NP' },
  paragraph: { font: BOLD, text: '\u00B6' },
  rightArrow: { font: ZAPF, text: '\u2794' },
  rightPointer: { font: ZAPF, text: '\u261B' },
  star: { font: ZAPF, text: '\u2605' },
  upArrow: { font: ZAPF, text: '\u2794', rotate: 90 },
  upLeftArrow: { font: ZAPF, text: '\u2794', rotate: 135 },
  unnamed: { font: ZAPF, text: '\u270E' },
};

/** A note icon: a rounded square in the annotation colour with the icon's symbol. */
export async function noteIconAppearance(document: PDFDocument, fonts: FontCache, rect: Box, icon: string, color: Color, opacity: number): Promise<PDFRef> {
  const glyph = NOTE_GLYPHS[icon] ?? NOTE_GLYPHS.note!;
  const font = await fonts.get(glyph.font);
  const [x1, y1, x2, y2] = rect;
  const side = Math.min(x2 - x1, y2 - y1);
  const luminance = 0.299 * color[0] + 0.587 * color[1] + 0.114 * color[2];
  const ink: Color = luminance > 0.6 ? [0, 0, 0] : [1, 1, 1];
  const size = side * (glyph.text.length > 1 ? 0.45 : 0.7);
  const width = font.widthOfTextAtSize(glyph.text, size);
  const angle = ((glyph.rotate ?? 0) * Math.PI) / 180;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const ops = [
    fillColor(color),
    strokeColor([0.2, 0.2, 0.2]),
    '0.75 w',
    roundedRectPath([x1 + 0.5, y1 + 0.5, x2 - 0.5, y2 - 0.5], side * 0.15),
    'B',
    'BT',
    `/F0 ${n(size)} Tf`,
    fillColor(ink),
    `${n(cos)} ${n(sin)} ${n(-sin)} ${n(cos)} ${n((x1 + x2) / 2)} ${n((y1 + y2) / 2)} Tm`,
    `${n(-width / 2)} ${n(-size * 0.35)} Td`,
    showText(font, glyph.text),
    'ET',
  ];
  return formXObject(document.context, rect, `${ops.join('\n')}\n`, { fonts: { F0: font.ref }, opacity });
}
