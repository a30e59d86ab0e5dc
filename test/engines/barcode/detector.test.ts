import bwipjs from 'bwip-js';
import { afterAll, describe, expect, it } from 'vitest';
import { BarcodeDetector, type DecodeOptions } from '../../../src/engines/barcode/index.js';
import { PoolError } from '../../../src/engines/pool/pool-errors.js';

/**
 * The detector: zxing-wasm in worker threads under the pool supervisor. Inputs are bwip-js PNGs on a
 * white ground (bwip-js's default transparent PNGs are unreadable for every reader).
 */

const detector = new BarcodeDetector({ workers: 1, queueLimit: 0, jobTimeoutMs: 60_000, memoryMb: 256 });
afterAll(() => detector.close());

const options: DecodeOptions = { formats: [], tryHarder: true, pure: false, validateChecksum: false, eanAddOn: 'Ignore', maxSymbols: 10 };

async function png(bcid: string, text: string, scale = 4): Promise<Uint8Array> {
  return new Uint8Array(await bwipjs.toBuffer({ bcid, text, scale, backgroundcolor: 'FFFFFF', padding: 10 }));
}

describe('BarcodeDetector', () => {
  it('reads codes in a worker thread: format, text, raw bytes, corners', async () => {
    const codes = await detector.decode(await png('qrcode', 'Grüße aus dem Thread'), options);
    expect(codes).toHaveLength(1);
    expect(codes[0]).toMatchObject({ format: 'QRCode', text: 'Grüße aus dem Thread', rotation: 0 });
    expect(Buffer.from(codes[0]!.bytes, 'base64').toString('utf8')).toBe('Grüße aus dem Thread');
    expect(codes[0]!.corners).toHaveLength(4);
  });

  it('keeps to the formats asked for', async () => {
    const image = await png('code128', 'ONLY-128', 3);
    expect(await detector.decode(image, { ...options, formats: ['QRCode'] })).toEqual([]);
    expect((await detector.decode(image, { ...options, formats: ['Code128'] })).map((c) => c.text)).toEqual(['ONLY-128']);
  });

  it('refuses work past its bound: with one thread busy and no queue, the next image is refused as busy (429)', async () => {
    const big = await png('qrcode', 'x'.repeat(1500), 12);
    const first = detector.decode(big, options);
    const second = detector.decode(big, options);
    await expect(second).rejects.toBeInstanceOf(PoolError);
    await expect(second).rejects.toMatchObject({ kind: 'busy' });
    expect((await first).map((c) => c.text.length)).toEqual([1500]);
  });

  it('finds nothing in bytes that are no image (the service decodes uploaded images with sharp first), and keeps working', async () => {
    expect(await detector.decode(new Uint8Array(Buffer.from('%PDF-1.7 not an image at all')), options)).toEqual([]);
    expect((await detector.decode(await png('ean8', '9031101'), options)).map((c) => c.text)).toEqual(['90311017']);
  });
});

describe('BarcodeDetector as a supervised pool (engines-wiring)', () => {
  it('reports an idle pool of its size before the first image, answers health without starting threads, then counts jobs and closes', async () => {
    const own = new BarcodeDetector({ workers: 2, queueLimit: 3, jobTimeoutMs: 60_000, memoryMb: 256 });
    try {
      expect(own.stats()).toMatchObject({ engine: 'barcode', size: 2, ready: 0, queueLimit: 3, completed: 0 });
      expect(await own.healthy()).toBe(true);
      expect(own.stats().ready).toBe(0);
      const jobs: string[] = [];
      own.onJob((job) => jobs.push(`${job.engine}:${job.outcome}`));
      expect((await own.decode(await png('qrcode', 'counted'), options)).map((c) => c.text)).toEqual(['counted']);
      expect(own.stats()).toMatchObject({ engine: 'barcode', size: 2, ready: 2, completed: 1 });
      expect(jobs).toEqual(['barcode:ok']);
      expect(await own.healthy()).toBe(true);
    } finally {
      await own.close();
    }
    expect(own.stats().ready).toBe(0);
  });
});
