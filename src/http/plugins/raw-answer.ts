import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorDefinition } from '../../core/errors.js';
import { errorAnswer } from './error-answer.js';

/** How long an answer written straight to a socket may take to leave before the socket is destroyed anyway. */
const FLUSH_GRACE_MS = 2000;

/**
 * Answers on a bare socket with the webPDF exception structure (error-answer.ts) and closes it. For failures Node's
 * HTTP layer detects before (or outside) Fastify: a request that cannot be parsed, headers that
 * are too large or too slow, a body that arrives too slowly. Fastify's own answer to these is its
 * `{error, message, statusCode}` body, which the clients cannot read.
 *
 * `end()` sends the answer followed by FIN; the socket is destroyed once that is flushed, or after a
 * short grace when the client does not read, so a hostile peer cannot keep it open.
 */
export function answerOnSocket(socket: Duplex, definition: ErrorDefinition, message: string): void {
  if (socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { contentType, body } = errorAnswer(definition, message, '');
  const text = JSON.stringify(body);
  const head = [
    `HTTP/1.1 ${definition.status} ${STATUS_CODES[definition.status] ?? 'Error'}`,
    `Content-Type: ${contentType}`,
    `Content-Length: ${Buffer.byteLength(text)}`,
    'X-Content-Type-Options: nosniff',
    'Cache-Control: no-store',
    'Connection: close',
  ].join('\r\n');
  const grace = setTimeout(() => socket.destroy(), FLUSH_GRACE_MS);
  grace.unref();
  socket.once('close', () => clearTimeout(grace));
  socket.end(`${head}\r\n\r\n${text}`, () => socket.destroy());
}
