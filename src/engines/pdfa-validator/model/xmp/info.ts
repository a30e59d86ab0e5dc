import { type CosDocument, textString } from '../../cos/index.js';
import type { PropertyValue } from '../../expression/value.js';
import type { XmpProperty, XmpValue } from './rdf.js';
import { NS } from './schemas.js';

/**
 * The document information dictionary against the main XMP packet (ISO 19005-1 6.7.3, Table 1): each
 * Info entry has an XMP equivalent that must carry the same value. veraPDF's CosInfo reads both sides;
 * the Info side (`Title`, `Author`…) is the entry as a text string, the XMP side (`XMPTitle`…) the
 * equivalent property's value, null when absent.
 */
export function cosInfoValues(doc: CosDocument, main: readonly XmpProperty[]): Record<string, PropertyValue> {
  const info = doc.get(doc.trailer, 'Info');
  const text = (key: string): string | null => {
    const v = doc.get(info, key);
    if (v === undefined || v.kind === 'null') return null;
    // An entry that is no text string (the corpus' 1b 6-1-5-t01-fail-j: a stream) equals no XMP value: U+0000 cannot occur in XML.
    return v.kind === 'string' ? textString(v.bytes) : `\u0000${v.kind}`;
  };
  const prop = (ns: string, name: string): XmpValue | undefined => main.find((p) => p.namespace === ns && p.name === name)?.value;
  const creator = prop(NS.dc, 'creator');
  const creatorItems = creator?.kind === 'array' ? creator.items : [];
  const creationDate = text('CreationDate');
  const modDate = text('ModDate');
  return {
    Title: text('Title'),
    Author: text('Author'),
    Subject: text('Subject'),
    Keywords: text('Keywords'),
    Creator: text('Creator'),
    Producer: text('Producer'),
    CreationDate: creationDate,
    ModDate: modDate,
    XMPTitle: langAltDefault(prop(NS.dc, 'title')),
    XMPCreator: creatorItems.length > 0 ? simpleText(creatorItems[0]) : null,
    XMPCreatorSize: creatorItems.length,
    XMPDescription: langAltDefault(prop(NS.dc, 'description')),
    XMPKeywords: simpleText(prop(NS.pdf, 'Keywords')),
    XMPCreatorTool: simpleText(prop(NS.xmp, 'CreatorTool')),
    XMPProducer: simpleText(prop(NS.pdf, 'Producer')),
    doCreationDatesMatch: datesMatch(creationDate, simpleText(prop(NS.xmp, 'CreateDate'))),
    doModDatesMatch: datesMatch(modDate, simpleText(prop(NS.xmp, 'ModifyDate'))),
  };
}

function simpleText(v: XmpValue | undefined): string | null {
  return v?.kind === 'simple' ? v.text : null;
}

/** The x-default item of a Lang Alt (XMP Part 1 §8.2.2.4), else its first item. */
function langAltDefault(v: XmpValue | undefined): string | null {
  if (v === undefined) return null;
  if (v.kind === 'simple') return v.text;
  if (v.kind !== 'array' || v.items.length === 0) return null;
  const item = v.items.find((i) => i.kind === 'simple' && i.lang === 'x-default') ?? v.items[0];
  return simpleText(item);
}

/**
 * Null (nothing to compare) when Info has no date; false when XMP lacks it or either does not parse or
 * they name different instants. PDF dates: `D:YYYYMMDDHHmmSSOHH'mm'` (ISO 32000-1 §7.9.4), XMP: ISO 8601.
 */
function datesMatch(pdfDate: string | null, xmpDate: string | null): boolean | null {
  if (pdfDate === null) return null;
  if (xmpDate === null) return false;
  const a = parsePdfDate(pdfDate);
  const b = parseXmpDate(xmpDate);
  return a !== null && b !== null && a === b;
}

function parsePdfDate(s: string): number | null {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([Zz+-])(?:(\d{2})'?(?:(\d{2})'?)?)?)?$/.exec(s.trim());
  if (m === null) return null;
  return instant(m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9]);
}

function parseXmpDate(s: string): number | null {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:([Zz+-])(?:(\d{2}):(\d{2}))?)?)?)?)?$/.exec(s.trim());
  if (m === null) return null;
  return instant(m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9]);
}

function instant(...parts: (string | undefined)[]): number {
  const [y, mo, d, h, mi, sec, sign, tzh, tzm] = parts;
  const n = (v: string | undefined, dflt: number): number => (v === undefined ? dflt : Number(v));
  const utc = Date.UTC(n(y, 0), n(mo, 1) - 1, n(d, 1), n(h, 0), n(mi, 0), n(sec, 0));
  const offset = (n(tzh, 0) * 60 + n(tzm, 0)) * 60_000;
  return sign === '+' ? utc - offset : sign === '-' ? utc + offset : utc;
}
