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
const CP1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f'
  + '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
}
