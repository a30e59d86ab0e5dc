import type { CosValue } from '../pdfa-validator/cos/index.js';
import { pdfNumber } from '../signature/pdf-values.js';

/**
 * PDF syntax for dictionaries of the original file that an incremental update rewrites, straight from
 * the COS reader's values: the entries nobody changed are written as they were read (a 40-font
 * resource dictionary costs one pass over its values), the changed ones are `Entries` maps or `Raw`
 * text. Going through another notation first (qpdf's JSON, as the signature writer does for its few
 * objects) was a third of the time of stamping 500 pages.
 */

/** PDF text written as it is (references and values the update makes). */
export class Raw {
  constructor(readonly text: string) {}
}

/** A dictionary being changed: keys are names without the slash. */
export type Entries = Map<string, Written>;
export type Written = CosValue | Raw | Entries | Written[];

/** A name as PDF writes it: regular characters as they are, the rest `#xx` (ISO 32000-1 §7.3.5). */
const NAME_ESCAPED = /[^\x21-\x7e]|[#()<>[\]{}/%]/g;
function nameText(value: string): string {
  NAME_ESCAPED.lastIndex = 0;
  if (!NAME_ESCAPED.test(value)) return `/${value}`;
  return `/${value.replace(NAME_ESCAPED, (c) => `#${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}`;
}

/**
 * `value` in PDF syntax. A reference to an object the cross-reference data does not define is
 * written as null (`defined`), as qpdf and the signature writer do. Streams never occur here: they
 * are indirect objects, and only references to them are written.
 */
export function writeCos(value: Written, defined: (num: number) => boolean): string {
  const out: string[] = [];
  write(value, defined, out);
  return out.join('');
}

function write(value: Written, defined: (num: number) => boolean, out: string[]): void {
  if (value instanceof Raw) {
    out.push(value.text);
    return;
  }
  if (value instanceof Map) {
    out.push('<<');
    for (const [key, item] of value) {
      out.push(nameText(key), ' ');
      write(item, defined, out);
      out.push(' ');
    }
    out.push('>>');
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item, i) => {
      if (i > 0) out.push(' ');
      write(item, defined, out);
    });
    out.push(']');
    return;
  }
  switch (value.kind) {
    case 'null':
      out.push('null');
      return;
    case 'bool':
      out.push(value.value ? 'true' : 'false');
      return;
    case 'int':
      out.push(String(value.value));
      return;
    case 'real':
      out.push(pdfNumber(value.value));
      return;
    case 'name':
      out.push(nameText(value.value));
      return;
    case 'string':
      out.push('<', value.bytes.toString('hex'), '>');
      return;
    case 'ref':
      out.push(defined(value.num) ? `${value.num} ${value.gen} R` : 'null');
      return;
    case 'array':
      write(value.items, defined, out);
      return;
    case 'dict':
      write(value.entries, defined, out);
      return;
    case 'stream':
      throw new Error('writeCos: a stream cannot be written as a direct value');
  }
}
