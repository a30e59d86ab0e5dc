/**
 * Byte classes of PDF syntax (ISO 32000-1 §7.2.2): white-space, delimiters, EOL markers.
 */
export const CR = 0x0d;
export const LF = 0x0a;

const WHITE = new Uint8Array(256);
for (const b of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WHITE[b] = 1;
const DELIM = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIM[c.charCodeAt(0)] = 1;
const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX['0123456789abcdef'.charCodeAt(i)] = i;
  HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
}

export function isWhite(b: number | undefined): boolean {
  return b !== undefined && WHITE[b] === 1;
}
export function isDelimiter(b: number | undefined): boolean {
  return b !== undefined && DELIM[b] === 1;
}
/** A byte that can be part of a regular token (neither white-space nor delimiter). */
export function isRegular(b: number | undefined): boolean {
  return b !== undefined && WHITE[b] === 0 && DELIM[b] === 0;
}
export function isEol(b: number | undefined): boolean {
  return b === CR || b === LF;
}
export function isDigit(b: number | undefined): boolean {
  return b !== undefined && b >= 0x30 && b <= 0x39;
}
/** The value of a hex digit, or -1. */
export function hexValue(b: number | undefined): number {
  return b === undefined ? -1 : (HEX[b] ?? -1);
}

/** Length of the EOL marker (CR LF, LF or CR) starting at `pos`, 0 if none. */
export function eolLengthAt(buf: Buffer, pos: number): number {
  const b = buf[pos];
  if (b === CR) return buf[pos + 1] === LF ? 2 : 1;
  return b === LF ? 1 : 0;
}

/** Length of the EOL marker ending just before `pos` (CR LF counts as one marker), 0 if none. */
export function eolLengthBefore(buf: Buffer, pos: number): number {
  const b = buf[pos - 1];
  if (b === LF) return buf[pos - 2] === CR ? 2 : 1;
  return b === CR ? 1 : 0;
}
