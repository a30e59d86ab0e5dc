const MB = 1024 * 1024;

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1024,
  kib: 1024,
  mb: MB,
  mib: MB,
  gb: 1024 * MB,
  gib: 1024 * MB,
  tb: 1024 * 1024 * MB,
  tib: 1024 * 1024 * MB,
};

/** Bytes of a configured size: a bare number is megabytes (webPDF's unit), a string may carry a unit. */
export function parseSize(value: number | string): number {
  if (typeof value === 'number') return Math.round(value * MB);
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(value);
  if (!match) throw new Error(`not a size: ${value}`);
  const unit = (match[2] ?? '').toLowerCase() || 'mb';
  const factor = UNITS[unit];
  if (factor === undefined) throw new Error(`unknown size unit: ${match[2]}`);
  return Math.round(Number(match[1]) * factor);
}

/** Whole megabytes for the wire (Auth_Limits): rounded up so that a small non-zero limit never reads as 0 = unlimited. */
export function toWireMegabytes(bytes: number): number {
  return bytes === 0 ? 0 : Math.max(1, Math.ceil(bytes / MB));
}
