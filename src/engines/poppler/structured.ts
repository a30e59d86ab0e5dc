/**
 * One model, three file formats: the extraction results are built as plain JSON values and written
 * as JSON, as XML (derived mechanically, so both always carry the same data) or as text.
 *
 * XML mapping: an object is an element; its scalar members are attributes, except a string member
 * named `text`, which becomes the element's character content; object members are child elements;
 * an array member is a sequence of child elements named like the member (`"word": [{…}, {…}]` →
 * `<word …/><word …/>`), as JAXB writes webPDF's list members.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function toJson(value: Json): string {
  return JSON.stringify(value);
}

export function toXml(rootName: string, value: Json): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  element(out, rootName, value);
  out.push('\n');
  return out.join('');
}

function element(out: string[], name: string, value: Json): void {
  if (value === null) {
    out.push(`<${name}/>`);
    return;
  }
  if (typeof value !== 'object') {
    out.push(`<${name}>${escapeText(String(value))}</${name}>`);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) element(out, name, item);
    return;
  }
  const attributes: string[] = [];
  const children: [string, Json][] = [];
  let content: string | undefined;
  for (const [key, member] of Object.entries(value)) {
    if (key === 'text' && typeof member === 'string') content = member;
    else if (member !== null && typeof member === 'object') children.push([key, member]);
    else if (member !== null) attributes.push(` ${key}="${escapeAttribute(String(member))}"`);
  }
  if (children.length === 0 && content === undefined) {
    out.push(`<${name}${attributes.join('')}/>`);
    return;
  }
  out.push(`<${name}${attributes.join('')}>`);
  if (content !== undefined) out.push(escapeText(content));
  for (const [key, member] of children) element(out, key, member);
  out.push(`</${name}>`);
}

/** Characters XML 1.0 cannot carry at all (controls other than tab and line ends, lone surrogates, U+FFFE/F). */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function xmlSafe(text: string): string {
  return text.replace(NOT_XML, '');
}

const SPECIAL = /[&<>\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;

export function escapeText(text: string): string {
  // Most words need nothing: skip the replacements for them.
  if (!SPECIAL.test(text)) return text;
  return xmlSafe(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(text: string): string {
  if (!SPECIAL.test(text) && !/["\t\n\r]/.test(text)) return text;
  return escapeText(text).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

/**
 * A readable text form of any model: one `path: value` line per scalar, paths joined with dots and
 * list items numbered from 1 (`pages.page[2].width: 595`).
 */
export function toFlatText(value: Json, prefix = ''): string {
  const lines: string[] = [];
  flatten(lines, prefix, value);
  return lines.join('\n') + '\n';
}

function flatten(lines: string[], path: string, value: Json): void {
  if (value === null || typeof value !== 'object') {
    lines.push(`${path}: ${value === null ? '' : String(value).replace(/\r?\n/g, ' ')}`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => flatten(lines, `${path}[${index + 1}]`, item));
    return;
  }
  for (const [key, member] of Object.entries(value)) flatten(lines, path === '' ? key : `${path}.${key}`, member);
}
