import type { PdfStructureTool } from '../../contracts.js';
import { rm } from 'node:fs/promises';
import { QpdfRunner } from '../qpdf.js';
import { packObjectStreams } from './object-streams.js';

export { ObjectStreamError } from './object-streams.js';

/**
 * Lossless size reduction of a PDF: qpdf compresses every stream with Flate at level 9 (streams in
 * weaker generalized filters — LZW, ASCII85, ASCIIHex, RunLength — are decoded and recompressed;
 * images in DCT/JPX/JBIG2/CCITT stay as they are), then the objects are packed into object streams
 * of the requested size. qpdf's rewrite also repairs a damaged cross-reference table first, so the
 * packing always reads a clean file.
 */
export class PdfCompressor {
  private readonly qpdf: PdfStructureTool;

  /** `qpdf`: the server's one configured runner (engines-wiring.ts); without it a runner of its own (tests). */
  constructor(options: { qpdf?: PdfStructureTool; qpdfPath?: string; timeoutMs: number }) {
    this.qpdf = options.qpdf ?? new QpdfRunner({ qpdfPath: options.qpdfPath ?? 'qpdf', timeoutMs: options.timeoutMs });
  }

  async compress(input: string, output: string, options: { objectsPerStream: number; deadline?: number }): Promise<void> {
    const normalised = `${output}.normalised.pdf`;
    try {
      await this.qpdf.run(
        [
          '--object-streams=disable',
          '--compress-streams=y',
          '--decode-level=generalized',
          '--recompress-flate',
          '--compression-level=9',
          // Object streams need PDF 1.5.
          '--min-version=1.5',
          input,
          normalised,
        ],
        { deadline: options.deadline },
      );
      await packObjectStreams(normalised, output, options);
    } finally {
      await rm(normalised, { force: true });
    }
  }
}
