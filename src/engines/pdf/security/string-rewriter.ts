import { isName, PdfParser, type PdfString } from '../pdf-syntax.js';
import type { Encrypt } from './object-cipher.js';

/**
 * Rewrites the text of one PDF object with every string encrypted, copying everything else byte for
 * byte (numbers keep their spelling, names their escapes). Encrypted strings are written as hex
 * strings, which need no escaping.
 */

export interface ValueRewrite {
  encrypt: Encrypt;
  /** For a stream dictionary: the new value of its top-level /Length. */
  length?: number;
  /** A top-level key whose string stays as it is (a signature dictionary's /Contents, ISO 32000-1 §7.6.1). */
  keepKey?: string;
}

/** The value at `bytes[start, end)` rewritten; `start` is where the value begins (no leading white space). */
export function rewriteValue(bytes: Buffer, start: number, end: number, rewrite: ValueRewrite): Buffer {
  const isDictionary = bytes[start] === 0x3c && bytes[start + 1] === 0x3c;
  if (!isDictionary || (rewrite.length === undefined && rewrite.keepKey === undefined)) {
    return encryptStrings(bytes, start, end, rewrite.encrypt);
  }
  // Walk the top-level entries to find the keys that get special treatment.
  const out: Buffer[] = [];
  const parser = new PdfParser(bytes, start + 2);
  let copied = start;
  for (;;) {
    parser.skipWhite();
    if (bytes[parser.position] === 0x3e && bytes[parser.position + 1] === 0x3e) break;
    const key = parser.readValue();
    parser.skipWhite();
    const valueStart = parser.position;
    parser.readValue();
    const valueEnd = parser.position;
    const name = isName(key) ? key.name : '';
    if (name === 'Length' && rewrite.length !== undefined) {
      out.push(encryptStrings(bytes, copied, valueStart, rewrite.encrypt), Buffer.from(String(rewrite.length), 'latin1'));
      copied = valueEnd;
    } else if (name === rewrite.keepKey) {
      out.push(encryptStrings(bytes, copied, valueStart, rewrite.encrypt), bytes.subarray(valueStart, valueEnd));
      copied = valueEnd;
    }
  }
  out.push(encryptStrings(bytes, copied, end, rewrite.encrypt));
  return Buffer.concat(out);
}

const WHITE_OR_DELIMITER = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

/** Every literal and hex string in `bytes[start, end)` replaced by its encryption, as a hex string. */
export function encryptStrings(bytes: Buffer, start: number, end: number, encrypt: Encrypt): Buffer {
  const out: Buffer[] = [];
  let copied = start;
  let i = start;
  while (i < end) {
    const byte = bytes[i]!;
    if (byte === 0x28 || (byte === 0x3c && bytes[i + 1] !== 0x3c)) {
      const parser = new PdfParser(bytes, i);
      const value = parser.readValue() as PdfString;
      out.push(bytes.subarray(copied, i), Buffer.from(`<${encrypt(value.bytes).toString('hex')}>`, 'latin1'));
      i = copied = parser.position;
    } else if (byte === 0x3c) {
      i += 2; // "<<"
    } else if (byte === 0x2f) {
      // A name: skip it whole, so nothing in it is mistaken for a string.
      i++;
      while (i < end && !WHITE_OR_DELIMITER.has(bytes[i]!)) i++;
    } else if (byte === 0x25) {
      while (i < end && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i++;
    } else {
      i++;
    }
  }
  out.push(bytes.subarray(copied, end));
  return Buffer.concat(out);
}
