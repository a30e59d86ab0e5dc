import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';

/**
 * Writes an image-only PDF straight to a file, one page at a time.
 *
 * Why not pdf-lib: a pdf-lib document keeps every embedded image in memory until `save()`, which then
 * copies the whole file into one more buffer, so a 100-page colour TIFF would need gigabytes; and its
 * PNG path decodes to RGBA in JavaScript and re-deflates with pako. The PDF of a picture book is
 * simple enough (catalog, page tree, pages, image XObjects, xref) to write as we go: each image's
 * bytes are written and dropped before the next frame is decoded, and JPEG files are copied from disk.
 */

export type ColorSpace = 'DeviceGray' | 'DeviceRGB' | 'DeviceCMYK';

/** Bytes of an image stream, in memory (e.g. the IDAT chunks of a PNG) or the first `length` bytes of a file (a JPEG). */
export type StreamBytes = { buffers: Buffer[]; length: number } | { file: string; length: number };

export interface PdfImage {
  width: number;
  height: number;
  bitsPerComponent: number;
  colorSpace: ColorSpace;
  /** An ICC profile whose colour space matches `colorSpace`: written as /ICCBased with it as /Alternate. */
  iccProfile?: Buffer | undefined;
  filter: 'DCTDecode' | 'FlateDecode';
  /** FlateDecode data whose rows carry PNG filter bytes (/Predictor 15). */
  pngPredictors?: boolean;
  decode?: number[] | undefined;
  /** The alpha channel, a DeviceGray image of the same size. */
  softMask?: PdfImage | undefined;
  data: StreamBytes;
}

/** Page size and the image's rectangle on it, in points. */
export interface PagePlacement {
  pageWidth: number;
  pageHeight: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

const CATALOG = 1;
const PAGES = 2;

export class PdfImageWriter {
  private readonly handle: FileHandle;
  private offset = 0;
  /** Byte offset of each object, by object number (0 is the free-list head). */
  private readonly offsets: number[] = [0, 0, 0];
  private readonly pages: number[] = [];

  private constructor(handle: FileHandle) {
    this.handle = handle;
  }

