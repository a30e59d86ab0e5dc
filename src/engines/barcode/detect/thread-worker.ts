import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type PoolWorker, WorkerDiedError } from '../../pool/worker.js';
import { BarcodeError } from '../errors.js';
import type { DecodeJob, DecodeReply, FoundCode } from './protocol.js';

/**
 * One detection worker: a worker thread running zxing-worker, under the pool supervisor
 * (engines/pool/WorkerPool: bounded queue → 429, a time limit per job that terminates the thread,
 * replacement of dead threads). Its heap is capped (`resourceLimits`): a hostile image that makes
 * the decoder grow kills the thread, not the server.
 */
export class ThreadWorker implements PoolWorker<Omit<DecodeJob, 'id'>, FoundCode[]> {
  readonly ended: Promise<Error>;
  private readonly thread: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (codes: FoundCode[]) => void; reject: (error: unknown) => void }>();
  private readonly pings = new Map<number, () => void>();
  private dead?: Error;

  private constructor(memoryMb: number) {
    const url = workerUrl();
    const resourceLimits = { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.floor(memoryMb / 4)) };
    // From the sources (tests, tsx) the worker is TypeScript: a bootstrap registers tsx's loader in
    // the thread first (Node 20 does not apply `--import` in a worker's execArgv).
    this.thread = url.pathname.endsWith('.ts')
      ? new Worker(`import(${JSON.stringify(tsxApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`, { eval: true, resourceLimits })
      : new Worker(url, { resourceLimits });
    // The server's exit must never wait for an idle decoder.
    this.thread.unref();
    this.ended = new Promise<Error>((resolve) => {
      const end = (reason: Error) => {
        if (this.dead) return;
        this.dead = reason;
        for (const { reject } of this.pending.values()) reject(new WorkerDiedError(`the barcode detection worker ended: ${reason.message}`, { cause: reason }));
        this.pending.clear();
        resolve(reason);
      };
      this.thread.on('error', (error) => end(error));
      this.thread.on('exit', (code) => end(new Error(`exited with code ${code}`)));
    });
    this.thread.on('message', (message: DecodeReply | { pong: number }) => {
      if ('pong' in message) {
        this.pings.get(message.pong)?.();
        this.pings.delete(message.pong);
        return;
      }
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if ('error' in message) waiter.reject(new BarcodeError('unreadable', `the image cannot be read for barcodes: ${message.error}`));
      else waiter.resolve(message.codes);
    });
  }

  /** A started worker: its WebAssembly module compiled and answering. */
  static async start(memoryMb: number): Promise<ThreadWorker> {
    const worker = new ThreadWorker(memoryMb);
    try {
      await Promise.race([worker.ping(), worker.ended.then((reason) => Promise.reject(reason))]);
    } catch (error) {
      worker.kill();
      throw error;
    }
    return worker;
  }

  run(job: Omit<DecodeJob, 'id'>): Promise<FoundCode[]> {
    if (this.dead) return Promise.reject(new WorkerDiedError(`the barcode detection worker ended: ${this.dead.message}`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // A copy moves to the thread: the caller's bytes stay usable (a transferred buffer is detached).
      const image = job.image.slice();
      try {
        this.thread.postMessage({ ...job, image, id } satisfies DecodeJob, [image.buffer as ArrayBuffer]);
      } catch (error) {
        this.pending.delete(id);
        reject(new BarcodeError('unreadable', `the image cannot be handed to the detection worker: ${(error as Error).message}`, { cause: error }));
      }
    });
  }

  ping(): Promise<void> {
    const id = this.nextId++;
    return new Promise<void>((resolve) => {
      this.pings.set(id, resolve);
      this.thread.postMessage({ ping: id });
    });
  }

  async memoryBytes(): Promise<number> {
    return 0;
  }

  kill(): void {
    void this.thread.terminate();
  }

  async close(): Promise<void> {
    await this.thread.terminate();
  }
}

/** tsx's ESM loader API, for the TypeScript worker (development and tests only: dist/ has the compiled worker). */
function tsxApi(): string {
  // The package's require condition names its .cjs twin; the thread imports the ESM entry beside it.
  return pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
}

/** The compiled worker next to this file (dist/), else its TypeScript source (src/, run through tsx). */
function workerUrl(): URL {
  const compiled = new URL('./zxing-worker.js', import.meta.url);
  return existsSync(fileURLToPath(compiled)) ? compiled : new URL('./zxing-worker.ts', import.meta.url);
}
