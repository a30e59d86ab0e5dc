import { open } from 'node:fs/promises';
import { HtmlEngineError } from './errors.js';

/**
 * Reads the HTML of a job into the string Chromium gets via `setContent`. A string has no charset any
 * more, so the file is decoded here the way a browser would: BOM, then `<meta charset>` among the
 * first 1024 bytes, then UTF-8 (windows-1252 when the bytes are not UTF-8).
 */

export const DEFAULT_MAX_HTML_BYTES = 64 * 1024 * 1024;

export async function readHtml(file: string, maxBytes = DEFAULT_MAX_HTML_BYTES): Promise<string> {
  let bytes: Buffer;
  try {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      if (size > maxBytes) throw tooLarge(size, maxBytes);
      // One byte more than allowed: a file that grew since stat() is still caught.
      const buffer = Buffer.alloc(size + 1);
      const { bytesRead } = await handle.read(buffer, 0, size + 1, 0);
      if (bytesRead > maxBytes) throw tooLarge(bytesRead, maxBytes);
      bytes = buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof HtmlEngineError) throw error;
    throw new HtmlEngineError('inputUnreadable', `The HTML file cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
  return decodeHtml(bytes);
}

function tooLarge(size: number, maxBytes: number): HtmlEngineError {
  return new HtmlEngineError('inputTooLarge', `The HTML document has ${size} bytes; at most ${maxBytes} are converted.`);
}

/** The text of an HTML file's bytes, decoded as described above. */
export function decodeHtml(bytes: Uint8Array): string {
  const bom = bomEncoding(bytes);
  if (bom) return new TextDecoder(bom).decode(bytes); // strips the BOM
  const declared = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(Buffer.from(bytes.subarray(0, 1024)).toString('latin1'))?.[1];
  if (declared) {
    try {
      // A document cannot be UTF-16 once its bytes parse as ASCII markup (WHATWG prescan rule).
      return decode(bytes, /^utf-?16/i.test(declared) ? 'utf-8' : declared);
    } catch {
      // Unknown label: fall through to the default.
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return decode(bytes, 'windows-1252');
  }
}

/**
 * Node (20) decodes windows-1252, and its aliases latin1/iso-8859-1/ascii, as ISO-8859-1: bytes
 * 0x80–0x9F come out as C1 controls instead of €, „, “, ” and the like. These are the real characters.
 */
const WINDOWS_1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** Throws a RangeError for an unknown label. */
function decode(bytes: Uint8Array, label: string): string {
  const decoder = new TextDecoder(label);
  if (decoder.encoding !== 'windows-1252') return decoder.decode(bytes);
  return Buffer.from(bytes)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80]!);
}

function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * Puts `<base href>` first into the head, so that it precedes every reference (the first base element
 * wins). Inserted after `<head>`, else after `<html>`, else after the doctype: text before the doctype
 * would switch the document into quirks mode.
 */
export function withBaseUrl(html: string, baseURL: string): string {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw new HtmlEngineError('invalidOption', `The base URL "${baseURL}" is not an absolute URL.`);
  }
  const tag = `<base href="${url.href.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`;
  for (const pattern of [/<head(?:\s[^>]*)?>/i, /<html(?:\s[^>]*)?>/i, /<!doctype[^>]*>/i]) {
    const match = pattern.exec(html);
    if (match) {
      const at = match.index + match[0].length;
      return html.slice(0, at) + tag + html.slice(at);
    }
  }
  return tag + html;
}
