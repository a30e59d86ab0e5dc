import { isUtf8 } from 'node:buffer';
import { analyse } from 'chardet';
import { canonicalEncoding, decodeAs } from './charsets.js';
import { TextEngineError } from './errors.js';
import { readBounded } from './read-bounded.js';

export interface DecodeTextOptions {
  /** Larger files are refused (`tooLarge`). */
  maxBytes: number;
  /** Decode with this encoding (any Encoding Standard label) instead of detecting one. */
  encoding?: string;
}

export interface DecodedText {
  /** The text, with CRLF and CR line ends turned into LF. */
  text: string;
  /** Encoding Standard name of the encoding used, e.g. `utf-8`, `utf-16le`, `windows-1252`, `shift_jis`. */
  encoding: string;
}

/** How many bytes chardet looks at: enough for a verdict, and bounded on a 100 MB file. */
const DETECTION_SAMPLE = 64 * 1024;

/**
 * chardet's confidence (0-100) below which its verdict is ignored. Its multi-byte recognisers answer
 * 10 for anything they cannot rule out (five bytes of windows-1252 get "Shift_JIS: 10"), while real
 * single-byte Cyrillic or Greek text scores 20-40 and CJK text close to 100.
 */
const MIN_CONFIDENCE = 20;

/** The encoding for text that is neither UTF-8 nor recognised: what Windows writes in Western Europe. */
const FALLBACK_ENCODING = 'windows-1252';

/** Reads a text file (at most `maxBytes`) and decodes it; see decodeBytes for how the encoding is chosen. */
export async function decodeText(path: string, options: DecodeTextOptions): Promise<DecodedText> {
  const forced = options.encoding === undefined ? undefined : requireEncoding(options.encoding);
  let bytes: Buffer | undefined;
  try {
    bytes = await readBounded(path, options.maxBytes);
  } catch (error) {
    throw new TextEngineError('unreadable', 'The text file cannot be read.', { cause: error });
  }
  if (bytes === undefined) throw new TextEngineError('tooLarge', `The text file is larger than the limit of ${options.maxBytes} bytes.`);
  return decodeBytes(bytes, forced);
}

/**
 * Decodes text bytes. Without a forced encoding: a byte order mark (UTF-8, UTF-16LE/BE) decides;
 * else bytes that are valid UTF-8 are UTF-8 (plain ASCII included); else chardet's best supported
 * guess if it is confident enough; else windows-1252, which maps every byte to something readable.
 */
export function decodeBytes(bytes: Uint8Array, encoding?: string): DecodedText {
  const chosen = encoding === undefined ? detectEncoding(bytes) : requireEncoding(encoding);
  return { text: decodeAs(chosen, bytes).replace(/\r\n?/g, '\n'), encoding: chosen };
}

function detectEncoding(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (isUtf8(bytes)) return 'utf-8';
  for (const match of analyse(bytes.subarray(0, DETECTION_SAMPLE))) {
    if (match.confidence < MIN_CONFIDENCE) break; // the matches come sorted by confidence
    const supported = canonicalEncoding(match.name);
    if (supported !== undefined) return supported;
  }
  return FALLBACK_ENCODING;
}

function requireEncoding(label: string): string {
  const encoding = canonicalEncoding(label);
  if (encoding === undefined) {
    throw new TextEngineError('invalidOption', `encoding: ${JSON.stringify(label.slice(0, 100))} is not a supported encoding.`);
  }
  return encoding;
}
