import { canonicalEncoding } from '../text/index.js';

/** Windows code page numbers that are not simply `windows-N` or an ISO-8859 part. */
const NAMED: Record<number, string> = {
  65001: 'utf-8',
  1200: 'utf-16le',
  1201: 'utf-16be',
  20127: 'us-ascii',
  866: 'ibm866',
  874: 'windows-874',
  932: 'shift_jis',
  936: 'gbk',
  949: 'euc-kr',
  950: 'big5',
  10000: 'macintosh',
  20866: 'koi8-r',
  21866: 'koi8-u',
  50220: 'iso-2022-jp',
  50221: 'iso-2022-jp',
  50222: 'iso-2022-jp',
  51932: 'euc-jp',
  51936: 'gbk',
  51949: 'euc-kr',
  54936: 'gb18030',
};

/**
 * The encoding of an Outlook code page number (PidTagInternetCodepage), as an Encoding Standard
 * name; undefined when unknown or unsupported, so that the caller detects the encoding instead.
 */
export function codepageEncoding(codepage: number | undefined): string | undefined {
  if (codepage === undefined) return undefined;
  let label = NAMED[codepage];
  if (label === undefined && codepage >= 1250 && codepage <= 1258) label = `windows-${codepage}`;
  if (label === undefined && codepage >= 28591 && codepage <= 28606) label = `iso-8859-${codepage - 28590}`;
  return label === undefined ? undefined : canonicalEncoding(label);
}
