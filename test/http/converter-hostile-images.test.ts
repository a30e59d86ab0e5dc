import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { convert } from '../helpers/converter.js';
import { info, uploadFile } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { gifFlood, jpegFlood, pngFlood, tiffFlood, tiffIfdLoop } from '../helpers/hostile-images.js';

/**
 * Images that lie about themselves (issue 11, defect 6): pixel floods are unreadable images (-106),
 * not parameter errors, and messages name the problem once, without the decoding library's internals.
 */
describe('converter: hostile images', () => {
  const { server, session } = useTestServer();

  async function refusal(name: string, bytes: Buffer) {
    const uploaded = await uploadFile(server.rest, session.token, bytes, name);
    const outcome = await convert(server.rest, session.token, uploaded.documentId);
    const after = await info(server.rest, session.token, uploaded.documentId);
    return { outcome, unchanged: after.fileSize === bytes.length && after.mimeType === uploaded.mimeType };
  }

  const floods: [string, () => Promise<Buffer>][] = [
    ['100000x100000.png', async () => pngFlood(100_000, 100_000)],
    ['100000x100000.tif', async () => tiffFlood(100_000, 100_000)],
    ['65535x65535.gif', async () => gifFlood(65_535, 65_535)],
    [
      '65535x65535.jpg',
      async () =>
        jpegFlood(
          await sharp({ create: { width: 8, height: 8, channels: 3, background: 'red' } })
            .jpeg()
            .toBuffer(),
          65_535,
          65_535,
        ),
    ],
  ];

  for (const [name, make] of floods) {
    it(`refuses the pixel flood ${name} as an unreadable image (-106), naming the size once`, async () => {
      const { outcome, unchanged } = await refusal(name, await make());
      expect(outcome).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -106 } });
      const message = outcome.error!.errorMessage;
      expect(message).toMatch(/too large|pixel|dimension/i);
      expect(message.match(/cannot be decoded/gi)?.length ?? 0).toBeLessThanOrEqual(1);
      expect(message).not.toMatch(/vips|Vips|sharp/);
      expect(unchanged).toBe(true);
    });
  }

  it('converts or refuses a TIFF whose IFD chain loops, with one clean message and no library names', async () => {
    const { outcome, unchanged } = await refusal('loop.tif', tiffIfdLoop());
    if (outcome.status === 303) return; // libtiff stops at the loop: the pages before it are a valid document
    expect(outcome).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -106 } });
    const message = outcome.error!.errorMessage;
    expect(message.match(/cannot be decoded/gi)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(message).not.toMatch(/vips|Vips|sharp|tiff2vips/);
    expect(unchanged).toBe(true);
  });
});
