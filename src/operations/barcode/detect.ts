import { QuireError } from '../../core/errors.js';
import { type BarcodeDetector, type DecodeOptions, type FoundCode, imageFrames, pageBoxes, type PageBox, renderPageImage, SYMBOLOGIES, type Symbology } from '../../engines/barcode/index.js';
import type { PopplerRunner } from '../../engines/poppler/tool.js';
import { selectPages } from '../toolbox/pages.js';
import type { DetectOptions, SelectionOptions } from './barcode.schema.js';
import { displayedSize, fromDisplayPoints, type Metrics, toDisplayPoints, type Units } from './detect-geometry.js';

/** One code in the report. */
export interface DetectedCode {
  format: Symbology | string;
  /** The decoded text. */
  value: string;
  /** The content's raw bytes, Base64. */
  raw: string;
  page: number;
  position: { x: number; y: number; width: number; height: number; metrics: Metrics; coordinates: 'user' | 'pdf' };
  /** Degrees the code is turned, clockwise as seen (the add call's `rotation`). */
  rotation: number;
  /** Error-correction level, where the symbology has one (QR: L/M/Q/H; Aztec, PDF417: percent). */
  errorCorrection?: string;
}

export interface DetectContext {
  detector: BarcodeDetector;
  poppler: PopplerRunner;
  toolTimeoutMs: number;
  deadline: number;
  directory: string;
}

/** Our names ↔ ZXing's (zxing-wasm `formats`, `ReadResult.format`). */
const ZXING: Record<Symbology, string> = {
  qrcode: 'QRCode',
  aztec: 'Aztec',
  codabar: 'Codabar',
  code128: 'Code128',
  code39: 'Code39',
  datamatrix: 'DataMatrix',
  ean13: 'EAN13',
  ean8: 'EAN8',
  itf: 'ITF',
  pdf417: 'PDF417',
  upca: 'UPCA',
};
const FROM_ZXING = new Map(Object.entries(ZXING).map(([ours, theirs]) => [theirs, ours]));

/** Pixels of one rendered page at most: a 200-dpi A4 page is 3.9 Mpx; 600 dpi A3 about 70 Mpx. */
const MAX_PAGE_PIXELS = 80_000_000;
/** Codes reported per image at most. */
const MAX_SYMBOLS = 255;

const CHARSETS: Record<string, string> = { 'iso-8859-1': 'ISO8859_1', latin1: 'ISO8859_1', 'us-ascii': 'ASCII', ascii: 'ASCII', shift_jis: 'Shift_JIS', 'windows-1252': 'Cp1252', 'utf-16': 'UTF16BE' };

/**
 * Runs every selection of `detect` on the stored document (a PDF: its pages rendered by poppler at
 * `resolution`; an image: each frame) and collects the codes; a code found by two selections counts once.
 */
