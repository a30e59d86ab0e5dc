/**
 * The fallback when cross-reference data is missing or wrong: find every `n g obj` in the file, as
 * PDF readers do to repair a file. A later definition of the same number wins (incremental updates
 * append). Linear in the file size (native searches for `obj`).
 */
import { isDigit, isRegular, isWhite } from './syntax.js';

export interface ScannedObject {
  readonly num: number;
  readonly gen: number;
  /** Offset of the object number. */
  readonly offset: number;
}

export function scanObjects(buf: Buffer, max: number): { objects: Map<number, ScannedObject>; truncated: boolean } {
  const objects = new Map<number, ScannedObject>();
  let from = 0;
  for (;;) {
    const at = buf.indexOf('obj', from, 'latin1');
    if (at < 0) break;
    from = at + 3;
    if (isRegular(buf[at + 3]) || at === 0) continue;
    // Walk back: white-space, generation digits, white-space, object number digits.
    let p = at - 1;
    if (!isWhite(buf[p])) continue;
    while (p >= 0 && isWhite(buf[p])) p--;
    const genEnd = p + 1;
    while (p >= 0 && isDigit(buf[p])) p--;
    const genStart = p + 1;
    if (genStart === genEnd || genEnd - genStart > 10 || !isWhite(buf[p])) continue;
    while (p >= 0 && isWhite(buf[p])) p--;
    const numEnd = p + 1;
    while (p >= 0 && isDigit(buf[p])) p--;
    const numStart = p + 1;
    if (numStart === numEnd || numEnd - numStart > 10 || (p >= 0 && isRegular(buf[p]))) continue;
    const num = Number(buf.toString('latin1', numStart, numEnd));
    if (!objects.has(num) && objects.size >= max) return { objects, truncated: true };
    objects.set(num, { num, gen: Number(buf.toString('latin1', genStart, genEnd)), offset: numStart });
  }
  return { objects, truncated: false };
}

/** Offsets of every `trailer` keyword, in file order. */
export function scanKeyword(buf: Buffer, keyword: string, max = 10_000): number[] {
  const out: number[] = [];
  let from = 0;
  while (out.length < max) {
    const at = buf.indexOf(keyword, from, 'latin1');
    if (at < 0) break;
    if (!isRegular(buf[at + keyword.length]) && (at === 0 || !isRegular(buf[at - 1]))) out.push(at);
    from = at + keyword.length;
  }
  return out;
}
