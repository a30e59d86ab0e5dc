import { execFileSync } from 'node:child_process';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { downloadToFile } from '../../helpers/converter.js';
import { uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

/**
 * Issue 11: files handed to toolbox operations inside the call (appearance images of stamps) are as
 * hostile as documents. pdf-lib decodes PNGs in JavaScript on the event loop; a header claiming
 * 65535 × 2147483647 pixels (found by the fuzz campaign) held the server for good.
 */

/** A 2 × 2 RGB PNG whose IHDR says `width` × `height` (with a correct CRC, so only the size lies). */
function pngClaiming(width: number, height: number): Buffer {
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000002000000020802000000fdd49a730000001149444154789c63f8cfc000440c60f23f001bf203fdf3e74bb10000000049454e44ae426082', 'hex');
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)) >>> 0, 29);
  return png;
}

const stamp = (png: Buffer) => [
  {
    annotation: {
      add: { rubberstamp: [{ page: 1, position: { rectangle: { x: 20, y: 20, width: 100, height: 40, metrics: 'pt' } }, normalAppearance: { image: { data: { value: png.toString('base64') } } } }] },
    },
  },
];

describe('hostile payloads of toolbox operations', () => {
  const { server, session } = useTestServer();

  it('refuses appearance PNGs whose header claims a pixel flood, without stalling the server', async () => {
    for (const [width, height] of [
      [65535, 2147483647],
      [2147483647, 1],
      [65536, 100000],
      [5000, 5000],
    ] as const) {
      const doc = await uploadFile(server.rest, session.token, await numberedPdf(1), 'doc.pdf');
      const outcome = await runToolbox(server.rest, session.token, doc.documentId, stamp(pngClaiming(width, height)));
      expect(outcome.status, `${width} × ${height}`).toBe(400);
      expect(outcome.error?.errorCode).toBe(-14);
      expect(outcome.error?.errorMessage).toMatch(/normalAppearance\.image\.data: the image cannot be read/);
      expect((await fetch(`${server.url}/webPDF/health`)).status).toBe(200);
    }
  });

  it('still embeds a real PNG appearance', async () => {
    const doc = await uploadFile(server.rest, session.token, await numberedPdf(1), 'doc.pdf');
    await toolboxOk(server.rest, session.token, doc.documentId, stamp(pngClaiming(2, 2)));
    const file = await downloadToFile(server.rest, session.token, doc.documentId);
    // pdfimages lists the stamp's image (2 × 2 RGB) in the annotation's appearance.
    expect(execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })).toMatch(/^\s*1\s+\d+\s+image\s+2\s+2\s+rgb\s+3\s+8/m);
  });
});
