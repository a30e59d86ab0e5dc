import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, get, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseFileStream } from '../../src/http/response-file-stream.js';

// The stream reuses its few buffers once the response has handed their bytes on: a reuse too early
// would send bytes of a later chunk in place of an earlier one. The file is larger than the loopback
// socket's kernel buffers, so that with a slow client writes stay in flight in libuv; with chunks
// smaller than the socket's high-water mark and two slots, reusing without waiting garbles the body
// (checked: this test fails with the wait taken out). The hash of what arrives is the judge.
describe('ResponseFileStream', () => {
  let dir: string;
  let file: string;
  let content: Buffer;
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'quire-rfs-'));
    file = path.join(dir, 'data.bin');
    content = randomBytes(24 * 1024 * 1024 + 123);
    await writeFile(file, content);
    server = createServer((request, response) => {
      const url = new URL(request.url!, 'http://x');
      const start = Number(url.searchParams.get('start') ?? 0);
      const end = Number(url.searchParams.get('end') ?? content.length - 1);
      response.setHeader('content-length', end - start + 1);
      const body = new ResponseFileStream(url.searchParams.get('file') ?? file, start, end, response, { chunkBytes: 4 * 1024, slots: 2 });
      body.on('error', () => response.destroy());
      body.pipe(response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  function download(query: string, options: { slow?: boolean; abortAfter?: number } = {}): Promise<{ bytes: Buffer; aborted: boolean }> {
    return new Promise((resolve, reject) => {
      get(`${origin}/?${query}`, (response) => {
        const chunks: Buffer[] = [];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          received += chunk.length;
          if (options.abortAfter !== undefined && received >= options.abortAfter) {
            response.destroy();
            resolve({ bytes: Buffer.concat(chunks), aborted: true });
            return;
          }
          if (options.slow) {
            response.pause();
            setTimeout(() => response.resume(), 1);
          }
        });
        response.on('end', () => resolve({ bytes: Buffer.concat(chunks), aborted: false }));
        response.on('error', reject);
      }).on('error', reject);
    });
  }

  const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

  it('sends the whole file byte for byte to a slow client', async () => {
    const { bytes } = await download('', { slow: true });
    expect(bytes.length).toBe(content.length);
    expect(sha(bytes)).toBe(sha(content));
  });

  it('sends byte ranges that do not fall on chunk boundaries', async () => {
    for (const [start, end] of [
      [0, 0],
      [1, 16 * 1024],
      [70_001, 3_333_333],
      [content.length - 5, content.length - 1],
    ] as const) {
      const { bytes } = await download(`start=${start}&end=${end}`);
      expect(sha(bytes)).toBe(sha(content.subarray(start, end + 1)));
    }
  });

  it('closes the file when the client goes away mid-way', async () => {
    const openOnFile = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === file;
        } catch {
          return false;
        }
      }).length;
    for (let i = 0; i < 5; i++) await download('', { slow: true, abortAfter: 200_000 });
    const deadline = Date.now() + 5_000;
    while (openOnFile() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(openOnFile()).toBe(0);
  });

  it('fails the body (no short success) when the file is shorter than announced', async () => {
    const short = path.join(dir, 'short.bin');
    await writeFile(short, content.subarray(0, 1000));
    await expect(download(`file=${encodeURIComponent(short)}&start=0&end=4999`)).rejects.toThrow();
  });
});
