import { decodeOptions } from './load-sharp.js';
import type { Sharp, SharpFactory } from './load-sharp.js';

/**
 * Frames of an animated GIF or WebP, decoded several at a time.
 *
 * A frame of an animation can only be composed from the frames before it, so libvips decodes frames
 * 0..i to give frame i: one frame at a time, a 100-frame GIF costs 5,000 frame decodes (measured: 83
 * ms for frame 99 of a 400×300 GIF alone, 128 ms for all 100 at once), and a small file with thousands
 * of frames would keep a worker busy for minutes. So consecutive frames are decoded together, as many
 * as fit in BATCH_PIXELS: for typical animations that is the whole file in one pass, and the memory
 * held is never more than one large photo's frame.
 */
const BATCH_PIXELS = 16_000_000;

interface Batch {
  start: number;
  count: number;
  data: Buffer;
  channels: 1 | 2 | 3 | 4;
}

export class AnimationBatches {
  private batch: Batch | undefined;

  constructor(
    private readonly sharp: SharpFactory,
    private readonly file: string,
    private readonly frameCount: number,
    /** Every frame of an animation has the canvas size. */
    private readonly width: number,
    private readonly height: number,
  ) {}

  /** A pipeline over frame `index`'s pixels (raw, from the current batch). */
  async pipeline(index: number): Promise<Sharp> {
    const framePixels = this.width * this.height;
    if (!this.batch || index < this.batch.start || index >= this.batch.start + this.batch.count) {
      this.batch = undefined; // let the previous batch go before decoding the next
      const count = Math.min(Math.max(1, Math.floor(BATCH_PIXELS / framePixels)), this.frameCount - index);
      const { data, info } = await this.sharp(this.file, decodeOptions(count * framePixels, { page: index, pages: count }))
        .raw()
        .toBuffer({ resolveWithObject: true });
      this.batch = { start: index, count, data, channels: info.channels };
    }
    const { start, data, channels } = this.batch;
    const frameBytes = framePixels * channels;
    const offset = (index - start) * frameBytes;
    return this.sharp(data.subarray(offset, offset + frameBytes), { raw: { width: this.width, height: this.height, channels } });
  }
}