  static async create(file: string): Promise<PdfImageWriter> {
    const writer = new PdfImageWriter(await open(file, 'w'));
    // The second line's high bytes tell transfer tools the file is binary.
    await writer.write(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'));
    return writer;
  }

  get pageCount(): number {
    return this.pages.length;
  }

  async addPage(image: PdfImage, placement: PagePlacement): Promise<void> {
    const imageRef = await this.writeImage(image);
    const content = Buffer.from(`q\n${num(placement.width)} 0 0 ${num(placement.height)} ${num(placement.x)} ${num(placement.y)} cm\n/Im0 Do\nQ\n`, 'latin1');
    const contentRef = await this.writeStream(`/Length ${content.length}`, { buffers: [content], length: content.length });
    const pageRef = this.nextRef();
    await this.writeObject(
      pageRef,
      `<< /Type /Page /Parent ${PAGES} 0 R /MediaBox [0 0 ${num(placement.pageWidth)} ${num(placement.pageHeight)}] ` +
        `/Resources << /XObject << /Im0 ${imageRef} 0 R >> >> /Contents ${contentRef} 0 R >>`,
    );
    this.pages.push(pageRef);
  }

  /** Writes the page tree, catalog, cross-reference table and trailer, and closes the file. */
  async finish(): Promise<void> {
    if (this.pages.length === 0) throw new Error('A PDF needs at least one page');
    await this.writeObject(PAGES, `<< /Type /Pages /Kids [${this.pages.map((p) => `${p} 0 R`).join(' ')}] /Count ${this.pages.length} >>`);
    await this.writeObject(CATALOG, `<< /Type /Catalog /Pages ${PAGES} 0 R >>`);
    const xref = this.offset;
    // Each entry is exactly 20 bytes, end of line included.
    const entries = this.offsets.map((at, n) => (n === 0 ? '0000000000 65535 f\r\n' : `${String(at).padStart(10, '0')} 00000 n\r\n`));
    const id = randomBytes(16).toString('hex');
    await this.write(
      Buffer.from(`xref\n0 ${this.offsets.length}\n${entries.join('')}trailer\n<< /Size ${this.offsets.length} /Root ${CATALOG} 0 R /ID [<${id}> <${id}>] >>\nstartxref\n${xref}\n%%EOF\n`, 'latin1'),
    );
    await this.handle.close();
  }

  /** Closes the file after a failure; the partial file is the caller's to delete. */
  async abort(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }

  private async writeImage(image: PdfImage): Promise<number> {
    const softMask = image.softMask ? await this.writeImage(image.softMask) : undefined;
    let colorSpace = `/${image.colorSpace}`;
    if (image.iccProfile) {
      const profile = deflateSync(image.iccProfile);
      const components = image.colorSpace === 'DeviceGray' ? 1 : image.colorSpace === 'DeviceRGB' ? 3 : 4;
      const iccRef = await this.writeStream(`/N ${components} /Alternate /${image.colorSpace} /Filter /FlateDecode /Length ${profile.length}`, { buffers: [profile], length: profile.length });
      colorSpace = `[/ICCBased ${iccRef} 0 R]`;
    }
    const parms = image.pngPredictors
      ? ` /DecodeParms << /Predictor 15 /Colors ${image.colorSpace === 'DeviceGray' ? 1 : 3} /BitsPerComponent ${image.bitsPerComponent} /Columns ${image.width} >>`
      : '';
    const dict =
      `/Type /XObject /Subtype /Image /Width ${image.width} /Height ${image.height} /ColorSpace ${colorSpace} ` +
      `/BitsPerComponent ${image.bitsPerComponent} /Filter /${image.filter}${parms}` +
      (image.decode ? ` /Decode [${image.decode.join(' ')}]` : '') +
      (softMask ? ` /SMask ${softMask} 0 R` : '') +
      ` /Length ${image.data.length}`;
    return this.writeStream(dict, image.data);
  }

  private async writeStream(dictionary: string, data: StreamBytes): Promise<number> {
    const ref = this.nextRef();
    this.offsets[ref] = this.offset;
    await this.write(Buffer.from(`${ref} 0 obj\n<< ${dictionary} >>\nstream\n`, 'latin1'));
    if ('file' in data) {
      let copied = 0;
      for await (const chunk of createReadStream(data.file, { start: 0, end: data.length - 1, highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
        copied += chunk.length;
        await this.write(chunk);
      }
      // The dictionary already promised /Length: a file that changed meanwhile would corrupt the PDF.
      if (copied !== data.length) throw new Error(`The image file changed while it was copied (${copied} of ${data.length} bytes)`);
    } else {
      for (const buffer of data.buffers) await this.write(buffer);
    }
    await this.write(Buffer.from('\nendstream\nendobj\n', 'latin1'));
    return ref;
  }

  private async writeObject(ref: number, body: string): Promise<void> {
    this.offsets[ref] = this.offset;
    await this.write(Buffer.from(`${ref} 0 obj\n${body}\nendobj\n`, 'latin1'));
  }

  private nextRef(): number {
    this.offsets.push(0);
    return this.offsets.length - 1;
  }

  private async write(buffer: Buffer): Promise<void> {
    for (let done = 0; done < buffer.length; ) {
      const { bytesWritten } = await this.handle.write(buffer, done, buffer.length - done);
      done += bytesWritten;
    }
    this.offset += buffer.length;
  }
}

/** A PDF number: no exponent, at most 4 decimals, no trailing zeros. */
function num(value: number): string {
  const fixed = value.toFixed(4).replace(/\.?0+$/, '');
  return fixed === '-0' ? '0' : fixed;
}
