import { TextEngineError } from './errors.js';

/** How long lines are handled (webPDF `Operation_TextHighlight.wordBreak`). */
export type WordBreak = 'auto' | 'none' | 'word' | 'all';

/** Rendering options, after webPDF's `Operation_TextHighlight`. Every value ends up in CSS and is validated. */
export interface TextRenderOptions {
  /** CSS font family list, tried before the default monospace stack, e.g. `"Courier New", monospace`. */
  fontFamily?: string;
  /** CSS length, default `10px`; a bare number means pixels. */
  fontSize?: string;
  /** CSS length or a bare factor such as `1.2`, default `12px`. */
  lineHeight?: string;
  /** `#rgb`, `#rrggbb` (with optional alpha) or a CSS colour name, default `#000000`. */
  color?: string;
  /** Number each line in a gutter that selection skips. Default false. */
  lineNumbers?: boolean;
  /**
   * - `auto` (default): wrap at spaces, and anywhere inside a word too long for the line.
   * - `none`: no wrapping; what does not fit is cut at the margin.
   * - `word`: wrap at spaces only; an overlong word is cut at the margin.
   * - `all`: wrap anywhere, even inside words that would fit on the next line.
   */
  wordBreak?: WordBreak;
}

export type ResolvedTextOptions = Required<TextRenderOptions>;

/** Fonts with glyphs for Latin (umlauts included) and CJK; the generic family catches the rest. */
export const DEFAULT_FONT_STACK = '"DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono CJK JP", monospace';

const DEFAULTS: ResolvedTextOptions = {
  fontFamily: '',
  fontSize: '10px',
  lineHeight: '12px',
  color: '#000000',
  lineNumbers: false,
  wordBreak: 'auto',
};

const WORD_BREAKS: readonly WordBreak[] = ['auto', 'none', 'word', 'all'];

// The patterns admit no character that can end a CSS declaration, string or rule (; { } \ < > newline),
// so a value cannot break out of its declaration or of the <style> element.
const LENGTH = /^\d{1,4}(?:\.\d{1,4})?(?:px|pt|pc|em|rem|ex|ch|%|mm|cm|in)?$/;
const COLOR = /^(?:#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})|[a-z]{3,30})$/i;
// Comma-separated family names, each bare or wholly inside one pair of quotes, so quotes always balance.
const FAMILY = String.raw`\s*(?:"[\p{L}\p{N} _-]+"|'[\p{L}\p{N} _-]+'|[\p{L}\p{N} _-]+)\s*`;
const FONT_FAMILY = new RegExp(`^${FAMILY}(?:,${FAMILY})*$`, 'u');

/** Validates the options and fills in the defaults; throws `invalidOption` naming the first bad option. */
export function resolveTextOptions(options: TextRenderOptions = {}): ResolvedTextOptions {
  const resolved = { ...DEFAULTS, ...definedOnly(options) };
  check('fontFamily', resolved.fontFamily === '' || (resolved.fontFamily.length <= 200 && FONT_FAMILY.test(resolved.fontFamily)), resolved.fontFamily);
  check('fontSize', LENGTH.test(resolved.fontSize), resolved.fontSize);
  check('lineHeight', LENGTH.test(resolved.lineHeight), resolved.lineHeight);
  check('color', COLOR.test(resolved.color), resolved.color);
  check('wordBreak', WORD_BREAKS.includes(resolved.wordBreak), resolved.wordBreak);
  check('lineNumbers', typeof resolved.lineNumbers === 'boolean', resolved.lineNumbers);
  // CSS takes a bare number as a line-height factor but not as a font size: there it means pixels.
  if (/\d$/.test(resolved.fontSize)) resolved.fontSize += 'px';
  return resolved;
}

function definedOnly(options: TextRenderOptions): TextRenderOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

function check(name: keyof TextRenderOptions, ok: boolean, value: unknown): void {
  if (!ok) {
    throw new TextEngineError('invalidOption', `${name}: ${JSON.stringify(String(value).slice(0, 100))} is not an allowed value.`);
  }
}
