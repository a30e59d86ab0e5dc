/**
 * Pure conversions from PDF objects (qpdf JSON v2 notation) to the webPDF metadata shapes: dates,
 * page labels, page boxes, viewer preferences, open action, document information.
 */
import type { QDict, QValue } from './qpdf-json.js';
import { asArray, asBoolean, asDict, asName, asNumber, asText, isRef } from './qpdf-json.js';
import type { BoxSelection, MetadataBoxes, MetadataDescription, MetadataInformation, MetadataRectangle, MetadataViewerPreferences } from './types.js';

/** "D:YYYYMMDDHHmmSSOHH'mm'" → ISO 8601 ("2024-01-02T03:04:05+01:00"); anything unparsable comes back as it was. */
export function pdfDateToIso(raw: string): string {
  const match = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(?:([Zz])|([+-])(\d{2})'?(\d{2})?'?)?/.exec(raw.trim());
  if (!match) return raw;
  const [, year, month = '01', day = '01', hour = '00', minute = '00', second = '00', zulu, sign, offsetHours, offsetMinutes = '00'] = match;
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > 31 || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 60) return raw;
  const zone = zulu ? 'Z' : sign ? `${sign}${offsetHours}:${offsetMinutes}` : '';
  return `${year}-${month}-${day}T${hour}:${minute}:${second}${zone}`;
}

// ---- page labels (ISO 32000-1 §12.4.2) ----

export interface LabelRange {
  /** 0-based index of the first page of the range. */
  start: number;
  style?: string;
  prefix: string;
  first: number;
}

/** The ranges from qpdf's "pagelabels" key: [{index, label: {"/S": "/D", "/P": "u:A-", "/St": 5}}]. */
export function labelRanges(pagelabels: QValue | undefined): LabelRange[] {
  const ranges: LabelRange[] = [];
  for (const item of asArray(pagelabels) ?? []) {
    const entry = asDict(item);
    const label = asDict(entry?.label);
    const start = asNumber(entry?.index);
    if (start === undefined || !label) continue;
    const style = asName(label['/S']);
    ranges.push({ start, prefix: asText(label['/P']) ?? '', first: Math.max(1, Math.trunc(asNumber(label['/St']) ?? 1)), ...(style === undefined ? {} : { style }) });
  }
  return ranges.sort((a, b) => a.start - b.start);
}

function roman(value: number): string {
  const table: [number, string][] = [
    [1000, 'm'],
    [900, 'cm'],
    [500, 'd'],
    [400, 'cd'],
    [100, 'c'],
    [90, 'xc'],
    [50, 'l'],
    [40, 'xl'],
    [10, 'x'],
    [9, 'ix'],
    [5, 'v'],
    [4, 'iv'],
    [1, 'i'],
  ];
  let rest = value;
  let out = '';
  for (const [amount, letters] of table) {
    while (rest >= amount) {
      out += letters;
      rest -= amount;
    }
  }
  return out;
}

/** A, B, … Z, AA, BB, … ZZ, AAA … (the PDF scheme, not spreadsheet columns). */
function letters(value: number): string {
  const letter = String.fromCharCode(97 + ((value - 1) % 26));
  return letter.repeat(Math.floor((value - 1) / 26) + 1);
}

