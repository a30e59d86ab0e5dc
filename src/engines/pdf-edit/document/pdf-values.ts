import type { QValue } from '../../pdf/qpdf-json.js';

/**
 * Building values in qpdf's JSON v2 notation (see `src/engines/pdf/qpdf-json.ts`): text strings are
 * "u:…" (qpdf picks PDFDocEncoding or UTF-16BE when it writes them), byte strings "b:<hex>", names
 * "/…" (qpdf adds the #xx escapes a name needs), references "N G R".
 */

/** A PDF text string. */
export function text(value: string): string {
  return `u:${value}`;
}

/** A PDF name from its plain spelling ("text/plain" → /text#2Fplain in the file). */
export function name(value: string): string {
  return `/${value}`;
}

/**
 * A name-tree key as exact bytes: printable ASCII as it is, anything else UTF-16BE with a byte order
 * mark. Name trees are sorted by these bytes, so the encoding must be fixed before sorting.
 */
export function keyBytes(key: string): Buffer {
  if (/^[\x20-\x7e]*$/.test(key)) return Buffer.from(key, 'latin1');
  const utf16 = Buffer.from(key, 'utf16le').swap16();
  return Buffer.concat([Buffer.from([0xfe, 0xff]), utf16]);
}

export function byteString(bytes: Buffer): string {
  return `b:${bytes.toString('hex')}`;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** "D:YYYYMMDDHHmmSSZ" (UTC), the date format of PDF (ISO 32000-1 §7.9.4). */
export function pdfDate(date: Date): string {
  return `D:${pad(date.getUTCFullYear(), 4)}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
}

/** "YYYY-MM-DDTHH:mm:SSZ", the date format of XMP. */
export function xmpDate(date: Date): string {
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}Z`;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;
const PDF_DATE = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(?:(Z)(?:00'?00'?)?|([+-])(\d{2})'?(\d{2})?'?)?$/i;

/**
 * A date given as ISO 8601 ("2024-05-01", "2024-05-01T10:00:00+02:00") or as a PDF date
 * ("D:20240501100000+02'00'"); undefined when it is neither or names no real day. No zone means UTC.
 */
export function parseDate(value: string): Date | undefined {
  const trimmed = value.trim();
  let parts: { year: string; month: string; day: string; hour: string; minute: string; second: string; offsetMinutes: number } | undefined;
  const iso = ISO_DATE.exec(trimmed);
  if (iso) {
    const [, year, month, day, hour = '00', minute = '00', second = '00', zone] = iso;
    parts = { year: year!, month: month!, day: day!, hour, minute, second, offsetMinutes: zoneMinutes(zone) };
  } else {
    const pdf = PDF_DATE.exec(trimmed);
    if (!pdf) return undefined;
    const [, year, month = '01', day = '01', hour = '00', minute = '00', second = '00', , sign, offsetHours, offsetMinutes = '00'] = pdf;
    const offset = sign ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) : 0;
    parts = { year: year!, month, day, hour, minute, second, offsetMinutes: offset };
  }
  const [year, month, day, hour, minute, second] = [parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(utc);
  if (check.getUTCDate() !== day) return undefined; // 31 April and the like
  return new Date(utc - parts.offsetMinutes * 60_000);
}

function zoneMinutes(zone: string | undefined): number {
  if (!zone || zone.toUpperCase() === 'Z') return 0;
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

/** A number array of four finite numbers (a rectangle), else undefined. */
export function asRectangle(value: QValue | undefined): [number, number, number, number] | undefined {
  if (!Array.isArray(value) || value.length !== 4) return undefined;
  const numbers = value.map((n) => (typeof n === 'number' && Number.isFinite(n) ? n : NaN));
  if (numbers.some(Number.isNaN)) return undefined;
  const [a, b, c, d] = numbers as [number, number, number, number];
  return [Math.min(a, c), Math.min(b, d), Math.max(a, c), Math.max(b, d)];
}
