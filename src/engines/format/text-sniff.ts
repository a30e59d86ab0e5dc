/**
 * Content sniffing for text formats, which have no magic bytes: decides whether a file's first
 * bytes are text at all, and if so whether they look like HTML, XML, SVG or an RFC 822 message.
 */

/**
 * - `html`, `svg`, `xml`, `eml`: recognised from content.
 * - `markup`: starts with an element but nothing says which kind (e.g. `<note>` or `<div>`).
 * - `plain`: any other text; content cannot tell txt, csv, md or json apart.
 */
export type TextKind = 'html' | 'svg' | 'xml' | 'eml' | 'markup' | 'plain';

/** How much of the file the caller should pass in. */
export const TEXT_SNIFF_BYTES = 64 * 1024;

/** Share of control characters above which a sample is taken for binary. */
const MAX_CONTROL_RATIO = 0.01;

/**
 * Decodes the sample, or returns undefined when it is not text. `truncated` says the file goes on,
 * so a multi-byte character cut at the end of the sample is not an encoding error.
 */
export function decodeText(sample: Uint8Array, truncated: boolean): string | undefined {
  if (sample.length === 0) return undefined;
  const bytes = Buffer.from(sample.buffer, sample.byteOffset, sample.byteLength);
  let text: string | undefined;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    text = decodeUtf8(bytes.subarray(3), truncated);
  } else if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    if (bytes[2] === 0 && bytes[3] === 0) return undefined; // UTF-32LE BOM: not supported
    text = new TextDecoder('utf-16le').decode(evenLength(bytes.subarray(2)));
  } else if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    text = new TextDecoder('utf-16be').decode(evenLength(bytes.subarray(2)));
  } else {
    if (bytes.includes(0)) return undefined; // NUL without a UTF-16 BOM: binary
    // Not UTF-8: fall back to the usual single-byte legacy code page.
    text = decodeUtf8(bytes, truncated) ?? decodeWindows1252(bytes);
  }
  if (text === undefined || text.length === 0) return text;
  return controlRatio(text) > MAX_CONTROL_RATIO ? undefined : text;
}

function decodeUtf8(bytes: Uint8Array, truncated: boolean): string | undefined {
  try {
    // `stream: true` tolerates an incomplete sequence at the end, which only happens when we cut it.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: truncated });
  } catch {
    return undefined;
  }
}

/**
 * windows-1252 (a superset of ISO-8859-1 for text). Decoded by hand because Node 20's TextDecoder
 * maps 0x80-0x9F to C1 controls. The five bytes the code page leaves undefined stay C1 controls
 * and count against the sample.
 */
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(bytes: Buffer): string {
  return bytes.toString('latin1').replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

function evenLength(bytes: Uint8Array): Uint8Array {
  return bytes.length % 2 === 0 ? bytes : bytes.subarray(0, bytes.length - 1);
}

function controlRatio(text: string): number {
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const allowed = code === 0x09 || code === 0x0a || code === 0x0b || code === 0x0c || code === 0x0d || code === 0x1a /* DOS end-of-file */ || code === 0x1b /* ANSI escapes in logs */;
    if ((code < 0x20 && !allowed) || (code >= 0x7f && code <= 0x9f) || code === 0xfffd) controls++;
  }
  return controls / text.length;
}

/** Classifies decoded text (without BOM); `truncated` says the text is only the file's beginning. */
export function classifyText(text: string, truncated: boolean): TextKind {
  if (looksLikeMailHeader(text, truncated)) return 'eml';
  return classifyMarkup(text);
}

const MAIL_HEADERS = new Set(['from', 'to', 'subject', 'date', 'message-id', 'mime-version', 'received', 'return-path']);

/**
 * RFC 5322: the message opens with header fields ("Name: value", continuation lines start with
 * white space) up to an empty line. Requires two distinct well-known fields so that a text that
 * merely starts with "Note: ..." is not taken for mail.
 */
function looksLikeMailHeader(text: string, truncated: boolean): boolean {
  const lines = text.split(/\r?\n/, 1000);
  let index = 0;
  if (lines[0]?.startsWith('From ')) index = 1; // mbox separator line written by some mail clients
  const known = new Set<string>();
  for (let i = index; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') break;
    if (i > index && (line.startsWith(' ') || line.startsWith('\t'))) continue;
    const match = /^([!-9;-~]+):/.exec(line);
    if (!match) {
      // Only the last line of a cut-off sample may be a partial header line.
      if (truncated && i === lines.length - 1) break;
      return false;
    }
    // Field names are case-insensitive, but mailers capitalise them; "from: a" is far more often YAML.
    const name = match[1]!;
    if (/^[A-Z]/.test(name) && MAIL_HEADERS.has(name.toLowerCase())) known.add(name.toLowerCase());
  }
  return known.size >= 2;
}

/** Looks at the first element, skipping white space, comments, processing instructions and a doctype. */
function classifyMarkup(text: string): TextKind {
  let rest = text.trimStart();
  let xmlDeclaration = false;
  for (let guard = 0; guard < 100; guard++) {
    if (rest.startsWith('<!--')) {
      const end = rest.indexOf('-->', 4);
      if (end < 0) return xmlDeclaration ? 'xml' : 'markup';
      rest = rest.slice(end + 3).trimStart();
    } else if (rest.startsWith('<?')) {
      if (/^<\?xml\s/i.test(rest)) xmlDeclaration = true;
      const end = rest.indexOf('?>', 2);
      if (end < 0) return xmlDeclaration ? 'xml' : 'plain';
      rest = rest.slice(end + 2).trimStart();
    } else if (/^<!doctype\s/i.test(rest)) {
      const name = /^<!doctype\s+([^\s>[]+)/i.exec(rest)?.[1]?.toLowerCase();
      if (name === 'html') return 'html';
      if (name === 'svg') return 'svg';
      const end = skipDoctype(rest);
      if (end < 0) return 'markup';
      rest = rest.slice(end).trimStart();
    } else {
      break;
    }
  }
  const element = /^<([A-Za-z_][\w.:-]*)/.exec(rest)?.[1];
  if (element !== undefined) {
    const localName = element.slice(element.indexOf(':') + 1);
    const lower = localName.toLowerCase();
    if (lower === 'html' || lower === 'head' || lower === 'body') return 'html';
    if (localName === 'svg') return 'svg';
    return xmlDeclaration ? 'xml' : 'markup';
  }
  return xmlDeclaration ? 'xml' : 'plain';
}

/** Index just past a doctype declaration, honouring an internal subset in [...]; -1 if cut off. */
function skipDoctype(text: string): number {
  const close = text.indexOf('>');
  const open = text.indexOf('[');
  if (open >= 0 && (close < 0 || open < close)) {
    const subsetEnd = text.indexOf(']', open);
    if (subsetEnd < 0) return -1;
    const end = text.indexOf('>', subsetEnd);
    return end < 0 ? -1 : end + 1;
  }
  return close < 0 ? -1 : close + 1;
}
