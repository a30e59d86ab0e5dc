import { QuireError } from '../../core/errors.js';
import type { SwissBillData } from '../../engines/barcode/index.js';
import { decodeFileData } from '../toolbox/file-data.js';
import type { QrSwissOptions } from './barcode.schema.js';

/**
 * The bill data of a `qrswiss` item's `content`: Base64 of UTF-8 text that is either the QR payload
 * itself (`plain`: the "SPC" element lines of the Swiss Implementation Guidelines, section 4.3) or
 * JSON in the swissqrbill library's shape (docs/barcode.md). The standard's own rules (IBAN, QR
 * reference, lengths…) are checked when the bill is made (engines/barcode/swiss-bill.ts).
 */
export function swissBillData(content: QrSwissOptions['content'], field: string): SwissBillData {
  const text = decodeFileData(content, field).toString('utf8');
  if (content.format === 'plain') return fromPayload(text, `${field}.value`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new QuireError('BARCODE_VALUE', `Invalid barcode value ${field}.value: content.format is json and the content is not JSON (${(error as Error).message}).`, { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new QuireError('BARCODE_VALUE', `Invalid barcode value ${field}.value: the JSON content must be an object with creditor, currency, … (docs/barcode.md).`);
  }
  return parsed as SwissBillData;
}

/** The element lines of a QR-bill payload (version 2.0 and later, structured addresses), by position. */
const LINES = {
  header: 0,
  version: 1,
  coding: 2,
  account: 3,
  creditor: 4,
  ultimateCreditor: 11,
  amount: 18,
  currency: 19,
  debtor: 20,
  referenceType: 27,
  reference: 28,
  message: 29,
  trailer: 30,
  billInformation: 31,
  av1: 32,
  av2: 33,
} as const;

function fromPayload(text: string, field: string): SwissBillData {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  const refuse = (rule: string) => new QuireError('BARCODE_VALUE', `Invalid barcode value ${field}: ${rule}`);
  const at = (index: number) => (lines[index] ?? '').trim();
  if (at(LINES.header) !== 'SPC') throw refuse('a plain QR-bill payload starts with the line "SPC".');
  if (!/^02\d\d$/.test(at(LINES.version))) throw refuse(`version "${at(LINES.version)}" is not a QR-bill version 2.x ("0200").`);
  if (at(LINES.coding) !== '1') throw refuse('the coding type (line 3) must be 1 (UTF-8).');
  if (lines.length < LINES.trailer + 1 || at(LINES.trailer) !== 'EPD') throw refuse('line 31 must be the trailer "EPD" (a payload has 31 to 34 lines).');
  if (lines.length > LINES.av2 + 1) throw refuse(`a payload has at most 34 lines, this one ${lines.length}.`);
  for (let i = LINES.ultimateCreditor; i < LINES.amount; i++) if (at(i) !== '') throw refuse(`line ${i + 1} (ultimate creditor) must be empty: the standard reserves it.`);
  const party = (start: number, name: string) => {
    const type = at(start);
    if (type === '') return undefined;
    if (type !== 'S') throw refuse(`the ${name} address type (line ${start + 1}) must be S (structured); combined addresses (K) are no longer allowed.`);
    return { name: at(start + 1), address: at(start + 2), buildingNumber: at(start + 3) || undefined, zip: at(start + 4), city: at(start + 5), country: at(start + 6) };
  };
  const creditor = party(LINES.creditor, 'creditor');
  if (!creditor) throw refuse('the creditor (lines 5-11) is required.');
  const debtor = party(LINES.debtor, 'debtor');
  const amountText = at(LINES.amount);
  if (amountText !== '' && !/^\d{1,9}\.\d{2}$/.test(amountText)) throw refuse(`the amount (line 19) "${amountText}" must be digits with two decimals, e.g. 1949.75.`);
  const referenceType = at(LINES.referenceType);
  const reference = at(LINES.reference);
  if (!['QRR', 'SCOR', 'NON'].includes(referenceType)) throw refuse(`the reference type (line 28) must be QRR, SCOR or NON, not "${referenceType}".`);
  if ((referenceType === 'NON') !== (reference === '')) throw refuse('the reference type NON goes with an empty reference (line 29), QRR and SCOR with a reference.');
  if (referenceType === 'SCOR' && !reference.startsWith('RF')) throw refuse('a SCOR reference is an ISO 11649 creditor reference starting with RF.');
  if (referenceType === 'QRR' && reference.startsWith('RF')) throw refuse('a QRR reference is a 27-digit QR reference.');
  const optional = (index: number) => (at(index) === '' ? undefined : at(index));
  const data: SwissBillData = {
    creditor: { ...creditor, account: at(LINES.account) },
    currency: at(LINES.currency) as SwissBillData['currency'],
    ...(amountText !== '' ? { amount: Number(amountText) } : {}),
    ...(debtor ? { debtor } : {}),
    ...(reference !== '' ? { reference } : {}),
  };
  const message = optional(LINES.message);
  const billInformation = optional(LINES.billInformation);
  const av1 = optional(LINES.av1);
  const av2 = optional(LINES.av2);
  if (message) data.message = message;
  if (billInformation) data.additionalInformation = billInformation;
  if (av1) data.av1 = av1;
  if (av2) data.av2 = av2;
  return data;
}
