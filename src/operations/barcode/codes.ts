import { QuireError } from '../../core/errors.js';
import { BarcodeError, type CodeRectangle, type CodeShape, type CodeSpec, loadDrawing, SYMBOLOGIES, type Symbology } from '../../engines/barcode/index.js';
import type { AddOptions } from './barcode.schema.js';
import { swissBillCode } from './swiss.js';
import { checkedValue } from './values.js';

/** One code of an add call, checked and encoded, before any page is known. */
export interface PreparedCode {
  field: string;
  symbology: Symbology;
  shape: CodeShape;
  /** The item's `pages` selection text. */
  pages: string;
  position: CodeRectangle;
  rotation: number;
  /** The field a bad `pages` selection is reported under (default `<field>.pages`). */
  pagesField?: string;
  /** A Swiss QR bill on a page of its own (pdf.mode insertBefore / appendAtEnd), see CodeStamp. */
  newPage?: 'before' | 'end';
}

/** Codes one call may add (every symbology's items together): each is encoded and drawn on its own. */
export const MAX_CODES_PER_CALL = 1000;

/** Size of one module when the position gives no size: 0.5 mm for 2D codes, 0.33 mm (EAN's nominal) for linear ones. */
const MATRIX_MODULE_MM = 0.5;
const LINEAR_MODULE_MM = 0.33;
/** Bar height of a linear code whose position gives no height. */
const LINEAR_HEIGHT_MM = 15;

export const MM_PER: Record<CodeRectangle['metrics'], number> = { mm: 1, pt: 25.4 / 72, pc: (25.4 / 72) * 12, px: 25.4 / 96, in: 25.4 };

/**
 * Every item of `add`, in the reference's member order, checked (value rules, -190 naming the item)
 * and encoded; nothing is drawn yet, so a bad item leaves the document untouched.
 */
export async function prepareCodes(add: AddOptions): Promise<PreparedCode[]> {
  const { encodeCode } = await loadDrawing();
  const codes: PreparedCode[] = [];
  for (const symbology of SYMBOLOGIES) {
    const items = (add[symbology] ?? []) as AnyItem[];
    items.forEach((item, index) => {
      const field = `barcode.add.${symbology}[${index}]`;
      if (codes.length >= MAX_CODES_PER_CALL) throw new QuireError('PARAMETER', `Invalid parameter barcode.add: at most ${MAX_CODES_PER_CALL} codes per call.`);
      const value = checkedValue(symbology, item.value, item.charset ?? 'utf-8', field);
      const spec: CodeSpec = { symbology, value, margin: item.margin ?? 0 };
      if (symbology === 'qrcode') spec.qrErrorCorrection = item.errorCorrection as CodeSpec['qrErrorCorrection'];
      if (symbology === 'aztec') Object.assign(spec, { errorCorrection: item.errorCorrection, layers: item.layers });
      if (symbology === 'pdf417') Object.assign(spec, { errorCorrection: item.errorCorrection, compact: item.compact ?? false });
      if (symbology === 'datamatrix') Object.assign(spec, { shape: item.shape, gs1: item.gs1 ?? false });
      if (item.showText === true) spec.text = true;
      let shape: CodeShape;
      try {
        shape = encodeCode(spec);
      } catch (error) {
        if (error instanceof BarcodeError && error.kind === 'invalidValue') {
          throw new QuireError('BARCODE_VALUE', `Invalid barcode value ${field}.value ${JSON.stringify(item.value.slice(0, 60))}: ${error.message}.`, { cause: error });
        }
        throw error;
      }
      codes.push({ field, symbology, shape, pages: item.pages ?? '', position: rectangle(item.position, shape), rotation: item.rotation ?? 0 });
    });
  }
  for (const [index, item] of (add.qrswiss ?? []).entries()) {
    if (codes.length >= MAX_CODES_PER_CALL) throw new QuireError('PARAMETER', `Invalid parameter barcode.add: at most ${MAX_CODES_PER_CALL} codes per call.`);
    codes.push(await swissBillCode(item, `barcode.add.qrswiss[${index}]`));
  }
  if (codes.length === 0) throw new QuireError('PARAMETER', 'Invalid parameter barcode.add: give at least one code (qrcode, ean13, code128, … each an array of items with a value).');
  return codes;
}

interface AnyItem {
  value: string;
  charset?: string;
  margin?: number;
  pages?: string;
  rotation?: number;
  position?: { x?: number; y?: number; width?: number; height?: number; metrics?: string; coordinates?: string };
  errorCorrection?: string | number;
  layers?: number;
  compact?: boolean;
  gs1?: boolean;
  shape?: 'default' | 'rectangle' | 'square';
  /** Linear symbologies: the human-readable text under the bars. */
  showText?: boolean;
}

/**
 * The item's rectangle; a width or height of 0 (or no position) is the code's natural size: modules
 * of 0.5 mm (2D) or 0.33 mm (linear, bars 15 mm tall), in the rectangle's metrics.
 */
function rectangle(position: AnyItem['position'], shape: CodeShape): CodeRectangle {
  const metrics = (position?.metrics ?? 'mm') as CodeRectangle['metrics'];
  const perMm = 1 / MM_PER[metrics];
  const module = (shape.matrix ? MATRIX_MODULE_MM : LINEAR_MODULE_MM) * perMm;
  let width = position?.width ?? 0;
  let height = position?.height ?? 0;
  if (shape.matrix) {
    if (width <= 0 && height <= 0) width = shape.width * module;
    if (width <= 0) width = (height * shape.width) / shape.height;
    if (height <= 0) height = (width * shape.height) / shape.width;
  } else {
    if (width <= 0) width = shape.width * module;
    if (height <= 0) height = LINEAR_HEIGHT_MM * perMm;
  }
  return { x: position?.x ?? 0, y: position?.y ?? 0, width, height, metrics, coordinates: (position?.coordinates ?? 'user') as CodeRectangle['coordinates'] };
}
