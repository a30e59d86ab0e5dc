import type { PdfDict, PdfValue } from './pdf-syntax.js';
import { isDict, isString, nameOf, numberOf } from './pdf-syntax.js';

/** What an encryption dictionary says, independent of any password (ISO 32000-1 §7.6, 32000-2 §7.6). */
export interface EncryptionParameters {
  /** /Filter: "Standard", "Adobe.PubSec", or another handler's name. */
  filter: string;
  subFilter?: string;
  /** /V (algorithm version) and /R (Standard handler revision) when present. */
  v: number;
  r?: number;
  keyAlgorithm: KeyAlgorithm;
  /** Key length in bits (40…128 for RC4, 128 or 256 for AES); 0 when unknown or none. */
  keyLength: number;
  /** /P when present in the dictionary (the Standard handler; the public-key handler keeps permissions in the envelope). */
  permissionBits?: number;
  /** The DER-encoded PKCS#7 EnvelopedData objects of the public-key handler (/Recipients), from wherever the file keeps them. */
  recipients: Buffer[];
}

export type KeyAlgorithm = 'none' | 'aes' | 'rc4';

/** An RC4 /Length is in bits (40…128); some writers put bytes (5…16). */
function bits(length: number | undefined, fallback: number): number {
  if (length === undefined || length <= 0) return fallback;
  return length <= 32 ? length * 8 : length;
}

function cryptFilterMethod(dict: PdfDict, filterName: string | undefined): { method?: string; length?: number; filter?: PdfDict } {
  if (filterName === undefined || filterName === 'Identity') return { method: 'None' };
  const filters = dict.entries.get('CF');
  if (!isDict(filters)) return {};
  const filter = filters.entries.get(filterName);
  if (!isDict(filter)) return {};
  const method = nameOf(filter.entries.get('CFM'));
  const length = numberOf(filter.entries.get('Length'));
  return { filter, ...(method === undefined ? {} : { method }), ...(length === undefined ? {} : { length }) };
}

function stringsOf(value: PdfValue | undefined): Buffer[] {
  if (isString(value)) return [value.bytes];
  if (!Array.isArray(value)) return [];
  return value.filter(isString).map((s) => s.bytes);
}

export function encryptionParameters(dict: PdfDict): EncryptionParameters {
  const filter = nameOf(dict.entries.get('Filter')) ?? '';
  const subFilter = nameOf(dict.entries.get('SubFilter'));
  const v = numberOf(dict.entries.get('V')) ?? 0;
  const r = numberOf(dict.entries.get('R'));
  const length = numberOf(dict.entries.get('Length'));
  const p = numberOf(dict.entries.get('P'));

  let keyAlgorithm: KeyAlgorithm = 'rc4';
  let keyLength = 40;
  const recipients = stringsOf(dict.entries.get('Recipients'));
  if (v === 1 || v === 0) {
    keyLength = 40;
  } else if (v === 2 || v === 3) {
    keyLength = bits(length, 40);
  } else if (v === 4 || v === 5 || v === 6) {
    const streamFilter = nameOf(dict.entries.get('StmF'));
    const { method, length: cfLength, filter: cf } = cryptFilterMethod(dict, streamFilter ?? 'Identity');
    if (cf) for (const recipient of stringsOf(cf.entries.get('Recipients'))) recipients.push(recipient);
    switch (method) {
      case 'AESV3':
        keyAlgorithm = 'aes';
        keyLength = 256;
        break;
      case 'AESV2':
        keyAlgorithm = 'aes';
        keyLength = 128;
        break;
      case 'V2':
        keyAlgorithm = 'rc4';
        keyLength = bits(cfLength ?? length, 128);
        break;
      case 'None':
        keyAlgorithm = 'none';
        keyLength = 0;
        break;
      default:
        // Unknown or missing crypt filter: go by /V.
        keyAlgorithm = v >= 5 ? 'aes' : 'rc4';
        keyLength = v >= 5 ? 256 : bits(length, 128);
    }
    // The public-key handler may keep /Recipients in any crypt filter, not only the stream filter's.
    const filters = dict.entries.get('CF');
    if (recipients.length === 0 && isDict(filters)) {
      for (const value of filters.entries.values()) if (isDict(value)) for (const recipient of stringsOf(value.entries.get('Recipients'))) recipients.push(recipient);
    }
  } else {
    keyAlgorithm = 'none';
    keyLength = 0;
  }

  return {
    filter,
    ...(subFilter === undefined ? {} : { subFilter }),
    v,
    ...(r === undefined ? {} : { r }),
    keyAlgorithm,
    keyLength,
    ...(p === undefined ? {} : { permissionBits: p | 0 }),
    recipients,
  };
}

/** The eight permissions of Metadata_Security from /P bits (ISO 32000-1 Table 22; bit 1 = value 1). */
export interface Permissions {
  canPrint: boolean;
  canModify: boolean;
  canExtractContent: boolean;
  canModifyAnnotations: boolean;
  canFillInForm: boolean;
  canExtractForAccessibility: boolean;
  canAssemble: boolean;
  canPrintHighRes: boolean;
}

export const ALL_PERMISSIONS: Readonly<Permissions> = Object.freeze({
  canPrint: true,
  canModify: true,
  canExtractContent: true,
  canModifyAnnotations: true,
  canFillInForm: true,
  canExtractForAccessibility: true,
  canAssemble: true,
  canPrintHighRes: true,
});

/**
 * /P → permissions. For revision 2 only bits 3–6 exist; bits 9, 11 and 12 then follow bits 6, 4 and 3
 * (what revision-2 readers do). Bit 9 (fill in forms) is implied by bit 6 (annotations) as well.
 */
export function permissionsFromBits(p: number, revision?: number): Permissions {
  const bit = (n: number): boolean => (p & (1 << (n - 1))) !== 0;
  const print = bit(3);
  const modify = bit(4);
  const extract = bit(5);
  const annotations = bit(6);
  if (revision !== undefined && revision < 3) {
    return {
      canPrint: print,
      canModify: modify,
      canExtractContent: extract,
      canModifyAnnotations: annotations,
      canFillInForm: annotations,
      canExtractForAccessibility: extract,
      canAssemble: modify,
      canPrintHighRes: print,
    };
  }
  return {
    canPrint: print,
    canModify: modify,
    canExtractContent: extract,
    canModifyAnnotations: annotations,
    canFillInForm: bit(9) || annotations,
    canExtractForAccessibility: bit(10),
    canAssemble: bit(11),
    canPrintHighRes: print && bit(12),
  };
}
