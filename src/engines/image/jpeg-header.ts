import type { ReadAt } from './byte-source.js';
import { dpiFromPerCentimetre } from './metric-dpi.js';

/**
 * The JPEG marker segments up to the first scan: what decides whether a JPEG can go into a PDF as its
 * own bytes (DCTDecode) and what the image dictionary must say about it. Only headers are read, a few
 * bytes per segment; nothing is decoded.
 */
export interface JpegHeader {
  /** The start-of-frame marker's low byte: 0xc0 baseline, 0xc1 extended sequential, 0xc2 progressive, ... */
  frameType: number;
  /** Bits per sample. */
  precision: number;
  width: number;
  /** 0 means the height comes later in a DNL segment. */
  height: number;
  components: number;
  /** APP14 "Adobe" colour transform, when the segment is present (its presence also means inverted CMYK). */
  adobeTransform: number | undefined;
  /** APP0 JFIF density when its unit is dots per inch (1) or per cm (2); in dpi. */
  jfifDpi: { x: number; y: number } | undefined;
  /** Offset of the first start-of-scan marker. */
  scanOffset: number;
}

/** Segments followed before giving up; real files have a dozen. */
const MAX_SEGMENTS = 1000;

const isStartOfFrame = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

/** Undefined when the structure cannot be followed to the first scan; the decoder then has the last word. */
export async function readJpegHeader(read: ReadAt): Promise<JpegHeader | undefined> {
  const soi = await read(0, 2);
  if (soi.length < 2 || soi[0] !== 0xff || soi[1] !== 0xd8) return undefined;
  let frame: Pick<JpegHeader, 'frameType' | 'precision' | 'width' | 'height' | 'components'> | undefined;
  let adobeTransform: number | undefined;
  let jfifDpi: JpegHeader['jfifDpi'];
  let position = 2;
  for (let segments = 0; segments < MAX_SEGMENTS; ) {
    const head = await read(position, 4);
    if (head.length < 2 || head[0] !== 0xff) return undefined;
    const marker = head[1]!;
    if (marker === 0xff) {
      position++; // fill byte
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      position += 2; // no length field
      continue;
    }
    // Hierarchical (DHP) and scan-less files are left to the decoder.
    if (marker === 0xda) return frame && { ...frame, adobeTransform, jfifDpi, scanOffset: position };
    if (marker === 0xd9 || marker === 0xde || head.length < 4) return undefined;
    const length = head.readUInt16BE(2);
    if (length < 2) return undefined;
    if (isStartOfFrame(marker)) {
      const data = await read(position + 4, 6);
      if (data.length < 6 || frame) return undefined; // a second frame header is not a plain JPEG
      frame = { frameType: marker, precision: data[0]!, height: data.readUInt16BE(1), width: data.readUInt16BE(3), components: data[5]! };
    } else if (marker === 0xe0) {
      const data = await read(position + 4, Math.min(length - 2, 12));
      if (data.length >= 12 && data.toString('latin1', 0, 5) === 'JFIF\0') {
        const unit = data[7]!;
        const x = data.readUInt16BE(8);
        const y = data.readUInt16BE(10);
        // Unit 0 gives only the pixel aspect ratio: no physical size.
        if ((unit === 1 || unit === 2) && x > 0 && y > 0) jfifDpi = unit === 1 ? { x, y } : { x: dpiFromPerCentimetre(x), y: dpiFromPerCentimetre(y) };
      }
    } else if (marker === 0xee) {
      const data = await read(position + 4, Math.min(length - 2, 12));
      if (data.length >= 12 && data.toString('latin1', 0, 5) === 'Adobe') adobeTransform = data[11];
    }
    position += 2 + length;
    segments++;
  }
  return undefined;
}

/** Bytes read at a time while walking the entropy-coded data. */
const SCAN_CHUNK = 1 << 20;

/**
 * The offset just past the image's end-of-image marker, found by walking the scans and the segments
 * between them (a DQT or COM between progressive scans may hold the bytes FF D9, entropy-coded data
 * never does). Phones append data after it: a second image (MPO) or a whole MP4 video ("motion
 * photos"). Copying the file up to here keeps those out of the PDF. Returns `size` when the walk
 * cannot finish; the decoder check has accepted the file by then.
 */
export async function findJpegEnd(read: ReadAt, scanOffset: number, size: number): Promise<number> {
  let position = scanOffset;
  while (position + 2 <= size) {
    const head = await read(position, 4);
    if (head.length < 2 || head[0] !== 0xff) return size;
    const marker = head[1]!;
    if (marker === 0xd9) return position + 2;
    if (marker === 0xff) {
      position++;
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      position += 2;
      continue;
    }
    if (head.length < 4) return size;
    position += 2 + head.readUInt16BE(2);
    if (marker !== 0xda) continue;
    // Entropy-coded data: runs to the next FF that is neither stuffing (FF 00) nor a restart marker.
    for (;;) {
      const chunk = await read(position, SCAN_CHUNK);
      if (chunk.length < 2) return size;
      let found = -1;
      for (let at = chunk.indexOf(0xff); at >= 0 && at + 1 < chunk.length; at = chunk.indexOf(0xff, at + 1)) {
        const next = chunk[at + 1]!;
        if (next !== 0x00 && next !== 0xff && !(next >= 0xd0 && next <= 0xd7)) {
          found = at;
          break;
        }
      }
      if (found >= 0) {
        position += found;
        break;
      }
      // Step back one byte so an FF at the chunk's end is seen with its successor.
      position += chunk.length - 1;
    }
  }
  return size;
}
