/**
 * Reading one indirect object `n g obj … endobj` at a file offset, with the syntax facts ISO 19005
 * checks there: the spacing of the object header and `endobj` (1: 6.1.8, 2/3: 6.1.9) and, for a
 * stream, its keyword EOLs and real length (1: 6.1.7, 2/3: 6.1.7.1).
 */
import { CosParser, note, type ParseEnv } from './parser.js';
import { eolLengthAt, eolLengthBefore, isDigit, isEol, isRegular, isWhite } from './syntax.js';
import type { CosDict, CosIndirectSpacing, CosStream, CosValue } from './types.js';

export interface ParsedIndirect {
  readonly num: number;
  readonly gen: number;
  readonly value: CosValue;
  /** Offset of the object number (after any white-space the offset pointed at). */
  readonly offset: number;
  readonly spacing: CosIndirectSpacing;
  /** Offset just after `endobj`, or where reading stopped. */
  readonly end: number;
}

export interface ObjectHeader {
  readonly num: number;
  readonly gen: number;
  readonly offset: number;
  /** Offset after `obj`. */
  readonly bodyStart: number;
  readonly spaces1: number;
  readonly spaces2: number;
}

/** Reads `n g obj` at `offset` (white-space before it is skipped), or null when it is not there. */
export function readObjectHeader(buf: Buffer, offset: number): ObjectHeader | null {
  let p = offset;
  while (p < buf.length && isWhite(buf[p]) && p - offset < 64) p++;
  const start = p;
  while (isDigit(buf[p])) p++;
  if (p === start || p - start > 10) return null;
  const num = Number(buf.toString('latin1', start, p));
  const s1 = p;
  while (isWhite(buf[p])) p++;
  const spaces1 = p - s1;
  const g = p;
  while (isDigit(buf[p])) p++;
  if (p === g || spaces1 === 0 || p - g > 10) return null;
  const gen = Number(buf.toString('latin1', g, p));
  const s2 = p;
  while (isWhite(buf[p])) p++;
  const spaces2 = p - s2;
  if (spaces2 === 0 || buf.toString('latin1', p, p + 3) !== 'obj' || isRegular(buf[p + 3])) return null;
  return { num, gen, offset: start, bodyStart: p + 3, spaces1, spaces2 };
}

/** Resolves a stream's /Length (an indirect one through the document); null when it is not an integer. */
export type LengthResolver = (length: CosValue | undefined) => number | null;

export function readIndirectAt(buf: Buffer, offset: number, env: ParseEnv, resolveLength: LengthResolver): ParsedIndirect | null {
  const header = readObjectHeader(buf, offset);
  if (header === null) return null;
  const parser = new CosParser(buf, env, header.bodyStart);
  let value: CosValue = parser.readObject(0);
  if (value.kind === 'dict') {
    const save = parser.pos;
    if (parser.peekKeyword() === 'stream') {
      value = readStream(parser, value, resolveLength);
    } else {
      parser.pos = save;
    }
  }
  const spacingEnd = readEndobj(parser);
  const spacing: CosIndirectSpacing = {
    numberPrecededByEOL: isEol(buf[header.offset - 1]),
    singleSpaceNumberGeneration: header.spaces1 === 1,
    singleSpaceGenerationObj: header.spaces2 === 1,
    objFollowedByEOL: isEol(buf[header.bodyStart]),
    endobjPrecededByEOL: spacingEnd.found && isEol(buf[spacingEnd.at - 1]),
    endobjFollowedByEOL: spacingEnd.found && isEol(buf[spacingEnd.at + 6]),
  };
  if (!spacingEnd.found) note(env, `object ${header.num} ${header.gen} at ${header.offset} has no endobj`);
  return { num: header.num, gen: header.gen, value, offset: header.offset, spacing, end: parser.pos };
}

function readEndobj(parser: CosParser): { found: boolean; at: number } {
  const save = parser.pos;
  parser.skipSpace();
  const at = parser.pos;
  const buf = parser.buf;
  if (buf.toString('latin1', at, at + 6) === 'endobj' && !isRegular(buf[at + 6])) {
    parser.pos = at + 6;
    return { found: true, at };
  }
  parser.pos = save;
  return { found: false, at };
}

/** The parser stands before `stream`. Reads the keyword, locates the data and `endstream`. */
function readStream(parser: CosParser, dict: CosDict, resolveLength: LengthResolver): CosStream {
  const buf = parser.buf;
  parser.skipSpace();
  const keyword = parser.pos;
  const after = keyword + 6;
  let dataStart: number;
  let crlfCompliant: boolean;
  if (buf[after] === 0x0d && buf[after + 1] === 0x0a) {
    dataStart = after + 2;
    crlfCompliant = true;
  } else if (buf[after] === 0x0a) {
    dataStart = after + 1;
    crlfCompliant = true;
  } else {
    // A lone CR, or spaces before the EOL: where readers take the data to start anyway.
    crlfCompliant = false;
    let q = after;
    while (buf[q] === 0x20 || buf[q] === 0x09 || buf[q] === 0x00 || buf[q] === 0x0c) q++;
    if (buf[q] === 0x0d) q += buf[q + 1] === 0x0a ? 2 : 1;
    else if (buf[q] === 0x0a) q++;
    dataStart = q;
  }
  dataStart = Math.min(dataStart, buf.length);
  const length = resolveLength(dict.entries.get('Length'));

  // Where is endstream? Where /Length says when an EOL marker and `endstream` follow there: then the
  // data is exactly /Length bytes, even when it ends in a CR that could pair with the EOL's LF.
  let endstream = -1;
  let lengthPlausible = false;
  let realLength: number | null = null;
  let eolBefore = false;
  if (length !== null && length >= 0 && dataStart + length <= buf.length) {
    const q = dataStart + length;
    const eol = eolLengthAt(buf, q);
    if (buf.toString('latin1', q + eol, q + eol + 9) === 'endstream') {
      endstream = q + eol;
      lengthPlausible = true;
      realLength = length;
      eolBefore = eol > 0;
    } else {
      let w = q;
      while (isWhite(buf[w]) && w - q < 64) w++;
      if (buf.toString('latin1', w, w + 9) === 'endstream') {
        endstream = w;
        lengthPlausible = true;
      }
    }
  }
  if (endstream < 0) {
    endstream = buf.indexOf('endstream', dataStart, 'latin1');
    // A search is linear in the rest of the file: charge it to the work budget.
    parser.env.tokensLeft -= Math.floor(((endstream < 0 ? buf.length : endstream) - dataStart) / 256);
  }
  if (endstream >= 0) {
    if (realLength === null) {
      // The bytes between the data start and the EOL marker before `endstream` (ISO 19005-1 6.1.7).
      const eol = eolLengthBefore(buf, endstream);
      eolBefore = eol > 0;
      realLength = Math.max(0, endstream - eol - dataStart);
    }
    parser.pos = endstream + 9;
  } else {
    note(parser.env, `stream at ${keyword} has no endstream`);
    parser.pos = buf.length;
  }
  const dataLength = lengthPlausible && length !== null ? length : (realLength ?? Math.max(0, Math.min(length ?? 0, buf.length - dataStart)));
  return {
    kind: 'stream',
    dict,
    facts: { Length: length, realLength, streamKeywordCRLFCompliant: crlfCompliant, endstreamKeywordEOLCompliant: eolBefore },
    source: buf,
    dataStart,
    dataLength,
  };
}
