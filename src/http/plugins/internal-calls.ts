import { timingSafeEqual } from 'node:crypto';
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { QuireError } from '../../core/errors.js';
import type { SessionService } from '../../sessions/session-service.js';

/** Header of replayed calls: `<sessionId>:<secret>`. */
export const INTERNAL_SESSION_HEADER = 'x-quire-internal-session';

export interface InternalCallsOptions {
  /** Random per process; injected calls carry it, network calls cannot know it. */
  secret: string;
  sessions: SessionService;
}

/**
 * Lets replayed job calls act as their session without a token: the work queue runs an accepted
 * asynchronous call later through Fastify's inject, when the caller's token may have been refreshed
 * or may have expired. Such a call carries `x-quire-internal-session: <sessionId>:<secret>`; it is
 * accepted only when it did not come over a socket (inject) and carries this process's secret. The
 * header from the network is refused (401), so it can never be used to guess its way into a session.
 * The auth hook skips its token check for session-level routes when `request.session` is set here;
 * administrative routes still demand an administrator's token.
 */
export function registerInternalCalls(app: FastifyInstance, options: InternalCallsOptions): void {
  const secret = Buffer.from(options.secret, 'utf8');
  // Callback-style: every request passes here and almost none carries the header; an async hook
  // would cost each of them a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers[INTERNAL_SESSION_HEADER];
    if (header === undefined) {
      done();
      return;
    }
    const refused = () => new QuireError('TOKEN_INVALID', `The ${INTERNAL_SESSION_HEADER} header is reserved for the server's own replayed calls.`);
    const colon = typeof header === 'string' ? header.indexOf(':') : -1;
    if (typeof header !== 'string' || !injected(request) || colon <= 0 || !sameSecret(Buffer.from(header.slice(colon + 1), 'utf8'), secret)) {
      done(refused());
      return;
    }
    options.sessions.byId(header.slice(0, colon)).then((session) => {
      request.session = session;
      done();
    }, done);
  });
}

/** An injected request has light-my-request's mock socket; a request from the network has a real one. */
function injected(request: FastifyRequest): boolean {
  return !(request.raw.socket instanceof Socket);
}

/** Constant-time comparison (the lengths are not secret: the secret's length is fixed). */
function sameSecret(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}
