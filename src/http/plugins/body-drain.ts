import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How often a drained connection's byte count is looked at; the byte bound is exact to what arrives meanwhile. */
const METER_INTERVAL_MS = 20;

/** How much of a body nobody will read is read and discarded after the answer (server.drainLimit / drainTimeout). */
export interface DrainBounds {
  maxBytes: number;
  timeoutMs: number;
}

/**
 * An answer sent before the request body was read (a refused upload: 413, 401, 404, 415...) must
 * reach a client that is still sending. Node ends such a connection right after the answer; the
 * client's bytes then meet a closed socket, the kernel answers them with a reset, and a reset can
 * discard the answer before the client has read it (the client sees EPIPE or ECONNRESET instead
 * of the error). So the rest of the body is read and discarded for a bounded number of bytes and
 * seconds: after a `Connection: close` answer with the write side already closed (the lingering
 * close of RFC 9112 §9.6), and after a keep-alive answer, where Node would otherwise read an
 * unread body to its end however long it is. Past the bounds the connection is cut.
 */
export function registerBodyDrain(app: FastifyInstance, bounds: DrainBounds): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    // In-process calls (inject) have no socket; a complete body needs nothing.
    if (!raw.complete && raw.socket instanceof Socket && !raw.socket.destroyed) armDrain(raw, reply.raw, raw.socket, bounds);
    done(null, payload);
  });
}

/** Type of the per-socket override: Node's server calls `socket.destroySoon()` after a `Connection: close` answer. */
type DestroySoon = { destroySoon?: () => void };

function armDrain(request: IncomingMessage, response: ServerResponse, socket: Socket, bounds: DrainBounds): void {
  let lingering = false;
  const own = socket as unknown as DestroySoon;
  // Node ends a connection whose answer said `Connection: close` with socket.destroySoon() (close
  // once the answer is flushed). For this one socket it becomes: close our side, keep reading.
  own.destroySoon = () => {
    delete own.destroySoon;
    lingering = true;
    drain(request, socket, bounds, true);
  };
  // Node's own 'finish' listener (registered when the response was created) has run by now.
  response.once('finish', () => {
    delete own.destroySoon;
    if (!lingering && !request.complete && !socket.destroyed) drain(request, socket, bounds, false);
  });
  response.once('close', () => {
    delete own.destroySoon;
  });
}

/**
 * Reads and discards the rest of `request`'s body. Past `bounds` the socket is destroyed; when the
 * body ends within them, a lingering connection is closed (once the answer is flushed) and a
 * keep-alive one stays open for the next request.
 */
function drain(request: IncomingMessage, socket: Socket, bounds: DrainBounds, closeWhenDone: boolean): void {
  if (closeWhenDone && socket.writable) socket.end();
  if (request.complete) {
    // The body arrived meanwhile: nothing to wait for.
    if (closeWhenDone) closeWhenFlushed(socket);
    return;
  }
  if (bounds.maxBytes <= 0 || bounds.timeoutMs <= 0) {
    socket.destroy();
    return;
  }
  const start = socket.bytesRead;
  const finish = (cut: boolean): void => {
    clearTimeout(timer);
    clearInterval(meter);
    request.off('end', onEnd);
    socket.off('close', onClose);
    if (cut) socket.destroy();
    else if (closeWhenDone) closeWhenFlushed(socket);
  };
  // Measured on the socket, by polling: Node's parser drops the body of a request it has dumped
  // without any event, and a 'data' listener on the socket at this point stops the flow altogether.
  const meter = setInterval(() => {
    if (socket.bytesRead - start > bounds.maxBytes) finish(true);
    else if (request.complete) finish(false);
  }, METER_INTERVAL_MS);
  const onEnd = (): void => finish(false);
  const onClose = (): void => finish(false);
  const timer = setTimeout(() => finish(true), bounds.timeoutMs);
  // Whoever was reading the body (a multipart parser that gave up) is done with it.
  request.unpipe();
  request.removeAllListeners('data');
  request.once('end', onEnd);
  socket.once('close', onClose);
  request.resume();
  // The socket may still be paused for backpressure from when the body was wanted.
  socket.resume();
}

function closeWhenFlushed(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.writableFinished) {
    socket.destroy();
    return;
  }
  socket.once('finish', () => socket.destroy());
  // A client that reads nothing would keep the answer, and the socket, in the buffers forever.
  setTimeout(() => socket.destroy(), 2000).unref();
}
