import { constants, deflateSync } from 'node:zlib';
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNumber, PDFRawStream, type PDFObject, type PDFStream } from '@cantoo/pdf-lib';
import { decodeBounded, inflateBounded, StreamTooLargeError } from '../stream-bounds.js';
import { unpredictPngByte } from '../../pdf/png-predictor.js';

/**
 * Stream data in and out. The general filters (§7.4) are undone here, with the PNG and TIFF
 * predictors pdf-lib's decoders leave out; image codecs (DCT, JPX, JBIG2, CCITT) are reported back
 * to the caller, which decides what it can do with them.
 */

const ABBREVIATIONS: Record<string, string> = {
  AHx: 'ASCIIHexDecode',
  A85: 'ASCII85Decode',
  LZW: 'LZWDecode',
  Fl: 'FlateDecode',
  RL: 'RunLengthDecode',
  CCF: 'CCITTFaxDecode',
  DCT: 'DCTDecode',
};

export const IMAGE_CODECS = new Set(['DCTDecode', 'JPXDecode', 'JBIG2Decode', 'CCITTFaxDecode']);

export interface FilterStep {
  name: string;
  parms: PDFDict | undefined;
}

export class StreamDecodeError extends Error {}

/** The filter chain of a stream dictionary, names expanded. */
export function filtersOf(dict: PDFDict): FilterStep[] {
  const filter = dict.lookup(PDFName.of('Filter'));
  const parms = dict.lookup(PDFName.of('DecodeParms')) ?? dict.lookup(PDFName.of('DP'));
  const names: string[] = [];
  if (filter instanceof PDFName) names.push(filter.decodeText());
  else if (filter instanceof PDFArray) {
    for (let i = 0; i < filter.size(); i++) {
      const item = filter.lookup(i);
      if (item instanceof PDFName) names.push(item.decodeText());
    }
  }
  return names.map((name, index) => {
    let stepParms: PDFObject | undefined = parms;
    if (parms instanceof PDFArray) stepParms = parms.lookup(index);
    return { name: ABBREVIATIONS[name] ?? name, parms: stepParms instanceof PDFDict ? stepParms : undefined };
  });
}

/**
 * Undoes the general filters of `stream`. Stops before the first image codec and returns it (and
 * what follows) in `remaining`; throws StreamDecodeError for filters nobody here can undo.
 */
export function decodeStream(stream: PDFStream, options: { allowImageCodecs?: boolean } = {}): { data: Uint8Array; remaining: FilterStep[] } {
  if (!(stream instanceof PDFRawStream)) {
    // A stream pdf-lib built itself (not loaded): its contents are produced on demand, unfiltered or Flate.
    const contents = stream.getContents();
    const filters = filtersOf(stream.dict);
    return decodeBytes(contents, filters, options);
  }
  return decodeBytes(stream.contents, filtersOf(stream.dict), options);
}

export function decodeBytes(input: Uint8Array, filters: FilterStep[], options: { allowImageCodecs?: boolean } = {}): { data: Uint8Array; remaining: FilterStep[] } {
  let data = input;
  for (const [index, step] of filters.entries()) {
    if (IMAGE_CODECS.has(step.name)) {
      if (!options.allowImageCodecs) throw new StreamDecodeError(`image codec ${step.name} in a content stream`);
      return { data, remaining: filters.slice(index) };
    }
    data = decodeStep(data, step);
  }
  return { data, remaining: [] };
}

function decodeStep(data: Uint8Array, step: FilterStep): Uint8Array {
  switch (step.name) {
    case 'FlateDecode':
      return unpredict(inflate(data), step.parms);
    case 'LZWDecode':
      return unpredict(viaPdfLib(data, step), step.parms);
    case 'ASCIIHexDecode':
    case 'ASCII85Decode':
    case 'RunLengthDecode':
      return viaPdfLib(data, step);
    case 'Crypt': {
      const name = step.parms?.lookup(PDFName.of('Name'));
      if (name === undefined || (name instanceof PDFName && name.decodeText() === 'Identity')) return data;
      throw new StreamDecodeError('a Crypt filter other than Identity');
    }
    default:
      throw new StreamDecodeError(`the ${step.name} filter`);
  }
}

