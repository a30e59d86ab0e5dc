import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPdfInspector } from '../../../src/engines/pdf/index.js';
import { makeLargePdf, makeTempDir, qpdf } from './fixtures.js';

/**
 * A 200 MB PDF (plain and AES-256 encrypted) and a sparse 3 GB one: the checks must not read them
 * through (qpdf reads the xref and the objects it needs; the engine's own trailer reader a few KB),
 * and must stay fast.
 */

let dir: string;
const inspector = createPdfInspector();

/** Bytes this process has read so far (Linux). */
function bytesRead(): number {
  return Number(/^rchar:\s*(\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))![1]);
}

beforeAll(async () => {
  dir = makeTempDir();
  await makeLargePdf(path.join(dir, 'large.pdf'), 200);
  await makeLargePdf(path.join(dir, 'huge-sparse.pdf'), 3 * 1024, { sparse: true });
  // Encrypted copy: qpdf streams it through once here; the checks below must not.
  await qpdf('--compress-streams=n', '--encrypt', 'user', 'owner', '256', '--', path.join(dir, 'large.pdf'), path.join(dir, 'large-encrypted.pdf'));
}, 180_000);

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('large PDFs', () => {
  it('security() is fast and reads little', async () => {
    for (const name of ['large.pdf', 'large-encrypted.pdf', 'huge-sparse.pdf']) {
      const file = path.join(dir, name);
      expect(fs.statSync(file).size).toBeGreaterThan(200 * 1024 * 1024);
      const before = bytesRead();
      const started = performance.now();
      const info = await inspector.security(file);
      const ms = performance.now() - started;
      const read = bytesRead() - before;
      console.log(`security(${name}, ${(fs.statSync(file).size / 1024 / 1024).toFixed(0)} MB): ${ms.toFixed(0)} ms, ${read} bytes read in-process`);
      expect(info.kind).toBe(name === 'large-encrypted.pdf' ? 'openPassword' : 'none');
      expect(ms).toBeLessThan(3000);
      expect(read).toBeLessThan(4 * 1024 * 1024);
    }
  });

  it('metadata() of a 3 GB file reads only what it needs', async () => {
    const started = performance.now();
    const meta = await inspector.metadata(path.join(dir, 'huge-sparse.pdf'));
    const ms = performance.now() - started;
    console.log(`metadata(huge-sparse.pdf, 3 GB): ${ms.toFixed(0)} ms`);
    expect(meta.information.fileSize).toBeGreaterThan(3 * 1024 ** 3);
    expect(meta.information.pages).toBe(1);
    expect(ms).toBeLessThan(5000);
  });

  it('metadata() of the encrypted copy does not decrypt the big stream', async () => {
    const started = performance.now();
    const meta = await inspector.metadata(path.join(dir, 'large-encrypted.pdf'), { password: 'user' });
    const ms = performance.now() - started;
    console.log(`metadata(large-encrypted.pdf): ${ms.toFixed(0)} ms`);
    expect(meta.information.pages).toBe(1);
    expect(meta.pages.page[0]!.boxes.mediaBox).toEqual({ x: 0, y: 0, width: 595, height: 842 });
    expect(ms).toBeLessThan(5000);
  });
});
