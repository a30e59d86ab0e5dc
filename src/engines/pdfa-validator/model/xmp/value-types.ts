import type { XmpValue } from './rdf.js';
import { STRUCTS, type StructDef } from './schemas.js';

/**
 * Whether an XMP value has a value type (XMP Specification Part 2 §8 "Value types"; ISO 19005-1 6.7.9:
 * "the value type of each property shall be as defined in the XMP Specification or its extension schema").
 * `extraStructs` are the value types an extension schema of the package declares (pdfaType).
 */
const SIMPLE: Readonly<Record<string, RegExp | null>> = {
  Text: null,
  AgentName: null,
  ProperName: null,
  MIMEType: null,
  Locale: null,
  XPath: null,
  RenditionClass: null,
  URI: null,
  URL: null,
  GUID: null,
  Choice: null,
  Boolean: /^(True|False)$/,
  Integer: /^[+-]?\d+$/,
  Real: /^[+-]?(\d+(\.\d*)?|\.\d+)$/,
  Rational: /^[+-]?\d+\/[+-]?\d+$/,
  // ISO 8601 as the XMP Specification profiles it (W3C Date and Time Formats): YYYY[-MM[-DD[Thh:mm[:ss[.s]]TZD]]].
  Date: /^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?)?)?$/,
  GPSCoordinate: /^\d{1,3},\d{1,2}(,\d{1,2}|\.\d+)[NSEW]$/,
};

/** Whether `type` names a value type this module knows (simple, array of a known type, structure, Lang Alt). */
export function isKnownType(type: string, extraStructs: ReadonlyMap<string, StructDef> = new Map()): boolean {
  const t = normaliseType(type);
  if (t === 'Lang Alt') return true;
  const array = /^(Bag|Seq|Alt) (.+)$/.exec(t);
  if (array) return isKnownType(array[2] as string, extraStructs);
  return Object.hasOwn(SIMPLE, t) || STRUCTS.has(t) || extraStructs.has(t);
}

/** `Closed Choice of Text` → `Text`; `bag Text` → `Bag Text` (extension schemas write both). */
export function normaliseType(type: string): string {
  let t = type.trim().replace(/\s+/g, ' ');
  t = t.replace(/^(open|closed) choice of /i, '');
  t = t.replace(/^(bag|seq|alt) /i, (m) => `${(m[0] as string).toUpperCase()}${m.slice(1, 3).toLowerCase()} `);
  if (/^lang alt$/i.test(t)) return 'Lang Alt';
  return t;
}

/** True when the value conforms; a type this module does not know is taken as conforming (nothing to check it against). */
export function valueHasType(value: XmpValue, type: string, extraStructs: ReadonlyMap<string, StructDef>, depth = 0): boolean {
  if (depth > 32) return true;
  const t = normaliseType(type);
  if (t === 'Lang Alt') {
    return value.kind === 'array' && value.arrayType === 'Alt' && value.items.every((item) => item.kind === 'simple' && item.lang !== undefined);
  }
  const array = /^(Bag|Seq|Alt) (.+)$/.exec(t);
  if (array) {
    if (value.kind !== 'array' || value.arrayType !== array[1]) return false;
    return value.items.every((item) => valueHasType(item, array[2] as string, extraStructs, depth + 1));
  }
  if (Object.hasOwn(SIMPLE, t)) {
    if (value.kind !== 'simple') return false;
    const pattern = SIMPLE[t];
    return pattern === null || pattern === undefined || pattern.test(value.text);
  }
  const struct = STRUCTS.get(t) ?? extraStructs.get(t);
  if (struct !== undefined) {
    if (value.kind !== 'struct') return false;
    return value.fields.every((f) => f.namespace === struct.namespace && Object.hasOwn(struct.fields, f.name) && valueHasType(f.value, struct.fields[f.name] as string, extraStructs, depth + 1));
  }
  return true;
}