/** zlib, tolerant of the truncated or trailing-garbage streams many writers produce. */
function inflate(data: Uint8Array): Uint8Array {
  try {
    return inflateBounded(data);
  } catch (first) {
    if (first instanceof StreamTooLargeError) throw first;
    try {
      return inflateBounded(data, { finishFlush: constants.Z_SYNC_FLUSH });
    } catch (error) {
      if (error instanceof StreamTooLargeError) throw error;
      throw new StreamDecodeError(`damaged Flate data (${(error as Error).message})`);
    }
  }
}

let scratchContext: PDFContext | undefined;

function viaPdfLib(data: Uint8Array, step: FilterStep): Uint8Array {
  scratchContext ??= PDFContext.create();
  const dict = scratchContext.obj({ Filter: step.name });
  if (step.parms) dict.set(PDFName.of('DecodeParms'), step.parms);
  try {
    return decodeBounded(PDFRawStream.of(dict, data));
  } catch (error) {
    if (error instanceof StreamTooLargeError) throw error;
    throw new StreamDecodeError(`damaged ${step.name} data (${(error as Error).message})`);
  }
}

function numberIn(dict: PDFDict | undefined, key: string, fallback: number): number {
  const value = dict?.lookup(PDFName.of(key));
  return value instanceof PDFNumber ? value.asNumber() : fallback;
}

/** Undoes a PNG (10–15) or TIFF (2) predictor (§7.4.4.4). */
function unpredict(data: Uint8Array, parms: PDFDict | undefined): Uint8Array {
  const predictor = numberIn(parms, 'Predictor', 1);
  if (predictor <= 1) return data;
  const colors = numberIn(parms, 'Colors', 1);
  const bpc = numberIn(parms, 'BitsPerComponent', 8);
  const columns = numberIn(parms, 'Columns', 1);
  const bytesPerPixel = Math.max(1, Math.ceil((colors * bpc) / 8));
  const rowLength = Math.ceil((colors * bpc * columns) / 8);
  if (predictor === 2) {
    if (bpc !== 8) throw new StreamDecodeError(`the TIFF predictor with ${bpc} bits per component`);
    const out = Uint8Array.from(data);
    for (let row = 0; row * rowLength < out.length; row++) {
      const base = row * rowLength;
      for (let i = bytesPerPixel; i < rowLength && base + i < out.length; i++) out[base + i] = (out[base + i]! + out[base + i - bytesPerPixel]!) & 0xff;
    }
    return out;
  }
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = new Uint8Array(rows * rowLength);
  let previous = new Uint8Array(rowLength);
  for (let row = 0; row < rows; row++) {
    const type = data[row * (rowLength + 1)]!;
    const source = data.subarray(row * (rowLength + 1) + 1, (row + 1) * (rowLength + 1));
    const current = out.subarray(row * rowLength, (row + 1) * rowLength);
    for (let i = 0; i < rowLength; i++) {
      const left = i >= bytesPerPixel ? current[i - bytesPerPixel]! : 0;
      const up = previous[i]!;
      const upLeft = i >= bytesPerPixel ? previous[i - bytesPerPixel]! : 0;
      const raw = source[i]!;
      const value = unpredictPngByte(type, raw, left, up, upLeft);
      if (value === undefined) throw new StreamDecodeError(`PNG row filter type ${type}`);
      current[i] = value;
    }
    previous = current;
  }
  return out;
}

/** Flate-compresses data for a new stream. */
export function deflate(data: Uint8Array): Uint8Array {
  return deflateSync(data, { level: 6 });
}

/** A new Flate stream object with `dict`'s other entries. */
export function flateStream(context: PDFContext, data: Uint8Array, entries: Record<string, PDFObject> = {}): PDFRawStream {
  const dict = context.obj({});
  for (const [key, value] of Object.entries(entries)) dict.set(PDFName.of(key), value);
  dict.set(PDFName.of('Filter'), PDFName.of('FlateDecode'));
  dict.set(PDFName.of('Length'), PDFNumber.of(0));
  const stream = PDFRawStream.of(dict, deflate(data));
  return stream;
}
