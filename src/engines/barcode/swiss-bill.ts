import PDFKitDocument from 'pdfkit';
import { ValidationError } from 'swissqrbill/errors';
import { SwissQRBill, SwissQRCode } from 'swissqrbill/pdf';
import type { Data } from 'swissqrbill/types';
import { isSCORReference, isSCORReferenceValid, mm2pt } from 'swissqrbill/utils';
import type { CodeShape } from './encode.js';
import { SwissBillDataError } from './errors.js';

/**
 * The Swiss QR bill (Swiss Implementation Guidelines for the QR-bill, SIX), laid out by the
 * `swissqrbill` library (MIT) into a one-page PDF drawn with PDFKit: vector paths and the standard
 * Helvetica fonts, no bitmap. The stamping code embeds that page as one form XObject, as it does the
 * other codes' shapes.
 */

/** webPDF's `Operation_QrSwissPaymentFormat` (the names of the Codecrete library's output sizes). */
export type SwissBillFormat = 'codeOnly' | 'billOnly' | 'billPortraitSheet' | 'billExtraSpace';
export type SwissBillSeparator = 'none' | 'solidLine' | 'solidLineWithScissors' | 'dashedLine' | 'dashedLineWithScissors' | 'dottedLine' | 'dottedLineWithScissors';
export type SwissBillLanguage = 'de' | 'fr' | 'it' | 'en';
/** The bill's data in the shape of the swissqrbill library (docs/barcode.md). */
export type SwissBillData = Data;

/** Size of each format in millimetres: the QR code alone (46 × 46), the payment part with receipt (210 × 105), that with 5 mm above for the separator line, or a whole A4 portrait sheet with the bill at its foot. */
export const SWISS_FORMAT_MM: Record<SwissBillFormat, [number, number]> = {
  codeOnly: [46, 46],
  billOnly: [210, 105],
  billExtraSpace: [210, 110],
  billPortraitSheet: [210, 297],
};

/** The bill's own height (the standard's 105 mm) and where, inside it, the QR code sits (67 mm from the left, 17 mm from the top, 46 mm square). */
export const SWISS_BILL_MM = { width: 210, height: 105, qr: { x: 67, y: 17, size: 46 } } as const;

export interface SwissBillSpec {
  data: SwissBillData;
  format: SwissBillFormat;
  language: SwissBillLanguage;
  separator: SwissBillSeparator;
}

/**
 * The bill as a one-page PDF of its format's size, and the shape that places it (its size in
 * points; square-module placement keeps its aspect). The data is checked first: the library's own
 * rules (IBAN and its checksum, CH/LI only, QR-IBAN ⇔ QR reference with its modulo-10 check digit,
 * lengths, currency) plus the ISO 11649 checksum of a creditor reference (`RF…`), which the library
 * does not check.
 */
export async function renderSwissBill(spec: SwissBillSpec): Promise<CodeShape> {
  checkCreditorReference(spec.data);
  const [widthMm, heightMm] = SWISS_FORMAT_MM[spec.format];
  const width = mm2pt(widthMm);
  const height = mm2pt(heightMm);
  const pdf = new PDFKitDocument({ size: [width, height], margin: 0, compress: true, info: { Producer: 'Quire', Creator: 'Quire' } });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    pdf.on('end', resolve);
    pdf.on('error', reject);
  });
  try {
    if (spec.format === 'codeOnly') {
      // The library takes this size in millimetres.
      new SwissQRCode(spec.data, SWISS_BILL_MM.qr.size).attachTo(pdf, 0, 0);
    } else {
      const top = height - mm2pt(SWISS_BILL_MM.height);
      const scissors = spec.separator.endsWith('WithScissors');
      // The library draws only dotted outlines; the separator lines are drawn here in the style asked.
      const bill = new SwissQRBill(spec.data, { language: LANGUAGES[spec.language], outlines: false, scissors, separate: false });
      drawSeparator(pdf, spec.separator, top, height > mm2pt(SWISS_BILL_MM.height) + 0.5);
      bill.attachTo(pdf, 0, top);
    }
  } catch (error) {
    pdf.end();
    if (error instanceof ValidationError) throw new SwissBillDataError(memberOf(error.code), error.message, { cause: error });
    // Members of the wrong type can make the library fail before its own checks: still the client's data.
    throw new SwissBillDataError('content', `the bill data cannot be used: ${(error as Error).message}`, { cause: error });
  }
  pdf.end();
  await ended;
  return { matrix: true, width, height, rects: [], page: Buffer.concat(chunks) };
}

const LANGUAGES: Record<SwissBillLanguage, 'DE' | 'FR' | 'IT' | 'EN'> = { de: 'DE', fr: 'FR', it: 'IT', en: 'EN' };

/** Dash patterns in points (0.75 pt lines): dotted is round dots 2 pt apart. */
function drawSeparator(pdf: PDFKit.PDFDocument, separator: SwissBillSeparator, top: number, horizontal: boolean): void {
  if (separator === 'none') return;
  const line = (path: () => void) => {
    pdf.save();
    path();
    pdf.lineWidth(0.75).strokeColor('black');
    if (separator.startsWith('dashed')) pdf.dash(3, { space: 2 });
    if (separator.startsWith('dotted')) pdf.lineCap('round').dash(0.01, { space: 2 });
    pdf.stroke();
    pdf.restore();
  };
  if (horizontal) line(() => pdf.moveTo(0, top).lineTo(mm2pt(SWISS_BILL_MM.width), top));
  line(() => pdf.moveTo(mm2pt(62), top).lineTo(mm2pt(62), top + mm2pt(SWISS_BILL_MM.height)));
}

/** A reference starting with RF is an ISO 11649 creditor reference: its two check digits must hold (modulo 97). */
function checkCreditorReference(data: SwissBillData): void {
  if (typeof data.reference !== 'string') return;
  const reference = data.reference.replace(/\s+/g, '');
  if (isSCORReference(reference) && !isSCORReferenceValid(reference)) {
    throw new SwissBillDataError('reference', `the creditor reference (ISO 11649) '${data.reference}' has wrong check digits.`);
  }
}

/**
 * The member of the bill data a library error code concerns: `CREDITOR_ZIP_…` → creditor.zip,
 * `QR_REFERENCE_…` → reference, `ACCOUNT_IS_QR_IBAN_BUT_REFERENCE_…` → reference, and so on.
 */
export function memberOf(code: string): string {
  const party = /^(CREDITOR|DEBTOR)_(ACCOUNT|ADDRESS|BUILDING_NUMBER|CITY|COUNTRY|NAME|ZIP)_/.exec(code);
  if (party) return `${party[1]!.toLowerCase()}.${camel(party[2]!)}`;
  if (/^(CREDITOR|DEBTOR)_IS_/.test(code)) return code.startsWith('CREDITOR') ? 'creditor' : 'debtor';
  if (/REFERENCE/.test(code)) return 'reference';
  if (code.startsWith('ACCOUNT_')) return 'creditor.account';
  if (code.startsWith('AMOUNT_')) return 'amount';
  if (code.startsWith('CURRENCY_')) return 'currency';
  if (code.startsWith('MESSAGE_')) return 'message';
  if (code.startsWith('ADDITIONAL_INFORMATION_')) return 'additionalInformation';
  if (code.startsWith('ALTERNATIVE_SCHEME_')) return 'av1';
  return 'content';
}

function camel(words: string): string {
  return words.toLowerCase().replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
