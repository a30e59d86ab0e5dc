/**
 * The header of an ICC profile (ICC.1:2001-04 / ISO 15076-1 §7.2): the facts ISO 19005 checks on
 * output intents and ICCBased colour spaces. Only the 128-byte header is read; the tag table is not
 * needed for these rules.
 */
import type { CosDocument, CosStream } from '../../cos/index.js';
import { intOf } from './values.js';

export interface IccHeader {
  /** Profile/device class signature (bytes 12–15): `mntr`, `prtr`, `scnr`, `spac`, `link`…; null when the data is shorter than the header. */
  readonly deviceClass: string | null;
  /** Colour space of data signature (bytes 16–19): `RGB `, `CMYK`, `GRAY`, `Lab `…; null when the data is shorter than the header. */
  readonly colorSpace: string | null;
  /** Major version + minor version / 10 (bytes 8 and the high nibble of 9): 2.1, 4.3…; null when too short. */
  readonly version: number | null;
}

const HEADER_BYTES = 128;

/** Properties of the profile stream: null values when it is too short or its data is corrupt; undefined when it cannot be decoded here. */
export function iccHeader(doc: CosDocument, stream: CosStream): IccHeader | undefined {
  const decoded = doc.decodeStream(stream);
  // Corrupt filtered data (zlib rejects it) is no profile at all: its header facts are null, as for a short one. A filter
  // this reader lacks, or the decode budget, leaves them unknown (undefined: the caller leaves them not-checked).
  if (!decoded.ok) return decoded.reason === 'corrupt' ? { deviceClass: null, colorSpace: null, version: null } : undefined;
  const data = decoded.data;
  if (data.length < HEADER_BYTES) return { deviceClass: null, colorSpace: null, version: null };
  return {
    deviceClass: data.toString('latin1', 12, 16),
    colorSpace: data.toString('latin1', 16, 20),
    version: (data[8] ?? 0) + ((data[9] ?? 0) >> 4) / 10,
  };
}

/** ICCProfile's `N`: the stream dictionary's number of colour components. */
export function iccComponents(doc: CosDocument, stream: CosStream): number | null {
  return intOf(doc, stream.dict, 'N');
}
