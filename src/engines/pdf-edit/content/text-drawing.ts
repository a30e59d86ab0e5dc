import type { TextFont } from './fonts.js';
import { num, rgbOperands, type Rgb } from './units.js';

export interface TextStyle {
  font: TextFont;
  /** The font's name in the resources the operators run with. */
  resourceName: string;
  size: number;
  color: Rgb;
  /** Outline (stroked) glyphs instead of filled ones. */
  outline?: boolean;
  underline?: boolean;
}

/** Slant of synthesised italics (12°), as used by common PDF producers. */
const ITALIC_SKEW = Math.tan((12 * Math.PI) / 180);

/** Content operators that draw one line of text with its baseline starting at (x, y). */
export function textOperators(style: TextStyle, text: string, x: number, y: number): string {
  const { font, size } = style;
  const color = rgbOperands(style.color);
  // Outlines and synthesised bold are strokes around the glyphs; the width scales with the size.
  const strokeWidth = size * (style.outline && font.syntheticBold ? 0.05 : 0.03);
  const mode = style.outline ? 1 : font.syntheticBold ? 2 : 0;
  const skew = font.syntheticItalic ? ITALIC_SKEW : 0;
  const parts = [
    `${color} rg ${color} RG`,
    mode !== 0 ? `${num(strokeWidth)} w` : '',
    'BT',
    `/${style.resourceName} ${num(size)} Tf`,
    `${mode} Tr`,
    `1 0 ${num(skew)} 1 ${num(x)} ${num(y)} Tm`,
    `${font.encode(text)} Tj`,
    'ET',
  ];
  if (style.underline) {
    const thickness = Math.max(font.underlineThickness * size, 0.5);
    const width = font.widthOf(text, size);
    parts.push(`${num(x)} ${num(y + font.underlinePosition * size - thickness / 2)} ${num(width)} ${num(thickness)} re f`);
  }
  return parts.filter(Boolean).join('\n');
}
