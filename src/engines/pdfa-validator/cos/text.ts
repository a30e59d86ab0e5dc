/**
 * Text strings (ISO 32000-1 §7.9.2.2): UTF-16BE with BOM, UTF-8 with BOM (PDF 2.0), else PDFDocEncoding.
 */

/** PDFDocEncoding where it differs from Latin-1 (ISO 32000-1 Annex D.2): 0x18–0x1F and 0x80–0xA0. */
const PDFDOC_18 = '\u02d8\u02c7\u02c6\u02d9\u02dd\u02db\u02da\u02dc';
const PDFDOC_80 =
  '\u2022\u2020\u2021\u2026\u2014\u2013\u0192\u2044\u2039\u203a\u2212\u2030\u201e\u201c\u201d\u2018\u2019\u201a\u2122\ufb01\ufb02\u0141\u0152\u0160\u0178\u017d\u0131\u0142\u0153\u0161\u017e\ufffd\u20ac';

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

export function textString(bytes: Buffer): string {
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    const even = bytes.subarray(2, 2 + ((bytes.length - 2) & ~1));
    const swapped = Buffer.from(even);
    swapped.swap16();
    return swapped.toString('utf16le');
  }
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString('utf8');
  let out = '';
  for (const b of bytes) {
    if (b >= 0x18 && b <= 0x1f) out += PDFDOC_18[b - 0x18];
    else if (b >= 0x80 && b <= 0xa0) out += PDFDOC_80[b - 0x80];
    else out += String.fromCharCode(b);
  }
  return out;
}

/** The bytes (one char per byte, as CosName values hold them) form valid UTF-8 (ISO 19005-2 6.1.8). */
export function isValidUtf8(latin1: string): boolean {
  // ASCII is UTF-8: nearly every name is, and needs no decoder (and no Buffer).
  let ascii = true;
  for (let i = 0; i < latin1.length && ascii; i++) ascii = latin1.charCodeAt(i) < 0x80;
  if (ascii) return true;
  try {
    fatalUtf8.decode(Buffer.from(latin1, 'latin1'));
    return true;
  } catch {
    return false;
  }
}
