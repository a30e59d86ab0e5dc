import { QuireError } from '../../core/errors.js';
import { type CodeRectangle, loadSwissBill, SwissBillDataError } from '../../engines/barcode/index.js';
import type { QrSwissOptions } from './barcode.schema.js';
import { MM_PER, type PreparedCode } from './codes.js';
import { swissBillData } from './swiss-content.js';

/**
 * A `qrswiss` item made into a code to place: the bill (or its QR code alone) laid out by the
 * engine, checked by the standard's rules (-190 naming the member of the content), and where it
 * goes by `pdf.mode`: a page of its own before `pdf.page` or after the last page, or drawn onto
 * `pdf.page` at `position` — by default at the foot of the page, where a bill belongs (the code
 * alone where it sits on such a bill: 67 mm from the left, 42 mm from the bottom).
 */
export async function swissBillCode(item: QrSwissOptions, field: string): Promise<PreparedCode> {
  const data = swissBillData(item.content, `${field}.content`);
  const { renderSwissBill, SWISS_BILL_MM } = await loadSwissBill();
  let shape;
  try {
    shape = await renderSwissBill({ data, format: item.format ?? 'codeOnly', language: item.language ?? 'de', separator: item.separator ?? 'dashedLineWithScissors' });
  } catch (error) {
    if (error instanceof SwissBillDataError) {
      throw new QuireError('BARCODE_VALUE', `Invalid barcode value ${field}.content ${error.member}: ${error.message}`, { cause: error });
    }
    throw error;
  }
  const mode = item.pdf?.mode ?? 'appendAtEnd';
  const page = item.pdf?.page ?? 1;
  const metrics = (item.position?.metrics ?? 'mm') as CodeRectangle['metrics'];
  const perMm = 1 / MM_PER[metrics];
  const natural = { width: (shape.width * 25.4) / 72, height: (shape.height * 25.4) / 72 };
  const codeOnly = (item.format ?? 'codeOnly') === 'codeOnly';
  const fallback = codeOnly ? { x: SWISS_BILL_MM.qr.x, y: SWISS_BILL_MM.height - SWISS_BILL_MM.qr.y - SWISS_BILL_MM.qr.size } : { x: 0, y: 0 };
  const given = item.position;
  const position: CodeRectangle =
    given && mode === 'addToPage'
      ? {
          x: given.x ?? 0,
          y: given.y ?? 0,
          width: (given.width ?? 0) > 0 ? given.width! : natural.width * perMm,
          height: (given.height ?? 0) > 0 ? given.height! : natural.height * perMm,
          metrics,
          coordinates: (given.coordinates ?? 'user') as CodeRectangle['coordinates'],
        }
      : { x: fallback.x, y: fallback.y, width: natural.width, height: natural.height, metrics: 'mm', coordinates: 'pdf' };
  return {
    field,
    symbology: 'qrcode',
    shape,
    pages: mode === 'appendAtEnd' ? '1' : String(page),
    pagesField: `${field}.pdf.page`,
    position,
    rotation: 0,
    ...(mode === 'addToPage' ? {} : { newPage: mode === 'insertBefore' ? ('before' as const) : ('end' as const) }),
  };
}