/** The label of the 0-based page `index`, "" when no range covers it. */
export function pageLabel(ranges: readonly LabelRange[], index: number): string {
  let range: LabelRange | undefined;
  // Ranges are sorted; a binary search keeps 10,000 pages × many ranges cheap.
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (ranges[middle]!.start <= index) {
      range = ranges[middle];
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  if (!range) return '';
  const value = range.first + index - range.start;
  switch (range.style) {
    case 'D':
      return `${range.prefix}${value}`;
    case 'R':
      return `${range.prefix}${roman(value).toUpperCase()}`;
    case 'r':
      return `${range.prefix}${roman(value)}`;
    case 'A':
      return `${range.prefix}${letters(value).toUpperCase()}`;
    case 'a':
      return `${range.prefix}${letters(value)}`;
    default:
      return range.prefix;
  }
}

// ---- page boxes ----

const LETTER: MetadataRectangle = { x: 0, y: 0, width: 612, height: 792 };

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** [x1 y1 x2 y2] → rectangle, or undefined when it is not four numbers. */
export function rectangle(value: QValue | undefined): MetadataRectangle | undefined {
  const array = asArray(value);
  if (!array || array.length !== 4) return undefined;
  const numbers = array.map(asNumber);
  if (numbers.some((n) => n === undefined)) return undefined;
  const [x1, y1, x2, y2] = numbers as [number, number, number, number];
  return { x: round(Math.min(x1, x2)), y: round(Math.min(y1, y2)), width: round(Math.abs(x2 - x1)), height: round(Math.abs(y2 - y1)) };
}

function clip(box: MetadataRectangle, to: MetadataRectangle): MetadataRectangle {
  const x1 = Math.max(box.x, to.x);
  const y1 = Math.max(box.y, to.y);
  const x2 = Math.min(box.x + box.width, to.x + to.width);
  const y2 = Math.min(box.y + box.height, to.y + to.height);
  if (x2 <= x1 || y2 <= y1) return to;
  return { x: round(x1), y: round(y1), width: round(x2 - x1), height: round(y2 - y1) };
}

/**
 * Effective boxes as viewers compute them (ISO 32000-1 §14.11.2): the crop box defaults to the media
 * box, bleed, trim and art boxes default to the crop box, and all are clipped to the media box. A
 * missing media box is US Letter, as in poppler.
 */
export function effectiveBoxes(values: { media?: QValue; crop?: QValue; bleed?: QValue; trim?: QValue; art?: QValue }): MetadataBoxes {
  const mediaBox = rectangle(values.media) ?? LETTER;
  const crop = rectangle(values.crop);
  const cropBox = crop ? clip(crop, mediaBox) : mediaBox;
  const other = (value: QValue | undefined): MetadataRectangle => {
    const box = rectangle(value);
    return box ? clip(box, mediaBox) : cropBox;
  };
  return { mediaBox, cropBox, bleedBox: other(values.bleed), trimBox: other(values.trim), artBox: other(values.art) };
}

/** /Rotate → 0, 90, 180 or 270 (negative and > 360 values normalised; non-multiples of 90 are ignored, as viewers do). */
export function normaliseRotation(value: QValue | undefined): number {
  const rotate = asNumber(value);
  if (rotate === undefined || !Number.isInteger(rotate) || rotate % 90 !== 0) return 0;
  return ((rotate % 360) + 360) % 360;
}

// ---- catalog entries ----

const BOXES: Readonly<Record<string, BoxSelection>> = {
  MediaBox: 'mediaBox',
  CropBox: 'cropBox',
  BleedBox: 'bleedBox',
  TrimBox: 'trimBox',
  ArtBox: 'artBox',
};

export function viewerPreferences(dict: QDict | undefined): MetadataViewerPreferences {
  const d = dict ?? {};
  const flag = (key: string): boolean => asBoolean(d[key]) ?? false;
  const box = (key: string): BoxSelection => BOXES[asName(d[key]) ?? ''] ?? 'cropBox';
  const nonFullScreen = asName(d['/NonFullScreenPageMode']);
  const duplex = asName(d['/Duplex']);
  const numCopies = asNumber(d['/NumCopies']);
  const ranges = (asArray(d['/PrintPageRange']) ?? []).map(asNumber);
  const printPageRange: string[] = [];
  for (let i = 0; i + 1 < ranges.length; i += 2) {
    const from = ranges[i];
    const to = ranges[i + 1];
    // The array is 0-based page indices (well, "page numbers" — Acrobat writes them 0-based); shown 1-based.
    if (from !== undefined && to !== undefined) printPageRange.push(from === to ? `${from + 1}` : `${from + 1}-${to + 1}`);
  }
  return {
    centerWindow: flag('/CenterWindow'),
    displayDocTitle: flag('/DisplayDocTitle'),
    duplex: duplex === 'Simplex' ? 'simplex' : duplex === 'DuplexFlipShortEdge' ? 'duplexFlipShortEdge' : duplex === 'DuplexFlipLongEdge' ? 'duplexFlipLongEdge' : 'none',
    fitWindow: flag('/FitWindow'),
    hideMenuBar: flag('/HideMenubar'),
    hideToolbar: flag('/HideToolbar'),
    hideWindowUI: flag('/HideWindowUI'),
    nonFullScreenPageMode: nonFullScreen === 'UseOutlines' ? 'outlines' : nonFullScreen === 'UseThumbs' ? 'thumbnails' : nonFullScreen === 'UseOC' ? 'optionalContents' : 'none',
    numCopies: numCopies !== undefined && numCopies >= 1 ? Math.trunc(numCopies) : 1,
    printArea: box('/PrintArea'),
    printClip: box('/PrintClip'),
    printPageRange: printPageRange.join(','),
    printScaling: asName(d['/PrintScaling']) === 'None' ? 'noPrintScaling' : 'readerDefault',
    printTraySelection: flag('/PickTrayByPDFSize') ? 'byPDFSize' : 'readerDefault',
    textDirection: asName(d['/Direction']) === 'R2L' ? 'rightToLeft' : 'leftToRight',
    viewArea: box('/ViewArea'),
    viewClip: box('/ViewClip'),
  };
}

/** /PageLayout names as the reference's MetadataInformation names them; any other reads as singlePage. */
const PAGE_LAYOUTS = new Map<string, MetadataInformation['pageLayout']>([
  ['OneColumn', 'oneColumn'],
  ['TwoColumnLeft', 'twoColumnLeft'],
  ['TwoColumnRight', 'twoColumnRight'],
  ['TwoPageLeft', 'twoPageLeft'],
  ['TwoPageRight', 'twoPageRight'],
]);

/** /PageMode names as MetadataInformation names them; any other reads as none. */
const PAGE_MODES = new Map<string, MetadataInformation['initialView']>([
  ['UseOutlines', 'outlines'],
  ['UseThumbs', 'thumbnails'],
  ['FullScreen', 'fullscreen'],
  ['UseOC', 'layers'],
  ['UseAttachments', 'attachments'],
]);

export function pageLayout(value: QValue | undefined): MetadataInformation['pageLayout'] {
  return PAGE_LAYOUTS.get(asName(value) ?? '') ?? 'singlePage';
}

export function initialView(value: QValue | undefined): MetadataInformation['initialView'] {
  return PAGE_MODES.get(asName(value) ?? '') ?? 'none';
}

export interface OpenView {
  initialPage: number;
  magnification: MetadataInformation['magnification'];
  magnificationZoom: number;
}

/**
 * The catalog's /OpenAction destination ([page /XYZ left top zoom], [page /Fit], …, or a GoTo action
 * carrying one). `pageNumber` maps a page reference to its 1-based number. Without an explicit
 * destination the reference defaults (page 1, fitVisible, 100) are returned.
 */
export function openView(openAction: QValue | undefined, pageNumber: (ref: string) => number | undefined): OpenView {
  const defaults: OpenView = { initialPage: 1, magnification: 'fitVisible', magnificationZoom: 100 };
  const action = asDict(openAction);
  const destination = asArray(action ? action['/D'] : openAction);
  if (!destination || destination.length < 2) return defaults;
  const target = destination[0];
  let initialPage = 1;
  if (isRef(target)) initialPage = pageNumber(target) ?? 1;
  else if (asNumber(target) !== undefined) initialPage = Math.trunc(asNumber(target)!) + 1; // remote-style 0-based index
  const view = asName(destination[1]);
  switch (view) {
    case 'Fit':
      return { initialPage, magnification: 'fitPage', magnificationZoom: 100 };
    case 'FitH':
    case 'FitBH':
      return { initialPage, magnification: 'fitWidth', magnificationZoom: 100 };
    case 'FitV':
    case 'FitBV':
      return { initialPage, magnification: 'fitHeight', magnificationZoom: 100 };
    case 'FitB':
      return { initialPage, magnification: 'fitVisible', magnificationZoom: 100 };
    case 'XYZ': {
      const zoom = asNumber(destination[4]);
      if (zoom === undefined || zoom === 0) return { initialPage, magnification: 'none', magnificationZoom: 100 };
      return { initialPage, magnification: 'zoom', magnificationZoom: Math.round(zoom * 100) };
    }
    default:
      return { ...defaults, initialPage };
  }
}

const STANDARD_INFO_KEYS = new Set(['/Title', '/Author', '/Subject', '/Keywords', '/Creator', '/Producer', '/CreationDate', '/ModDate', '/Trapped']);

/** Keywords are one string in the PDF; split at commas and semicolons (one keyword when there are none). */
export function splitKeywords(keywords: string): { keyword: string }[] {
  return keywords
    .split(/[,;]/)
    .map((keyword) => keyword.trim())
    .filter((keyword) => keyword.length > 0)
    .map((keyword) => ({ keyword }));
}

/** `Metadata_Description` from the document information dictionary (values already resolved). */
export function description(info: QDict | undefined, creatorTool: string): MetadataDescription {
  const d = info ?? {};
  const text = (key: string): string => asText(d[key]) ?? '';
  const author = text('/Author');
  const custom: { key: string; value: string }[] = [];
  for (const [key, value] of Object.entries(d)) {
    if (STANDARD_INFO_KEYS.has(key)) continue;
    const rendered = asText(value) ?? asName(value) ?? (typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined);
    if (rendered !== undefined) custom.push({ key: key.replace(/^\//, ''), value: rendered });
  }
  const date = (key: string): string => {
    const raw = text(key);
    return raw === '' ? '' : pdfDateToIso(raw);
  };
  return {
    title: text('/Title'),
    author: author === '' ? [] : [{ name: author }],
    subject: text('/Subject'),
    keywords: splitKeywords(text('/Keywords')),
    creator: text('/Creator'),
    producer: text('/Producer'),
    application: creatorTool,
    creationDate: date('/CreationDate'),
    modificationDate: date('/ModDate'),
    custom,
  };
}

/** The later of the header version and the catalog's /Version ("1.4" < "1.7" < "2.0"). */
export function effectiveVersion(header: string | undefined, catalogVersion: QValue | undefined): string {
  const fromCatalog = asName(catalogVersion);
  const parse = (v: string | undefined): number => (v && /^\d+\.\d+$/.test(v) ? Number(v) : 0);
  if (fromCatalog && parse(fromCatalog) > parse(header)) return fromCatalog;
  return header ?? fromCatalog ?? '';
}
