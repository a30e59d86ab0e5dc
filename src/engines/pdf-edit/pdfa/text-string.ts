import { PDFHexString, PDFString, type PDFObject } from '@cantoo/pdf-lib';

/** A PDF text string: PDFDocEncoding-safe ASCII as a literal, anything else as UTF-16BE (both allowed by PDF/A). */
export function textString(value: string): PDFObject {
  return /^[\x20-\x7e]*$/.test(value) ? PDFString.of(value.replace(/[\\()]/g, (c) => `\\${c}`)) : PDFHexString.fromText(value);
}
