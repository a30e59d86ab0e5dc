/**
 * HTTP over a bare TCP socket (node:net), for what no HTTP client will send: malformed requests,
 * headers dribbled byte by byte, bodies that keep coming after the answer. The answer is parsed
 * here, independently of the server's HTTP stack.
 */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: Buffer;
  /** The whole answer (status line, headers and Content-Length bytes of body) arrived. */
  complete: boolean;
}

export interface RawExchange {
  /** The first answer on the connection, when one arrived in full or in part. */
  answer?: RawAnswer;
  /** A socket error (EPIPE, ECONNRESET...) and whether it came before the answer was complete. */
  error?: NodeJS.ErrnoException;
  errorBeforeAnswer: boolean;
  /** Request bytes the socket accepted. */
  bytesWritten: number;
  /** Whether every request byte the writer had was handed over. */
  sentAll: boolean;
  /** Every byte the server sent on the connection. */
  raw: Buffer;
}

/** Parses the first HTTP response in `data`, or undefined while its head is incomplete. */
export function parseAnswer(data: Buffer): RawAnswer | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = data.subarray(end + 4, end + 4 + length);
  return { status, headers, body, complete: body.length === length };
}

/**
 * Sends `head` and then the chunks `body` yields (respecting backpressure), reading at the same
 * time. With `stopOnAnswer` (default) the writer stops once a complete answer arrived and the
 * socket is closed, as a streaming client does; otherwise it keeps sending until it runs out or the
 * connection fails. Resolves when the connection is closed; never rejects. `limitMs` is only a
 * safety net against a hung test.
 */
export function exchange(port: number, head: string | Buffer, body: Iterable<Buffer> | AsyncIterable<Buffer> = [], options: { stopOnAnswer?: boolean; limitMs?: number } = {}): Promise<RawExchange> {
  const stopOnAnswer = options.stopOnAnswer ?? true;
  return new Promise((resolve) => {
    const result: RawExchange = { errorBeforeAnswer: false, bytesWritten: 0, sentAll: false, raw: Buffer.alloc(0) };
    const received: Buffer[] = [];
    // Half-open: a server's FIN after its answer must not stop the writer, as it would not stop a
    // client that is busy sending (the server's reading on is what is under test).
    const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let writing = true;
    const safety = setTimeout(() => socket.destroy(), options.limitMs ?? 30_000);
    const answered = () => result.answer?.complete === true;
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      result.answer = parseAnswer(Buffer.concat(received));
      if (answered() && stopOnAnswer) socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      result.error ??= error;
      if (!answered()) result.errorBeforeAnswer = true;
    });
    socket.on('end', () => {
      if (!writing) socket.end();
    });
    socket.on('close', () => {
      clearTimeout(safety);
      result.raw = Buffer.concat(received);
      result.answer = parseAnswer(result.raw);
      resolve(result);
    });
    socket.once('connect', () => {
      void (async () => {
        try {
          await writeAll();
        } finally {
          writing = false;
          if (socket.readableEnded) socket.end();
        }
      })();
      async function writeAll(): Promise<void> {
        const write = (data: string | Buffer) =>
          new Promise<boolean>((done) => {
            if (socket.destroyed || socket.writableEnded) return done(false);
            const flushed = socket.write(data);
            result.bytesWritten += Buffer.byteLength(data);
            if (flushed) return done(true);
            const onDrain = () => {
              socket.off('close', onClose);
              done(true);
            };
            const onClose = () => {
              socket.off('drain', onDrain);
              done(false);
            };
            socket.once('drain', onDrain);
            socket.once('close', onClose);
          });
        if (!(await write(head))) return;
        for await (const chunk of body) {
          if (stopOnAnswer && answered()) return;
          if (!(await write(chunk))) return;
        }
        result.sentAll = true;
      }
    });
  });
}

/** `total` bytes of filler in chunks of `chunkSize`. */
export function* filler(total: number, chunkSize = 64 * 1024): Generator<Buffer> {
  const chunk = Buffer.alloc(chunkSize, 0x41);
  for (let sent = 0; sent < total; sent += chunkSize) yield total - sent >= chunkSize ? chunk : chunk.subarray(0, total - sent);
}

/** Yields `text` `step` bytes at a time, waiting `everyMs` between pieces: a client on a very slow line. */
export async function* dribble(text: string | Buffer, step: number, everyMs: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, 'latin1');
  for (let offset = 0; offset < bytes.length; offset += step) {
    if (offset > 0) await new Promise((resolve) => setTimeout(resolve, everyMs));
    yield bytes.subarray(offset, offset + step);
  }
}

/** Chunked transfer coding of one piece. */
export function chunk(data: Buffer | string): Buffer {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data);
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
}
