import { QuireError } from '../../core/errors.js';
import { MATRIX_SYMBOLOGIES, type Symbology } from '../../engines/barcode/index.js';

/**
 * The rules a value must follow for its symbology, checked before anything is drawn: a value that
 * breaks one is refused (-190) naming the item and the rule, and the document stays as it was. The
 * generator has its own checks; these give the client the rule in plain words.
 */

/** Longest value accepted for any code (QR's largest symbol holds 2,953 bytes; Aztec 1,914; others less). */
const MAX_BYTES = 3000;

const CHARSETS: Record<string, BufferEncoding> = { 'utf-8': 'utf8', utf8: 'utf8', 'iso-8859-1': 'latin1', latin1: 'latin1', 'us-ascii': 'ascii', ascii: 'ascii' };

/** The value as the generator takes it: for 2D codes the bytes of the charset, one character per byte. */
export function checkedValue(symbology: Symbology, value: string, charset: string, field: string): string {
  const refuse = (rule: string) => new QuireError('BARCODE_VALUE', `Invalid barcode value ${field}.value ${quote(value)}: ${rule}`);
  if (value === '') throw refuse('the value is empty.');
  const digitsRule = (lengths: string, withCheck: number) => {
    if (!/^\d+$/.test(value)) return refuse(`${NAMES[symbology]} encodes digits only.`);
    if (value.length === withCheck && checkDigit(value.slice(0, -1)) !== Number(value.at(-1))) {
      return refuse(`the check digit is wrong: ${NAMES[symbology]} ${value.slice(0, -1)} has check digit ${checkDigit(value.slice(0, -1))}.`);
    }
    if (value.length !== withCheck && value.length !== withCheck - 1) return refuse(`${NAMES[symbology]} takes ${lengths}.`);
    return undefined;
  };
  switch (symbology) {
    case 'ean13': {
      const error = digitsRule('12 digits (13 with its check digit)', 13);
      if (error) throw error;
      return value;
    }
    case 'ean8': {
      const error = digitsRule('7 digits (8 with its check digit)', 8);
      if (error) throw error;
      return value;
    }
    case 'upca': {
      const error = digitsRule('11 digits (12 with its check digit)', 12);
      if (error) throw error;
      return value;
    }
    case 'itf':
      if (!/^\d+$/.test(value)) throw refuse('ITF (Interleaved 2 of 5) encodes digits only.');
      if (value.length % 2 !== 0) throw refuse('ITF (Interleaved 2 of 5) encodes digits in pairs: the number of digits must be even.');
      if (value.length > 80) throw refuse('ITF values are limited to 80 digits here.');
      return value;
    case 'code39':
      if (!/^[0-9A-Z \-.$/+%]+$/.test(value)) throw refuse('Code 39 encodes only the digits, capital letters A-Z, space and - . $ / + %.');
      if (value.length > 80) throw refuse('Code 39 values are limited to 80 characters here.');
      return value;
    case 'codabar': {
      // Start and stop characters (A-D) are both given or both left out (then A…A is used).
      const body = /^[A-D].*[A-D]$/i.test(value) ? value.slice(1, -1) : value;
      if (!/^[0-9\-$:/.+]+$/.test(body)) throw refuse('Codabar encodes only the digits and - $ : / . +, optionally between start and stop characters A-D.');
      if (value.length > 80) throw refuse('Codabar values are limited to 80 characters here.');
      return body === value ? `A${value}A` : value.toUpperCase();
    }
    case 'code128':
      // biome-ignore lint/suspicious/noControlCharactersInRegex: Code 128 encodes the ASCII control characters.
      if (!/^[\x00-\x7f]+$/.test(value)) throw refuse('Code 128 encodes ASCII characters only (use a 2D code for other text).');
      if (value.length > 80) throw refuse('Code 128 values are limited to 80 characters here.');
      return value;
    default:
      return matrixValue(symbology, value, charset, field, refuse);
  }
}

function matrixValue(symbology: Symbology, value: string, charset: string, field: string, refuse: (rule: string) => QuireError): string {
  if (!MATRIX_SYMBOLOGIES.has(symbology)) throw refuse('unknown symbology.');
  const encoding = CHARSETS[(charset || 'utf-8').trim().toLowerCase()];
  if (!encoding) throw new QuireError('PARAMETER', `Invalid parameter ${field}.charset: "${charset}" is not supported; use utf-8, iso-8859-1 or us-ascii.`);
  const bytes = Buffer.from(value, encoding);
  // Buffer.from replaces what the charset cannot hold: refuse rather than encode something else.
  if (bytes.toString(encoding) !== value) throw refuse(`the text has characters ${charset} cannot encode.`);
  if (bytes.length > MAX_BYTES) throw refuse(`the value is ${bytes.length} bytes long; at most ${MAX_BYTES} fit into a code.`);
  return bytes.toString('latin1');
}

const NAMES: Partial<Record<Symbology, string>> = { ean13: 'EAN-13', ean8: 'EAN-8', upca: 'UPC-A' };

/** The GS1 (EAN/UPC) check digit of the digits before it: weights 3 and 1 from the right. */
export function checkDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const digit = Number(digits[digits.length - 1 - i]);
    sum += i % 2 === 0 ? digit * 3 : digit;
  }
  return (10 - (sum % 10)) % 10;
}

function quote(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}
