import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import { prepareZXingModule, readBarcodes, type ReaderOptions } from 'zxing-wasm/reader';
import type { DecodeJob, DecodeReply, FoundCode } from './protocol.js';

/**
 * The body of one detection worker thread: zxing-wasm (ZXing C++ compiled to WebAssembly) reading
 * the codes of one image per message. Its .wasm is read from the installed package: by default
 * zxing-wasm fetches it from a CDN, even in Node (../shared/reference/dependencies.md), which a
 * server must never do. A thread per worker keeps a decode (hundreds of milliseconds on a busy page)
 * off the event loop.
 */

const require = createRequire(import.meta.url);
const wasm = readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm'));
const ready = prepareZXingModule({ overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer }, fireImmediately: true });

const port = parentPort;
if (!port) throw new Error('zxing-worker runs as a worker thread only');

port.on('message', (job: DecodeJob | { ping: number }) => {
  if ('ping' in job) {
    void ready.then(() => port.postMessage({ pong: job.ping }));
    return;
  }
  void decode(job).then(
    (codes) => port.postMessage({ id: job.id, codes } satisfies DecodeReply),
    (error: unknown) => port.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) } satisfies DecodeReply),
  );
});

async function decode(job: DecodeJob): Promise<FoundCode[]> {
  await ready;
  const options: ReaderOptions = {
    formats: job.formats as ReaderOptions['formats'],
    tryHarder: job.tryHarder,
    tryRotate: job.tryHarder,
    tryInvert: job.tryHarder,
    tryDownscale: true,
    isPure: job.pure,
    validateOptionalChecksum: job.validateChecksum,
    eanAddOnSymbol: job.eanAddOn,
    maxNumberOfSymbols: job.maxSymbols,
    ...(job.characterSet ? { characterSet: job.characterSet as ReaderOptions['characterSet'] } : {}),
  };
  const results = await readBarcodes(job.image, options);
  return results
    .filter((result) => result.isValid)
    .map((result) => ({
      format: result.format,
      text: result.text,
      bytes: Buffer.from(result.bytes).toString('base64'),
      corners: [result.position.topLeft, result.position.topRight, result.position.bottomRight, result.position.bottomLeft].map((p) => [p.x, p.y] as [number, number]),
      rotation: result.rotation,
      ecLevel: result.ecLevel,
    }));
}
