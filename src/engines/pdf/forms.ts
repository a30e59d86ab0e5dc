/**
 * AcroForm fields from qpdf's "acroform" JSON key (one entry per widget annotation, with inherited
 * field attributes already resolved), grouped into fields, and their data as XFDF.
 */
import type { ObjectFetcher, QDict, QValue } from './qpdf-json.js';
import { asArray, asDict, asName, asNumber, asText, asTextOrName, isRef } from './qpdf-json.js';
import type { FieldType, MetadataAnnotation, MetadataField, MetadataFormValue } from './types.js';
import { buildXml, XML_DECLARATION, xmlElement, xmlText, type XmlOut } from '../xml/write.js';

const FLAG_READ_ONLY = 1 << 0;
const FLAG_REQUIRED = 1 << 1;
const FLAG_NO_EXPORT = 1 << 2;
const FLAG_COMBO = 1 << 17;
const FLAG_MULTI_SELECT = 1 << 21;
const FLAG_RICH_TEXT = 1 << 25;

export interface ParsedField {
  field: MetadataField;
  /** Selected / entered values (export values for choices, the state name for buttons). */
  values: string[];
  /** The field has a signature value (/Sig with /V). */
  signed: boolean;
  /** Where /Opt and the field's own entries may be: the widget (merged field) and its parent. */
  candidates: string[];
  /** The field's widget annotations as qpdf lists them: object, 1-based page (0: none), /F flags. */
  widgets: Widget[];
}

export interface Widget {
  object: string;
  page: number;
  flags: number;
}

function fieldType(entry: QDict, flags: number): FieldType {
  switch (asName(entry.fieldtype)) {
    case 'Tx':
      return 'text';
    case 'Btn':
      return entry.ischeckbox === true ? 'checkBox' : entry.isradiobutton === true ? 'radioButton' : 'pushButton';
    case 'Ch':
      return flags & FLAG_COMBO ? 'comboBox' : 'listBox';
    case 'Sig':
      return 'signature';
    default:
      return 'unknown';
  }
}