export async function detectCodes(input: { path: string; isPdf: boolean }, options: DetectOptions, context: DetectContext): Promise<DetectedCode[]> {
  const selections = options.selection && options.selection.length > 0 ? options.selection : [{ formats: '', resolution: 200 } as SelectionOptions];
  const plans = selections.map((selection, i) => plan(selection, `barcode.detect.selection[${i}]`));
  const found: DetectedCode[] = [];
  const seen = new Set<string>();
  const limits = { deadline: context.deadline, toolTimeoutMs: context.toolTimeoutMs, poppler: context.poppler };
  const boxes = input.isPdf ? await pageBoxes(input.path, limits) : undefined;
  const frames = input.isPdf ? undefined : await imageFrames(input.path);
  for (const [i, selection] of selections.entries()) {
    const field = `barcode.detect.selection[${i}]`;
    const { decode, units, filter } = plans[i]!;
    const count = boxes ? boxes.length : frames!.length;
    for (const number of selectPages(selection.pages ?? '', count, `${field}.pages`)) {
      let codes: FoundCode[];
      let toPoints: (corner: [number, number]) => [number, number];
      let page: Pick<PageBox, 'cropBox' | 'rotation'>;
      if (boxes) {
        page = boxes[number - 1]!;
        const dpi = selection.resolution;
        const size = displayedSize(page);
        const area =
          selection.scanArea && (selection.scanArea.width ?? 0) > 0 && (selection.scanArea.height ?? 0) > 0
            ? toDisplayPoints(rect(selection.scanArea), unitsOf(selection.scanArea), page)
            : { x: 0, y: 0, width: size.width, height: size.height };
        const px = (points: number) => Math.round((points * dpi) / 72);
        if (px(area.width) * px(area.height) > MAX_PAGE_PIXELS) {
          throw new QuireError(
            'PARAMETER',
            `Invalid parameter ${field}.resolution: page ${number} at ${dpi} dpi would be ${px(area.width)} × ${px(area.height)} pixels; at most ${MAX_PAGE_PIXELS / 1e6} million are decoded.`,
          );
        }
        const whole = area.x === 0 && area.y === 0 && area.width === size.width && area.height === size.height;
        const image = await renderPageImage(
          input.path,
          number,
          dpi,
          whole ? undefined : { x: px(area.x), y: px(area.y), width: Math.max(1, px(area.width)), height: Math.max(1, px(area.height)) },
          context.directory,
          limits,
        );
        codes = await context.detector.decode(image, decode);
        const originX = whole ? 0 : px(area.x);
        const originY = whole ? 0 : px(area.y);
        toPoints = ([x, y]) => [((x + originX) * 72) / dpi, ((y + originY) * 72) / dpi];
      } else {
        const frame = frames![number - 1]!;
        // An image is a page of its own size at its resolution; pdf coordinates are measured from its bottom-left.
        const width = (frame.width * 72) / frame.dpi;
        const height = (frame.height * 72) / frame.dpi;
        page = { cropBox: [0, 0, width, height], rotation: 0 };
        codes = await context.detector.decode(frame.png, decode);
        toPoints = ([x, y]) => [(x * 72) / frame.dpi, (y * 72) / frame.dpi];
      }
      for (const code of codes) {
        const detected = report(code, number, units, page, toPoints, selection);
        if (!filter(detected)) continue;
        const key = `${detected.page}|${detected.format}|${detected.raw}|${Math.round(detected.position.x)}|${Math.round(detected.position.y)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        found.push(detected);
      }
    }
  }
  return found;
}

function plan(selection: SelectionOptions, field: string): { decode: DecodeOptions; units: Units; filter: (code: DetectedCode) => boolean } {
  const names = selection.formats
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  for (const name of names) {
    if (!(SYMBOLOGIES as readonly string[]).includes(name)) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}.formats: "${name}" is not a barcode format; use ${SYMBOLOGIES.join(', ')} (comma-separated).`);
    }
  }
  const wanted = names.length > 0 ? (names as Symbology[]) : [...SYMBOLOGIES];
  const charsetName = (selection.charset ?? '').trim().toLowerCase();
  let characterSet: string | undefined;
  if (charsetName !== '' && charsetName !== 'utf-8' && charsetName !== 'utf8') {
    characterSet = CHARSETS[charsetName];
    if (!characterSet)
      throw new QuireError('PARAMETER', `Invalid parameter ${field}.charset: "${selection.charset}" is not supported; use utf-8, iso-8859-1, us-ascii, windows-1252, shift_jis or utf-16.`);
  }
  const lengths = (selection.allowedLengths ?? '').trim();
  const allowed = new Set<number>();
  if (lengths !== '') {
    for (const part of lengths.split(',')) {
      const n = Number(part.trim());
      if (!Number.isInteger(n) || n < 1) throw new QuireError('PARAMETER', `Invalid parameter ${field}.allowedLengths: "${lengths}" is not a comma-separated list of lengths.`);
      allowed.add(n);
    }
  }
  const decode: DecodeOptions = {
    formats: wanted.map((name) => ZXING[name]),
    tryHarder: selection.tryHarder ?? true,
    pure: selection.pureBarcode ?? false,
    validateChecksum: selection.barcode39CheckDigit ?? false,
    eanAddOn: (selection.upcEanExtensions ?? '').trim() === '' ? 'Ignore' : 'Read',
    maxSymbols: MAX_SYMBOLS,
    ...(characterSet ? { characterSet } : {}),
  };
  return {
    decode,
    units: selection.scanArea ? unitsOf(selection.scanArea) : { metrics: 'mm', coordinates: 'user' },
    filter: (code) => (allowed.size === 0 || allowed.has(code.value.length)) && (wanted as string[]).includes(code.format),
  };
}

function report(
  code: FoundCode,
  page: number,
  units: Units,
  geometry: Pick<PageBox, 'cropBox' | 'rotation'>,
  toPoints: (corner: [number, number]) => [number, number],
  selection: SelectionOptions,
): DetectedCode {
  let format = FROM_ZXING.get(code.format) ?? code.format.toLowerCase();
  let value = code.text;
  // ZXing reads a UPC-A as EAN-13 with a leading 0 when EAN-13 is asked for too; the 12 digits are the UPC-A.
  if (format === 'ean13' && value.startsWith('0') && (selection.formats ?? '').toLowerCase().includes('upca') && !(selection.formats ?? '').toLowerCase().includes('ean13')) {
    format = 'upca';
    value = value.slice(1);
  }
  if (format === 'codabar' && !(selection.codabarStartEndDigits ?? false) && /^[A-D].*[A-D]$/i.test(value)) value = value.slice(1, -1);
  const position = { ...fromDisplayPoints(code.corners.map(toPoints), units, geometry), ...units };
  return {
    format,
    value,
    raw: code.bytes,
    page,
    position,
    rotation: ((Math.round(code.rotation) % 360) + 360) % 360,
    ...(code.ecLevel ? { errorCorrection: code.ecLevel } : {}),
  };
}

function rect(area: NonNullable<SelectionOptions['scanArea']>) {
  return { x: area.x ?? 0, y: area.y ?? 0, width: area.width ?? 0, height: area.height ?? 0 };
}

function unitsOf(area: NonNullable<SelectionOptions['scanArea']>): Units {
  return { metrics: (area.metrics ?? 'mm') as Metrics, coordinates: (area.coordinates ?? 'user') as 'user' | 'pdf' };
}
