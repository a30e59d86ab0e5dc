/**
 * File header and end-of-file facts (ISO 19005-1/-2/-3 6.1.2 and 6.1.3): where `%PDF-` is, the header
 * line, the four bytes of the binary comment line that must follow it, and the bytes after the last
 * `%%EOF`.
 */
import { eolLengthAt, isDigit, isEol, isWhite } from './syntax.js';

export interface HeaderFacts {
  /** The header line from `%PDF-` to its EOL (at most 64 bytes, latin1); null when there is no `%PDF-` in the first 1024 bytes. */
  readonly header: string | null;
  /** Offset of `%PDF-` (-1 when absent). PDF/A wants 0. */
  readonly headerOffset: number;
  /** The four bytes after the `%` of the line directly following the header line; -1 where that line is not a comment or the file ends. */
  readonly headerByte1: number;
  readonly headerByte2: number;
  readonly headerByte3: number;
  readonly headerByte4: number;
  /** `n.m` from the header, when it reads as one. */
  readonly version: string | null;
  /** Offset just after the binary comment line (where the first object is expected). */
  readonly bodyStart: number;
}

/** Readers look for the header in the first 1024 bytes (ISO 32000-1 Annex H.3 note 1). */
const HEADER_WINDOW = 1024;

export function readHeader(buf: Buffer): HeaderFacts {
  const at = buf.subarray(0, HEADER_WINDOW + 5).indexOf('%PDF-', 0, 'latin1');
  if (at < 0) return { header: null, headerOffset: -1, headerByte1: -1, headerByte2: -1, headerByte3: -1, headerByte4: -1, version: null, bodyStart: 0 };
  let p = at;
  while (p < buf.length && !isEol(buf[p]) && p - at < 64) p++;
  const header = buf.toString('latin1', at, p);
  while (p < buf.length && !isEol(buf[p])) p++;
  const eol = eolLengthAt(buf, p);
  const comment = p + eol;
  const isComment = eol > 0 && buf[comment] === 0x25;
  const byte = (i: number): number => (isComment && comment + i < buf.length ? (buf[comment + i] as number) : -1);
  let q = comment;
  while (q < buf.length && !isEol(buf[q])) q++;
  q += eolLengthAt(buf, q);
  const m = /^%PDF-(\d+\.\d+)/.exec(header);
  return { header, headerOffset: at, headerByte1: byte(1), headerByte2: byte(2), headerByte3: byte(3), headerByte4: byte(4), version: m?.[1] ?? null, bodyStart: isComment ? q : comment };
}

export interface EofFacts {
  /** Bytes after the last `%%EOF`, less one optional EOL marker (ISO 19005 6.1.3); null when there is no `%%EOF`. */
  readonly postEOFDataSize: number | null;
  /** The offset after the last `startxref`, or null when absent or not a number. */
  readonly startxref: number | null;
}

export function readEof(buf: Buffer): EofFacts {
  const eof = buf.lastIndexOf('%%EOF', undefined, 'latin1');
  let postEOFDataSize: number | null = null;
  if (eof >= 0) {
    const after = eof + 5;
    postEOFDataSize = buf.length - after - eolLengthAt(buf, after);
  }
  let startxref: number | null = null;
  const sx = buf.lastIndexOf('startxref', undefined, 'latin1');
  if (sx >= 0) {
    let p = sx + 9;
    while (isWhite(buf[p])) p++;
    const s = p;
    while (isDigit(buf[p]) && p - s < 16) p++;
    if (p > s) startxref = Number(buf.toString('latin1', s, p));
  }
  return { postEOFDataSize, startxref };
}