/** qpdf writes the acroform key's names (fullname, alternativename, …) as plain UTF-8, unlike object values. */
function plain(value: QValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function valuesOf(value: QValue | undefined): string[] {
  const array = asArray(value);
  if (array) return array.map(asTextOrName).filter((v): v is string => v !== undefined);
  const single = asTextOrName(value);
  return single === undefined ? [] : [single];
}

/** Groups qpdf's per-widget entries into fields, in document order of their first widget. */
export function parseAcroFormFields(acroform: QValue | undefined): ParsedField[] {
  const byName = new Map<string, ParsedField>();
  for (const item of asArray(asDict(acroform)?.fields) ?? []) {
    const entry = asDict(item);
    if (!entry) continue;
    const fullName = plain(entry.fullname) ?? '';
    const existing = byName.get(fullName);
    const candidates = [entry.object, entry.parent].filter(isRef);
    const widget = widgetOf(entry);
    if (existing) {
      existing.candidates.push(...candidates);
      if (widget) existing.widgets.push(widget);
      continue;
    }
    const flags = asNumber(entry.fieldflags) ?? 0;
    const type = fieldType(entry, flags);
    const values = type === 'signature' || type === 'pushButton' ? [] : valuesOf(entry.value);
    const alternative = plain(entry.alternativename) ?? '';
    const mapping = plain(entry.mappingname) ?? '';
    const field: MetadataField = {
      fullyQualifiedName: fullName,
      name: fullName.split('.').at(-1) ?? '',
      // qpdf falls back to the full name (and the mapping name to the alternative name) when the entry is absent.
      alternateName: alternative === fullName ? '' : alternative,
      mappingName: mapping === alternative || mapping === fullName ? '' : mapping,
      type,
      subType: asName(entry.fieldtype) ?? '',
      content: values.join(', '),
      value: [],
      readOnly: (flags & FLAG_READ_ONLY) !== 0,
      required: (flags & FLAG_REQUIRED) !== 0,
      noExport: (flags & FLAG_NO_EXPORT) !== 0,
      multiSelect: type === 'listBox' || type === 'comboBox' ? (flags & FLAG_MULTI_SELECT) !== 0 : false,
      isRichText: type === 'text' ? (flags & FLAG_RICH_TEXT) !== 0 : false,
      objectKey: '',
      annotation: [],
    };
    const defaults = valuesOf(entry.defaultvalue);
    if ((type === 'checkBox' || type === 'radioButton') && values.length > 0 && values[0] !== 'Off') {
      field.value.push({ display: values[0]!, export: values[0]!, isDefault: defaults.includes(values[0]!) });
    }
    byName.set(fullName, { field, values, signed: type === 'signature' && entry.value !== null && entry.value !== undefined, candidates, widgets: widget ? [widget] : [] });
  }
  return [...byName.values()];
}

function widgetOf(entry: QDict): Widget | undefined {
  const annotation = asDict(entry.annotation);
  const object = annotation?.object;
  if (!isRef(object)) return undefined;
  const page = asNumber(entry.pageposfrom1);
  return { object, page: page !== undefined && Number.isInteger(page) && page > 0 ? page : 0, flags: asNumber(annotation?.annotationflags) ?? 0 };
}

// ---- widget annotations (Metadata_Field.annotation) ----

const ANNOTATION_FLAG = { invisible: 1 << 0, hidden: 1 << 1, print: 1 << 2, noZoom: 1 << 3, noRotate: 1 << 4, noView: 1 << 5, readOnly: 1 << 6, locked: 1 << 7 };
/** `Metadata_Annotation.color`'s default in the reference, for a widget without an RGB /C. */
const DEFAULT_ANNOTATION_COLOR = '#4800FF';

/** The widget objects of the fields, for the caller to fetch before `fillWidgetAnnotations`. */
export function widgetRefs(fields: readonly ParsedField[]): string[] {
  return fields.flatMap((parsed) => parsed.widgets.map((widget) => widget.object));
}

/**
 * Indirect objects the widgets' /Rect, /C and /MK point to (numbers and arrays may be indirect),
 * once the widgets are fetched: the caller fetches them too.
 */
export function widgetMemberRefs(fields: readonly ParsedField[], fetcher: ObjectFetcher): string[] {
  const refs: string[] = [];
  for (const parsed of fields) {
    for (const widget of parsed.widgets) {
      const dict = asDict(fetcher.peek(widget.object));
      if (!dict) continue;
      for (const key of ['/Rect', '/C', '/MK']) {
        const value = dict[key];
        if (isRef(value)) refs.push(value);
        for (const item of asArray(fetcher.peek(value)) ?? []) if (isRef(item)) refs.push(item);
      }
    }
  }
  return refs;
}

/**
 * Fills each field's `annotation` from its widgets (fetched, with `widgetMemberRefs`): page,
 * rectangle (normalised /Rect, PDF coordinates as in the file), flags and the field's names. A widget
 * whose /Rect is not four finite numbers keeps its page with no position: the file says nothing
 * trustworthy about where it is.
 */
export function fillWidgetAnnotations(fields: ParsedField[], fetcher: ObjectFetcher): void {
  for (const parsed of fields) {
    const { field } = parsed;
    field.annotation = parsed.widgets.map((widget): MetadataAnnotation => {
      const dict = asDict(fetcher.peek(widget.object)) ?? {};
      const numbers = (value: QValue | undefined): number[] | undefined => {
        const array = asArray(fetcher.peek(value));
        const items = array?.map((item) => asNumber(fetcher.peek(item)));
        return items?.every((n): n is number => n !== undefined && Number.isFinite(n)) ? items : undefined;
      };
      const rect = numbers(dict['/Rect']);
      const color = numbers(dict['/C']);
      const rotation = asNumber(fetcher.peek(asDict(fetcher.peek(dict['/MK']))?.['/R'])) ?? 0;
      const has = (flag: number) => (widget.flags & flag) !== 0;
      return {
        subType: 'Widget',
        page: widget.page,
        positions: rect?.length === 4 ? [{ rectangle: normalisedRectangle(rect as [number, number, number, number]) }] : [],
        color: color?.length === 3 ? hexColor(color) : DEFAULT_ANNOTATION_COLOR,
        contents: asText(fetcher.peek(dict['/Contents'])) ?? '',
        name: asText(fetcher.peek(dict['/NM'])) ?? '',
        rotation: [0, 90, 180, 270].includes(((rotation % 360) + 360) % 360) ? ((rotation % 360) + 360) % 360 : 0,
        iconName: '',
        invisible: has(ANNOTATION_FLAG.invisible),
        hidden: has(ANNOTATION_FLAG.hidden),
        printable: has(ANNOTATION_FLAG.print),
        zoomable: !has(ANNOTATION_FLAG.noZoom),
        rotatable: !has(ANNOTATION_FLAG.noRotate),
        viewable: !has(ANNOTATION_FLAG.noView),
        writable: !has(ANNOTATION_FLAG.readOnly),
        locked: has(ANNOTATION_FLAG.locked),
        objectKey: '',
        field: { name: field.name, alternateName: field.alternateName, mappingName: field.mappingName, type: field.type },
      };
    });
  }
}

/** [llx lly urx ury] in any corner order as x, y (lower left), width, height; rounded to 1/1000 pt. */
function normalisedRectangle([x1, y1, x2, y2]: [number, number, number, number]): { x: number; y: number; width: number; height: number } {
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return { x: round(Math.min(x1, x2)), y: round(Math.min(y1, y2)), width: round(Math.abs(x2 - x1)), height: round(Math.abs(y2 - y1)) };
}

/** RGB components 0..1 as #RRGGBB. */
function hexColor(rgb: number[]): string {
  return `#${rgb
    .map((c) =>
      Math.round(Math.min(1, Math.max(0, c)) * 255)
        .toString(16)
        .padStart(2, '0')
        .toUpperCase(),
    )
    .join('')}`;
}

/**
 * Fills the options of choice fields from /Opt (qpdf 11.3's "choices" ignores [export display]
 * pairs). The field dictionaries must have been fetched.
 */
export function fillChoiceOptions(fields: ParsedField[], fetcher: ObjectFetcher, defaultsByName: Map<string, string[]>): void {
  for (const parsed of fields) {
    const { field } = parsed;
    if (field.type !== 'comboBox' && field.type !== 'listBox') continue;
    let options: QValue[] | undefined;
    for (const ref of parsed.candidates) {
      const dict = asDict(fetcher.peek(ref));
      const opt = dict ? asArray(fetcher.peek(dict['/Opt'])) : undefined;
      if (opt) {
        options = opt;
        break;
      }
    }
    const defaults = defaultsByName.get(field.fullyQualifiedName) ?? [];
    const list: MetadataFormValue[] = [];
    for (const option of options ?? []) {
      const pair = asArray(fetcher.peek(option));
      const exported = pair ? asText(fetcher.peek(pair[0])) : asText(option);
      const display = pair ? (asText(fetcher.peek(pair[1])) ?? exported) : exported;
      if (exported === undefined) continue;
      list.push({ display: display ?? exported, export: exported, isDefault: defaults.includes(exported) });
    }
    field.value = list;
  }
}

/** Default values by field name, from qpdf's entries (for isDefault). */
export function defaultValues(acroform: QValue | undefined): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const item of asArray(asDict(acroform)?.fields) ?? []) {
    const entry = asDict(item);
    const name = plain(entry?.fullname);
    if (name === undefined || map.has(name)) continue;
    map.set(name, valuesOf(entry?.defaultvalue));
  }
  return map;
}

