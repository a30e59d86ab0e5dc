import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef, PDFStream, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';

/** Small readers over pdf-lib's object model, resolving indirect references on the way. */

export const N = (name: string): PDFName => PDFName.of(name);

export function resolve(context: PDFContext, value: PDFObject | undefined): PDFObject | undefined {
  let current = value;
  for (let depth = 0; current instanceof PDFRef && depth < 32; depth++) current = context.lookup(current);
  return current instanceof PDFRef ? undefined : current;
}

export function numberValue(context: PDFContext, value: PDFObject | undefined): number | undefined {
  const resolved = resolve(context, value);
  return resolved instanceof PDFNumber && Number.isFinite(resolved.asNumber()) ? resolved.asNumber() : undefined;
}

export function nameValue(context: PDFContext, value: PDFObject | undefined): string | undefined {
  const resolved = resolve(context, value);
  return resolved instanceof PDFName ? resolved.decodeText() : undefined;
}

export function dictValue(context: PDFContext, value: PDFObject | undefined): PDFDict | undefined {
  const resolved = resolve(context, value);
  if (resolved instanceof PDFDict) return resolved;
  if (resolved instanceof PDFStream) return resolved.dict;
  return undefined;
}

export function streamValue(context: PDFContext, value: PDFObject | undefined): PDFStream | undefined {
  const resolved = resolve(context, value);
  return resolved instanceof PDFStream ? resolved : undefined;
}

export function arrayValue(context: PDFContext, value: PDFObject | undefined): PDFArray | undefined {
  const resolved = resolve(context, value);
  return resolved instanceof PDFArray ? resolved : undefined;
}

/** The numbers of an array (non-numbers become NaN, so callers can refuse them). */
export function numbersOf(context: PDFContext, value: PDFObject | undefined): number[] | undefined {
  const array = arrayValue(context, value);
  if (!array) return undefined;
  const out: number[] = [];
  for (let i = 0; i < array.size(); i++) out.push(numberValue(context, array.get(i)) ?? Number.NaN);
  return out;
}

export function get(context: PDFContext, dict: PDFDict | undefined, key: string): PDFObject | undefined {
  return dict ? resolve(context, dict.get(N(key))) : undefined;
}

/** A name not yet used as a key of `dict`, starting with `prefix`. */
export function freshKey(dict: PDFDict, prefix: string): string {
  for (let n = 1; ; n++) {
    const key = `${prefix}${n}`;
    if (!dict.has(N(key))) return key;
  }
}
