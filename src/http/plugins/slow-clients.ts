import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../core/errors.js';
import { answerOnSocket } from './raw-answer.js';

/** server.requestTimeout, minUploadRate and uploadRateWindow, resolved (0 = that check is off). */
export interface BodyPace {
  requestTimeoutMs: number;
  /** Bytes per second. */
  minUploadRate: number;
  uploadRateWindowMs: number;
}

interface Watch {
  request: FastifyRequest;
  reply: FastifyReply;
  socket: Socket;
  /** A multipart upload: exempt from requestTimeout (a 2 GB upload takes as long as it takes), paced by the rate alone. */
  upload: boolean;
  startedAt: number;
  lastTick: number;
  /** Milliseconds of the current window during which the server was ready to read (the socket not paused). */
  waitedMs: number;
  bytesAtWindowStart: number;
}

/**
 * Cuts off clients that send a request body too slowly (a slow-loris on the body): a body must
 * average at least `minUploadRate` bytes per second over every `uploadRateWindow` during which the
 * server was waiting for it, and a body that is not a multipart upload must be complete within
 * `requestTimeout`. Headers are Node's job (`headersTimeout`, see app.ts).
 *
 * Node's own `requestTimeout` is not used: it limits the whole request, body included, which would
 * cut a legitimate multi-gigabyte upload on a slow line. Time the server itself spends not reading
 * (authentication before `100 Continue`, a full disk write queue that pauses the socket) is never
 * counted against the client: only windows in which the socket was reading count.
 *
 * A client that is too slow gets 408 (-86) when no answer has started, and the connection is closed;
 * the handler reading the body then sees it aborted and cleans up as for any aborted upload.
 */
export function registerSlowClientGuard(app: FastifyInstance, pace: BodyPace): void {
  const rateOn = pace.minUploadRate > 0 && pace.uploadRateWindowMs > 0;
  if (!rateOn && pace.requestTimeoutMs <= 0) return;
  const watches = new Set<Watch>();
  const tickMs = Math.max(25, Math.min(1000, Math.floor(Math.min(...[pace.uploadRateWindowMs, pace.requestTimeoutMs].filter((v) => v > 0)) / 4)));
  let ticker: NodeJS.Timeout | undefined;

  const check = (): void => {
    const now = Date.now();
    for (const watch of watches) {
      const { request, socket } = watch;
      if (request.raw.complete || socket.destroyed || watch.reply.raw.writableEnded) {
        watches.delete(watch);
        continue;
      }
      const elapsed = now - watch.lastTick;
      watch.lastTick = now;
      if (!watch.upload && pace.requestTimeoutMs > 0 && now - watch.startedAt > pace.requestTimeoutMs) {
        cutOff(watch, `The request body did not arrive within server.requestTimeout (${pace.requestTimeoutMs / 1000} s); the connection is closed.`);
        continue;
      }
      if (!rateOn) continue;
      // A paused socket means the server is not reading (its buffers are full): not the client's fault.
      if (!socket.isPaused()) watch.waitedMs += elapsed;
      if (watch.waitedMs < pace.uploadRateWindowMs) continue;
      const received = socket.bytesRead - watch.bytesAtWindowStart;
      const required = (pace.minUploadRate * watch.waitedMs) / 1000;
      if (received < required) {
        const rate = Math.round((received * 1000) / watch.waitedMs);
        cutOff(watch, `The request body arrives at ${rate} bytes/s, below server.minUploadRate (${pace.minUploadRate} bytes/s); the connection is closed.`);
        continue;
      }
      watch.waitedMs = 0;
      watch.bytesAtWindowStart = socket.bytesRead;
    }
    if (watches.size === 0 && ticker) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };

  const cutOff = (watch: Watch, message: string): void => {
    watches.delete(watch);
    watch.request.log.info({ errorCode: Errors.REQUEST_TIMEOUT.errorCode, reason: message }, 'request refused');
    // An answer already on its way cannot be replaced; the connection is cut either way.
    if (watch.reply.raw.headersSent) watch.socket.destroy();
    else answerOnSocket(watch.socket, Errors.REQUEST_TIMEOUT, message);
  };

  // preParsing: the route is about to read the body (and `100 Continue` is sent then), so the
  // client's time starts now; authentication and the route's checks before it are the server's.
  app.addHook('preParsing', (request, reply, payload, done) => {
    const raw = request.raw;
    const socket = raw.socket;
    if (!raw.complete && socket instanceof Socket && hasBody(request)) {
      const now = Date.now();
      const watch: Watch = {
        request,
        reply,
        socket,
        upload: /^multipart\//i.test(request.headers['content-type'] ?? ''),
        startedAt: now,
        lastTick: now,
        waitedMs: 0,
        bytesAtWindowStart: socket.bytesRead,
      };
      watches.add(watch);
      // The answer ends the watch: from then on a leftover body is body-drain.ts's business.
      reply.raw.once('finish', () => watches.delete(watch));
      ticker ??= setInterval(check, tickMs);
      ticker.unref();
    }
    done(null, payload);
  });
}

function hasBody(request: FastifyRequest): boolean {
  const headers = request.headers;
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}
