import { PDFArray, PDFDict, PDFHexString, PDFName, PDFParser, PDFRef, PDFString, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import { invalid, unsupported } from '../annotations/errors.js';
import { arrayOf, dictOf, textOf } from '../annotations/pdf-values.js';
import { fieldNameTree, xfdfDocument, type FieldNameNode } from '../../pdf/forms.js';
import { childElements as elementChildren, findElement, readXml, textContent, type XmlElement as Element } from '../../xml/read.js';
import { buildXml, XML_DECLARATION, xmlElement, xmlText, type XmlOut } from '../../xml/write.js';

/**
 * Form data files (reference §10.9.6 `Operation_FormsFormat`), read and written:
 *
 * - `xfdf`: ISO 19444-1, `<xfdf><fields><field name="a"><field name="b"><value>…`;
 * - `fdf`: ISO 32000-1 12.7.8, `/FDF << /Fields [<< /T (a) /Kids [<< /T (b) /V (…) >>] >>] >>`;
 * - `xml`: Acrobat's "export data as XML": `<fields>` with one element per name part (`<a><b>…</b></a>`),
 *   names that are no XML names carried in `xfdf:original`;
 * - `xdp`: the same elements inside an XDP package's `xfa:datasets/xfa:data` (an XDP holding an
 *   `<xfdf>` packet is read as XFDF).
 *
 * Every value is a string; a field with several values (multiple-choice lists) repeats them.
 */

export type FormsFormat = 'xml' | 'fdf' | 'xfdf' | 'xdp';

export interface FieldData {
  /** Fully qualified name, parts joined with ".". */
  name: string;
  values: string[];
}

// ---- reading ----

export async function parseFormData(format: FormsFormat, bytes: Buffer, field: string): Promise<FieldData[]> {
  if (format === 'fdf') return parseFdf(bytes, field);
  const root = parseXmlRoot(bytes, field);
  if (format === 'xfdf') {
    if (localName(root.name) !== 'xfdf') throw invalid(field, `not XFDF: the root element is <${root.name}>, not <xfdf>.`);
    return readXfdf(root);
  }
  if (format === 'xdp') {
    const packet = findElement(root, (el) => localName(el.name) === 'xfdf');
    if (packet) return readXfdf(packet);
    const data = findElement(root, (el) => localName(el.name) === 'data' && el.parent !== undefined && localName(el.parent.name) === 'datasets');
    if (!data) throw invalid(field, 'not an XDP data package: no <xfa:datasets><xfa:data> element.');
    return readElementTree(elementChildren(data), []);
  }
  return readElementTree(elementChildren(root), []);
}

function parseXmlRoot(bytes: Buffer, field: string): Element {
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (!/^\s*</.test(text)) throw invalid(field, 'not an XML document.');
  let root: Element | undefined;
  try {
    root = readXml(text)[0];
  } catch (error) {
    const message = (error as Error).message.split('\n')[0]!;
    if (/nested tags/i.test(message)) throw invalid(field, `the XML document nests elements more than ${MAX_NESTING} levels deep.`);
    throw invalid(field, `the XML document cannot be read (${message}).`);
  }
  if (!root) throw invalid(field, 'the XML document has no root element.');
  // The readers below recurse per level and copy the name path at each: the nesting is bounded first
  // (iteratively), so a hostile file cannot overflow the stack or make the copies quadratic.
  const stack: { element: Element; depth: number }[] = [{ element: root, depth: 1 }];
  while (stack.length > 0) {
    const { element, depth } = stack.pop()!;
    if (depth > MAX_NESTING) throw invalid(field, `the XML document nests elements more than ${MAX_NESTING} levels deep.`);
    for (const child of elementChildren(element)) stack.push({ element: child, depth: depth + 1 });
  }
  return root;
}

/** Deeper field trees are refused (real forms nest a few levels). */
const MAX_NESTING = 256;

const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

function readXfdf(root: Element): FieldData[] {
  const fields = elementChildren(root).find((el) => localName(el.name) === 'fields');
  const result: FieldData[] = [];
  const walk = (elements: Element[], prefix: string[]) => {
    for (const el of elements) {
      if (localName(el.name) !== 'field') continue;
      const name = [...prefix, el.attributes.name ?? ''];
      const children = elementChildren(el);
      const values = children.filter((c) => ['value', 'value-richtext'].includes(localName(c.name))).map((c) => textContent(c));
      if (values.length > 0 || !children.some((c) => localName(c.name) === 'field')) result.push({ name: name.join('.'), values });
      walk(children, name);
    }
  };
  if (fields) walk(elementChildren(fields), []);
  return result;
}

/** Elements with element children are name parts; the others carry values (repeated for several). */
function readElementTree(elements: Element[], prefix: string[]): FieldData[] {
  const result: FieldData[] = [];
  const byName = new Map<string, FieldData>();
  for (const el of elements) {
    const part = el.attributes['xfdf:original'] ?? el.name;
    const name = [...prefix, part];
    const children = elementChildren(el);
    if (children.length > 0) {
      for (const entry of readElementTree(children, name)) result.push(entry);
      continue;
    }
    const key = name.join('.');
    const existing = byName.get(key);
    const value = textContent(el);
    if (existing) existing.values.push(value);
    else {
      const entry = { name: key, values: [value] };
      byName.set(key, entry);
      result.push(entry);
    }
  }
  return result;
}

async function parseFdf(bytes: Buffer, field: string): Promise<FieldData[]> {
  const start = bytes.indexOf('%FDF-');
  if (start < 0 || start > 1024) throw invalid(field, 'not an FDF file (no %FDF- header).');
  // pdf-lib's parser reads FDF's object syntax once the header says PDF.
  const copy = Buffer.from(bytes);
  copy.write('%PDF-', start, 'latin1');
  let context: PDFContext;
  try {
    context = await PDFParser.forBytesWithOptions(copy, Infinity, false).parseDocument();
  } catch (error) {
    throw invalid(field, `the FDF file cannot be read (${(error as Error).message.split('\n')[0]}).`);
  }
  if (context.trailerInfo.Encrypt) throw unsupported(`${field} (encrypted FDF)`, 'send the FDF file unencrypted.');
  const catalog = dictOf(context, context.trailerInfo.Root);
  const fdf = catalog ? dictOf(context, catalog.get(PDFName.of('FDF'))) : undefined;
  const fields = fdf ? arrayOf(context, fdf.get(PDFName.of('Fields'))) : undefined;
  if (!fields) throw invalid(field, 'the FDF file has no /FDF /Fields.');
  const result: FieldData[] = [];
  const seen = new Set<PDFDict>();
  const walk = (array: PDFArray, prefix: string[], depth: number) => {
    if (depth > MAX_NESTING) throw invalid(field, `the FDF file nests fields more than ${MAX_NESTING} levels deep.`);
    for (const item of array.asArray()) {
      const dict = dictOf(context, item);
      if (!dict || seen.has(dict) || seen.size > 100_000) continue;
      seen.add(dict);
      const partial = textOf(dict.lookup(PDFName.of('T')));
      const name = partial === undefined ? prefix : [...prefix, partial];
      const value = dict.lookup(PDFName.of('V'));
      if (value !== undefined) result.push({ name: name.join('.'), values: fdfValues(context, value) });
      const kids = arrayOf(context, dict.get(PDFName.of('Kids')));
      if (kids) walk(kids, name, depth + 1);
    }
  };
  walk(fields, [], 1);
  return result;
}

function fdfValues(context: PDFContext, value: PDFObject): string[] {
  if (value instanceof PDFArray) return value.asArray().map((item) => textOf(item instanceof PDFRef ? context.lookup(item) : item) ?? '');
  return [textOf(value) ?? ''];
}

// ---- writing ----

export type ValueKind = 'name' | 'string';

/** A field's data for writing: buttons write their state as a name in FDF. */
export interface FieldOutput extends FieldData {
  kind: ValueKind;
}

type TreeNode = FieldNameNode<FieldOutput>;

function tree(fields: readonly FieldOutput[]): TreeNode {
  return fieldNameTree(fields, (field) => field.name);
}

export function writeFormData(format: FormsFormat, fields: readonly FieldOutput[], fileName: string): Buffer {
  switch (format) {
    case 'xfdf':
      return Buffer.from(xfdfDocument(fields, fileName), 'utf8');
    case 'fdf':
      return writeFdf(fields, fileName);
    case 'xml':
      return Buffer.from(`${XML_DECLARATION}${buildXml([xmlElement('fields', { 'xmlns:xfdf': XFDF_TRANSITION }, xmlElements(tree(fields)))])}\n`, 'utf8');
    case 'xdp': {
      const datasets = xmlElement('xfa:datasets', { 'xmlns:xfa': 'http://www.xfa.org/schema/xfa-data/1.0/' }, [xmlElement('xfa:data', { 'xmlns:xfdf': XFDF_TRANSITION }, xmlElements(tree(fields)))]);
      const pdf = fileName ? [xmlElement('pdf', { xmlns: 'http://ns.adobe.com/xdp/pdf/', href: fileName })] : [];
      return Buffer.from(`${XML_DECLARATION}${buildXml([xmlElement('xdp:xdp', { 'xmlns:xdp': 'http://ns.adobe.com/xdp/' }, [datasets, ...pdf])])}\n`, 'utf8');
    }
  }
}

const XFDF_TRANSITION = 'http://ns.adobe.com/xfdf-transition/';

const XML_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** One element per name part; a part that is no XML name is written as such with xfdf:original. */
function xmlElements(node: TreeNode): XmlOut[] {
  const out: XmlOut[] = [];
  for (const [name, child] of node.children) {
    const element = XML_NAME.test(name) && !/^xml/i.test(name) ? name : `_${name.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
    const original = { 'xfdf:original': element === name ? undefined : name };
    const inner = xmlElements(child);
    const values = child.item?.values ?? [];
    if (inner.length > 0) out.push(xmlElement(element, original, inner));
    if (child.item) {
      if (values.length === 0 && inner.length === 0) out.push(xmlElement(element, original));
      for (const value of values) out.push(xmlElement(element, original, [xmlText(value)]));
    }
  }
  return out;
}

/** FDF as 7-bit text: strings that are not ASCII become UTF-16 hex strings. */
function writeFdf(fields: readonly FieldOutput[], fileName: string): Buffer {
  const string = (text: string) => (/^[\x20-\x7e]*$/.test(text) ? PDFString.of(text.replace(/([\\()])/g, '\\$1')).toString() : PDFHexString.fromText(text).toString());
  const value = (field: FieldOutput, text: string) => (field.kind === 'name' ? PDFName.of(text).toString() : string(text));
  const write = (node: TreeNode): string =>
    [...node.children]
      .map(([name, child]) => {
        const entries = [`/T ${string(name)}`];
        const values = child.item?.values ?? [];
        if (child.item && values.length === 1) entries.push(`/V ${value(child.item, values[0]!)}`);
        if (child.item && values.length > 1) entries.push(`/V [${values.map((v) => value(child.item!, v)).join(' ')}]`);
        if (child.children.size > 0) entries.push(`/Kids [${write(child)}]`);
        return `<< ${entries.join(' ')} >>`;
      })
      .join('\n');
  const body = `<< /FDF << /Fields [\n${write(tree(fields))}\n]${fileName ? ` /F ${string(fileName)}` : ''} >> >>`;
  return Buffer.from(`%FDF-1.2\n1 0 obj\n${body}\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n`, 'latin1');
}
