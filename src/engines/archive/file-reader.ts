import fs from 'node:fs';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import yauzl from 'yauzl';

/**
 * A yauzl RandomAccessReader over a file with a read-ahead window for small reads. yauzl reads the
 * central directory as two small reads per entry (46 bytes, then name/extra/comment); through its
 * own fd reader each is a separate read() round trip on the thread pool, which makes listing
 * 10,000 entries take most of a second. Here consecutive small reads are served from one 64 KiB
 * window. Member data is streamed by positioned reads on the same descriptor (an fs.ReadStream would
 * close the shared descriptor when destroyed, whatever autoClose says); yauzl's reference counting
 * closes it once the archive and its last stream are done.
 */
const WINDOW = 64 * 1024;
const STREAM_CHUNK = 256 * 1024;

type ReadCallback = (error: Error | null, bytesRead?: number) => void;

export class BufferedFileReader extends yauzl.RandomAccessReader {
  /** yauzl's reference counting (missing from its type declarations): the last unref closes the file. */
  declare ref: () => void;
  declare unref: () => void;
  private window: Buffer = Buffer.alloc(0);
  private windowStart = 0;
  private closed = false;

  private constructor(
    private readonly fd: number,
    readonly size: number,
  ) {
    super();
  }

  static async open(path: string): Promise<BufferedFileReader> {
    const fd = await promisify(fs.open)(path, 'r');
    try {
      const info = await promisify(fs.fstat)(fd);
      return new BufferedFileReader(fd, info.size);
    } catch (error) {
      fs.close(fd, () => undefined);
      throw error;
    }
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: ReadCallback): void {
    const start = position - this.windowStart;
    if (start >= 0 && start + length <= this.window.length) {
      this.window.copy(buffer, offset, start, start + length);
      setImmediate(() => callback(null, length));
      return;
    }
    if (length > WINDOW / 2) {
      readFully(this.fd, buffer, offset, length, position, callback);
      return;
    }
    const windowLength = Math.max(length, Math.min(WINDOW, this.size - position));
    const window = Buffer.allocUnsafe(windowLength);
    readFully(this.fd, window, 0, windowLength, position, (error) => {
      if (error) {
        callback(error);
        return;
      }
      this.window = window;
      this.windowStart = position;
      window.copy(buffer, offset, 0, length);
      callback(null, length);
    });
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return new RangeStream(this.fd, start, end);
  }

  override close(callback: (error: Error | null) => void): void {
    if (this.closed) {
      setImmediate(() => callback(null));
      return;
    }
    this.closed = true;
    this.window = Buffer.alloc(0);
    fs.close(this.fd, (error) => callback(error ?? null));
  }
}

/** read() until `length` bytes are in, or fails with "unexpected EOF" (yauzl's wording) at the end of the file. */
function readFully(fd: number, buffer: Buffer, offset: number, length: number, position: number, callback: ReadCallback, done = 0): void {
  fs.read(fd, buffer, offset + done, length - done, position + done, (error, bytesRead) => {
    if (error) {
      callback(error);
      return;
    }
    if (bytesRead === 0) {
      callback(new Error('unexpected EOF'));
      return;
    }
    if (done + bytesRead < length) {
      readFully(fd, buffer, offset, length, position, callback, done + bytesRead);
      return;
    }
    callback(null, length);
  });
}

/** Bytes [start, end) of the file by positioned reads; never closes the descriptor. */
class RangeStream extends Readable {
  private position: number;

  constructor(
    private readonly fd: number,
    start: number,
    private readonly end: number,
  ) {
    super({ highWaterMark: STREAM_CHUNK });
    this.position = start;
  }

  override _read(size: number): void {
    const length = Math.min(size, STREAM_CHUNK, this.end - this.position);
    if (length <= 0) {
      this.push(null);
      return;
    }
    const buffer = Buffer.allocUnsafe(length);
    fs.read(this.fd, buffer, 0, length, this.position, (error, bytesRead) => {
      if (this.destroyed) return;
      if (error) {
        this.destroy(error);
        return;
      }
      if (bytesRead === 0) {
        this.destroy(new Error('unexpected EOF'));
        return;
      }
      this.position += bytesRead;
      this.push(buffer.subarray(0, bytesRead));
    });
  }
}
