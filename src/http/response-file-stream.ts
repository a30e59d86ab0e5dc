import type { OutgoingMessage } from 'node:http';
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';

/**
 * The bytes `start`…`end` (inclusive) of a file as the body of one HTTP response, read into a few
 * buffers that are used again once the response has handed their bytes on.
 *
 * Why not fs.createReadStream: it allocates a fresh buffer for every read. A 1 GiB download made
 * 4,096 buffers of 256 KiB; V8 answers that much external memory with full collections ("GC in old
 * space requested"), ~40 per GiB at 50–100 ms each over the server's heap — measured with
 * --trace-gc, 6 s of CPU per GiB, more than the transfer itself (issue 12, item 9). Here a download
 * allocates `slots` buffers once.
 *
 * When a buffer may be reused: its bytes have left both this stream's queue and the response's. The
 * response counts what it has not yet handed to the kernel (`writableLength`: its own queue and the
 * socket's, including the write in flight, whose callback comes only when libuv is done with the
 * memory; TLS copies into OpenSSL before that). So everything pushed minus what is still queued is
 * gone from memory we own; headers and other responses on the socket only make that count smaller,
 * never larger. A slot whose bytes are not gone yet is waited for.
 */
export class ResponseFileStream extends Readable {
  private file: FileHandle | undefined;
  private position: number;
  /** Bytes pushed so far. */
  private pushed = 0;
  /** Per slot: the `pushed` count at the end of the chunk it last held (0: free). */
  private readonly slots: Array<{ buffer: Buffer; holdsUntil: number }>;
  private next = 0;

  constructor(
    private readonly path: string,
    start: number,
    private readonly end: number,
    private readonly response: OutgoingMessage,
    options: { chunkBytes?: number; slots?: number } = {},
  ) {
    const chunkBytes = options.chunkBytes ?? 256 * 1024;
    super({ highWaterMark: chunkBytes });
    this.position = start;
    this.slots = Array.from({ length: options.slots ?? 4 }, () => ({ buffer: Buffer.allocUnsafeSlow(chunkBytes), holdsUntil: 0 }));
    // A client that goes away unpipes the response; the file must not stay open until a collection.
    response.once('close', () => {
      if (!this.readableEnded) this.destroy();
    });
  }

  override _construct(callback: (error?: Error | null) => void): void {
    open(this.path, 'r').then(
      (file) => {
        this.file = file;
        callback();
      },
      (error: Error) => callback(error),
    );
  }

  override _read(): void {
    this.readChunk().catch((error: Error) => this.destroy(error));
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const file = this.file;
    this.file = undefined;
    if (!file) return callback(error);
    file.close().then(
      () => callback(error),
      () => callback(error),
    );
  }

  private async readChunk(): Promise<void> {
    const remaining = this.end + 1 - this.position;
    if (remaining <= 0) {
      this.push(null);
      return;
    }
    const slot = this.slots[this.next]!;
    await this.released(slot.holdsUntil);
    if (this.destroyed || !this.file) return;
    const { bytesRead } = await this.file.read(slot.buffer, 0, Math.min(slot.buffer.length, remaining), this.position);
    if (this.destroyed) return;
    // A file that shrinks under a download would otherwise end the body short of its Content-Length.
    if (bytesRead === 0) throw new Error(`${this.path} ended at ${this.position}, before byte ${this.end}`);
    this.position += bytesRead;
    this.pushed += bytesRead;
    slot.holdsUntil = this.pushed;
    this.next = (this.next + 1) % this.slots.length;
    this.push(slot.buffer.subarray(0, bytesRead));
  }

  /** Resolves once the first `until` bytes pushed are out of every queue (see above). */
  private async released(until: number): Promise<void> {
    while (!this.destroyed && this.pushed - this.readableLength - this.response.writableLength < until) {
      // 'drain' comes when a full socket empties; a queue that never filled up empties without one.
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.response.off('drain', done);
          this.response.off('close', done);
          resolve();
        };
        const timer = setTimeout(done, 2);
        this.response.once('drain', done);
        this.response.once('close', done);
      });
      if (this.response.destroyed) this.destroy();
    }
  }
}
