import { PDFDict, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import { resolve } from '../pdf-objects.js';

/** Small conversions between option values and PDF objects, shared by annotations, outlines and forms. */

/** A text string (UTF-16BE with BOM), so any character survives. */
export function textString(value: string): PDFHexString {
  return PDFHexString.fromText(value);
}

/** A literal string of ASCII text (for /DA, /DS), with the characters literal strings must escape escaped. */
export function literalString(value: string): PDFString {
  return PDFString.of(value.replace(/([\\()])/g, '\\$1'));
}

/** A PDF date string (`D:YYYYMMDDHHmmSSZ`). */
export function dateString(date: Date): PDFString {
  return PDFString.fromDate(date);
}

/** The text of a string object (literal or hex), or of a name; undefined for other objects. */
export function textOf(value: PDFObject | undefined): string | undefined {
  if (value instanceof PDFString || value instanceof PDFHexString) return value.decodeText();
  if (value instanceof PDFName) return value.decodeText();
  return undefined;
}

export function numberOf(value: PDFObject | undefined): number | undefined {
  return value instanceof PDFNumber ? value.asNumber() : undefined;
}

/** `#RRGGBB` as RGB components 0..1. */
export function rgb(hex: string | undefined, fallback: string): [number, number, number] {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex ?? '') ?? /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(fallback);
  if (!match) return [0, 0, 0];
  return [1, 2, 3].map((i) => round(parseInt(match[i]!, 16) / 255, 4)) as [number, number, number];
}

export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  const rounded = Math.round(value * factor) / factor;
  return Object.is(rounded, -0) ? 0 : rounded;
}

/** A number as content-stream text (no exponent, few digits). */
export function n(value: number): string {
  return String(round(value));
}

export { arrayValue as arrayOf, resolve } from '../pdf-objects.js';

export function dictOf(context: PDFContext, value: PDFObject | undefined): PDFDict | undefined {
  const resolved = resolve(context, value);
  return resolved instanceof PDFDict ? resolved : undefined;
}

/** The name value of a dictionary entry, without the slash. */
export function nameIn(dict: PDFDict, key: string): string | undefined {
  const value = dict.get(PDFName.of(key));
  const resolved = value instanceof PDFRef ? dict.context.lookup(value) : value;
  return resolved instanceof PDFName ? resolved.decodeText() : undefined;
}

/**
 * An object key as clients write it: "12", "12 0", "12 0 R", "12-0", "12_0". The generation is
 * optional.
 */
export function parseObjectKey(text: string): { objectNumber: number; generation?: number } | undefined {
  const match = /^\s*(\d+)(?:[\s_\-.:]+(\d+))?(?:\s*R)?\s*$/.exec(text);
  if (!match) return undefined;
  return { objectNumber: Number(match[1]), ...(match[2] === undefined ? {} : { generation: Number(match[2]) }) };
}

export function matchesObjectKey(ref: PDFRef | undefined, key: { objectNumber: number; generation?: number }): boolean {
  return ref !== undefined && ref.objectNumber === key.objectNumber && (key.generation === undefined || ref.generationNumber === key.generation);
}

/** A name made only of safe characters (for /IT, /Name, named actions). */
export function isPlainName(text: string): boolean {
  return /^[A-Za-z0-9_.+-]{1,127}$/.test(text);
}
