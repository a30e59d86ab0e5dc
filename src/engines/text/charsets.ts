/**
 * Decoding by encoding name, on top of TextDecoder (WHATWG Encoding Standard; Node 20 ships full ICU,
 * so the legacy CJK, Cyrillic and ISO-8859 decoders are all there).
 */

/** The Encoding Standard name for a label (`latin1` → `windows-1252`, `sjis` → `shift_jis`), or undefined if unsupported. */
export function canonicalEncoding(label: string): string | undefined {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined; // unknown labels, and those mapped to the "replacement" decoder (iso-2022-kr...)
  }
}

/**
 * Decodes bytes in an encoding named by canonicalEncoding(); malformed sequences become U+FFFD and a
 * byte order mark matching the encoding is dropped.
 */
export function decodeAs(encoding: string, bytes: Uint8Array): string {
  return encoding === 'windows-1252' ? decodeWindows1252(bytes) : new TextDecoder(encoding).decode(bytes);
}

/**
 * windows-1252, which the Encoding Standard also uses for the labels iso-8859-1, latin1 and ascii.
 * Decoded by hand because Node 20's TextDecoder decodes this one as ISO-8859-1: 0x80-0x9F come out
 * as C1 controls instead of € ‚ „ … ’ “ ” – —. The five bytes the code page leaves undefined stay
 * C1 controls, as the standard says.
 */
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** Code unit of every byte. */
const CP1252 = Uint16Array.from({ length: 256 }, (_, byte) => (byte >= 0x80 && byte < 0xa0 ? CP1252_HIGH.charCodeAt(byte - 0x80) : byte));

/** A table lookup into UTF-16LE, decoded in one go: linear however many bytes are in 0x80-0x9F. */
function decodeWindows1252(bytes: Uint8Array): string {
  const utf16 = Buffer.allocUnsafe(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    const unit = CP1252[bytes[i]!]!;
    utf16[2 * i] = unit & 0xff;
    utf16[2 * i + 1] = unit >> 8;
  }
  return utf16.toString('utf16le');
}
