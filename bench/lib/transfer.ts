import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { pipeline } from 'node:stream/promises';

const MiB = 1024 * 1024;

export interface SourceFile {
  path: string;
  size: number;
  sha256: string;
  /** True when a file kept by an earlier run (--keep) was reused. */
  reused: boolean;
}

/**
 * The test file: one random MiB repeated, each copy stamped with its index in the first 8 bytes so
 * that no two MiB are equal. Reused when an earlier run kept it (its hash is kept next to it).
 */
export async function ensureSourceFile(filePath: string, sizeMiB: number): Promise<SourceFile> {
  const size = sizeMiB * MiB;
  const hashFile = `${filePath}.sha256`;
  try {
    const [info, hash] = await Promise.all([stat(filePath), readFile(hashFile, 'utf8')]);
    if (info.size === size && /^[0-9a-f]{64}$/.test(hash.trim())) return { path: filePath, size, sha256: hash.trim(), reused: true };
  } catch {
    // not there yet
  }
  const block = randomBytes(MiB);
  // Start with text that file-type cannot mistake for a container format.
  block.write('QUIRE-BENCH random data\n', 8, 'latin1');
  const hash = createHash('sha256');
  const handle = await open(filePath, 'w');
  try {
    for (let i = 0; i < sizeMiB; i++) {
      block.writeBigUInt64LE(BigInt(i), 0);
      hash.update(block);
      await handle.write(block, 0, MiB);
    }
  } finally {
    await handle.close();
  }
  const sha256 = hash.digest('hex');
  await writeFile(hashFile, `${sha256}\n`);
  return { path: filePath, size, sha256, reused: false };
}

export async function sha256Of(filePath: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(filePath, { highWaterMark: 4 * MiB }), hash);
  return hash.digest('hex');
}

/** Flushes dirty pages so that every timed run starts from the same writeback state (the page cache is not dropped). */
export function syncDisks(): void {
  spawnSync('sync', { stdio: 'ignore' });
}

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** `cp source target`, timed. */
export async function timedCopy(source: string, target: string): Promise<number> {
  const start = process.hrtime.bigint();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('cp', [source, target], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`cp failed (${code}): ${stderr}`))));
  });
  return seconds(start);
}

export interface UploadResult {
  seconds: number;
  documentId: string;
  /** Bytes on the wire in the request body (multipart envelope included). */
  bodyBytes: number;
}

/**
 * POST {rest}/documents as multipart/form-data with one part `filedata`, streamed from disk with a
 * declared Content-Length. Timed from the start of the request to the arrival of the 303.
 */
export async function timedUpload(rest: string, token: string, file: string, size: number, fileName = 'bench.bin'): Promise<UploadResult> {
  const boundary = `----quire-bench-${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const bodyBytes = head.length + size + tail.length;
  return new Promise<UploadResult>((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    const start = process.hrtime.bigint();
    const req = httpRequest(`${rest}/documents`, {
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': bodyBytes,
      },
    });
    req.once('response', (res) => {
      const elapsed = seconds(start);
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', fail);
      res.once('end', () => {
        if (settled) return;
        const location = res.headers.location ?? '';
        const match = /\/documents\/([^/]+)\/info$/.exec(location);
        if (res.statusCode !== 303 || !match) {
          fail(new Error(`upload answered ${res.statusCode} (location ${location}): ${Buffer.concat(chunks).toString().slice(0, 500)}`));
          return;
        }
        settled = true;
        resolve({ seconds: elapsed, documentId: match[1]!, bodyBytes });
      });
    });
    req.once('error', fail);
    async function* body(): AsyncGenerator<Buffer> {
      yield head;
      yield* createReadStream(file, { highWaterMark: MiB }) as AsyncIterable<Buffer>;
      yield tail;
    }
    pipeline(body, req).catch(fail);
  });
}

export interface DownloadResult {
  seconds: number;
  bytes: number;
  contentLength: number;
}

/**
 * GET {rest}/documents/{id} streamed into `target`; timed from the request until the file is closed.
 * Each received chunk is written with writeSync: on this client that is markedly faster than an
 * fs.WriteStream, whose per-chunk thread-pool round trips would make the client the bottleneck.
 */
export async function timedDownload(rest: string, token: string, documentId: string, target: string): Promise<DownloadResult> {
  const start = process.hrtime.bigint();
  const contentLength = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(`${rest}/documents/${documentId}`, { agent: false, headers: { authorization: `Bearer ${token}` } });
    req.once('error', reject);
    req.once('response', (res) => {
      if (res.statusCode !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('end', () => reject(new Error(`download answered ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 500)}`)));
        return;
      }
      const declared = Number(res.headers['content-length']);
      let fd: number | undefined = openSync(target, 'w');
      const finish = (error?: Error) => {
        if (fd !== undefined) closeSync(fd);
        fd = undefined;
        if (error) reject(error);
        else resolve(declared);
      };
      res.on('data', (chunk: Buffer) => {
        try {
          for (let done = 0; fd !== undefined && done < chunk.length; ) done += writeSync(fd, chunk, done);
        } catch (error) {
          res.destroy();
          finish(error as Error);
        }
      });
      res.once('error', finish);
      res.once('end', () => finish());
    });
    req.end();
  });
  const elapsed = seconds(start);
  const { size } = await stat(target);
  return { seconds: elapsed, bytes: size, contentLength };
}

export async function removeFile(filePath: string): Promise<void> {
  await rm(filePath, { force: true });
}

/** GET {rest}/documents/{id} into a sink that only counts bytes; timed from the request until the last byte. */
export async function timedDownloadToSink(rest: string, token: string, documentId: string): Promise<{ seconds: number; bytes: number }> {
  const start = process.hrtime.bigint();
  const bytes = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(`${rest}/documents/${documentId}`, { agent: false, headers: { authorization: `Bearer ${token}` } });
    req.once('error', reject);
    req.once('response', (res) => {
      let count = 0;
      res.on('data', (chunk: Buffer) => (count += chunk.length));
      res.once('error', reject);
      res.once('end', () => (res.statusCode === 200 ? resolve(count) : reject(new Error(`download answered ${res.statusCode}`))));
    });
    req.end();
  });
  return { seconds: seconds(start), bytes };
}