// ---- XFDF (ISO 19444-1) ----

/** Fully qualified field names ("person.name") as a tree of their parts, each named node holding its item. */
export interface FieldNameNode<T> {
  children: Map<string, FieldNameNode<T>>;
  item?: T;
}

export function fieldNameTree<T>(items: Iterable<T>, nameOf: (item: T) => string): FieldNameNode<T> {
  const root: FieldNameNode<T> = { children: new Map() };
  for (const item of items) {
    let node = root;
    for (const part of nameOf(item).split('.')) {
      let child = node.children.get(part);
      if (!child) {
        child = { children: new Map() };
        node.children.set(part, child);
      }
      node = child;
    }
    node.item = item;
  }
  return root;
}

/**
 * The fields' data as XFDF: nested <field name="…"> elements following the name hierarchy, one
 * <value> per value. Push buttons and signature fields carry no data and are left out.
 */
export function toXfdf(fields: readonly ParsedField[]): Buffer {
  const withData = fields.filter(({ field }) => field.type !== 'pushButton' && field.type !== 'signature' && field.fullyQualifiedName !== '');
  return Buffer.from(xfdfDocument(withData.map(({ field, values }) => ({ name: field.fullyQualifiedName, values }))), 'utf8');
}

/**
 * XFDF of named values (`person.name` nests as fields in fields), with an optional `<f href>` naming the
 * PDF. No indentation: the document is xml:space="preserve", so white space between elements would be data.
 */
export function xfdfDocument(fields: readonly { name: string; values: readonly string[] }[], fileName = ''): string {
  const write = (node: FieldNameNode<{ values: readonly string[] }>): XmlOut[] =>
    [...node.children].map(([name, child]) => xmlElement('field', { name }, [...(child.item?.values ?? []).map((value) => xmlElement('value', {}, [xmlText(value)])), ...write(child)]));
  const xfdf = xmlElement('xfdf', { xmlns: 'http://ns.adobe.com/xfdf/', 'xml:space': 'preserve' }, [
    ...(fileName ? [xmlElement('f', { href: fileName })] : []),
    xmlElement('fields', {}, write(fieldNameTree(fields, (field) => field.name))),
  ]);
  return `${XML_DECLARATION}${buildXml([xfdf])}\n`;
}
