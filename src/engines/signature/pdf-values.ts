import type { QDict, QValue } from '../pdf/qpdf-json.js';

/**
 * PDF syntax for the objects an incremental update rewrites (catalog, AcroForm, page), from qpdf's
 * JSON v2 notation of the original objects (engines/pdf/qpdf-json.ts): names "/N", references
 * "N G R", strings "u:text" or "b:hex", numbers and booleans as JSON.
 */

/** A value the writer adds itself: written as is (already PDF syntax). */
export class Raw {
  constructor(readonly text: string) {}
}

export type PdfOut = QValue | Raw | PdfOut[] | { [key: string]: PdfOut };

function isRefText(value: string): boolean {
  return /^\d+ \d+ R$/.test(value);
}

/** A real number as PDF writes it: no exponent, at most 6 decimals, no trailing zeros. */
export function pdfNumber(value: number): string {
  if (!Number.isFinite(value)) return '0';
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  const fixed = value.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
  return fixed === '-0' ? '0' : fixed;
}

/** A text string (ISO 32000-1 §7.9.2.2): printable ASCII as a literal, anything else UTF-16BE with BOM in hex. */
export function pdfText(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
  const utf16 = Buffer.from(text, 'utf16le').swap16();
  return `<FEFF${utf16.toString('hex').toUpperCase()}>`;
}

export function pdfName(name: string): string {
  // Regular characters stay; delimiters, white space, # and non-ASCII are #xx escaped (§7.3.5).
  return `/${Buffer.from(name, 'utf8')
    .toString('latin1')
    .replace(/[^\x21-\x7e]|[#()<>[\]{}/%]/g, (c) => `#${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}`;
}

export function serialize(value: PdfOut): string {
  if (value instanceof Raw) return value.text;
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return pdfNumber(value);
  if (typeof value === 'string') {
    if (value.startsWith('/')) return value; // qpdf writes names in PDF syntax already
    if (value.startsWith('n:/')) return value.slice(2);
    if (isRefText(value)) return value;
    if (value.startsWith('u:')) return pdfText(value.slice(2));
    if (value.startsWith('b:')) return `<${value.slice(2)}>`;
    return pdfText(value);
  }
  if (Array.isArray(value)) return `[${value.map(serialize).join(' ')}]`;
  return `<<${Object.entries(value)
    .map(([key, item]) => `${key.startsWith('/') ? key : pdfName(key)} ${serialize(item)}`)
    .join(' ')}>>`;
}

/** A shallow copy of a qpdf dictionary that the writer may change. */
export function copyDict(dict: QDict | undefined): { [key: string]: PdfOut } {
  return { ...(dict ?? {}) };
}
