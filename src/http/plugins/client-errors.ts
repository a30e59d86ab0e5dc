import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { Errors, QuireError, type ErrorDefinition } from '../../core/errors.js';
import { errorAnswer } from './error-answer.js';
import { answerOnSocket } from './raw-answer.js';

/** llhttp's own reasons are clear words ("Duplicate Content-Length", "Invalid character in chunk size"), except these. */
const PARSER_PROBLEMS: Readonly<Record<string, string>> = {
  HPE_PAUSED_H2_UPGRADE: 'HTTP/2 without TLS (prior knowledge) is not served; use HTTP/1.1',
};

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP layer refuses before any route runs (a request
 * it cannot parse, headers past the size limit, headers not complete within server.headersTimeout)
 * gets the webPDF exception structure instead of Fastify's `{error, message, statusCode}`.
 * `responses` tells whether an answer is already being written on the socket: then nothing may be
 * added to the byte stream, the socket is only closed (what Node itself does).
 */
export function clientErrorHandler(log: FastifyBaseLogger, responses: WeakMap<Duplex, ServerResponse>): (error: Error & { code?: string; reason?: string }, socket: Duplex) => void {
  return (error, socket) => {
    // A reset connection is gone: there is no one to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // Our side is already closed (a lingering close after an answer; the client then ended mid-body).
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const response = responses.get(socket);
    if (response && response.headersSent && !response.writableFinished) {
      socket.destroy();
      return;
    }
    const { definition, message } = describe(error);
    log.info({ errorCode: definition.errorCode, reason: message, parserCode: error.code }, 'request refused by the HTTP layer');
    answerOnSocket(socket, definition, message);
  };
}

function describe(error: Error & { code?: string; reason?: string }): { definition: ErrorDefinition; message: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { definition: Errors.REQUEST_TIMEOUT, message: 'The request line and headers did not arrive within server.headersTimeout; the connection is closed.' };
    case 'HPE_HEADER_OVERFLOW':
      return { definition: Errors.HEADERS_TOO_LARGE, message: 'The request line and headers are larger than the server accepts; the connection is closed.' };
    default: {
      const problem = (error.code && PARSER_PROBLEMS[error.code]) || (error.reason ? String(error.reason).replace(/\.$/, '') : 'the request is not valid HTTP/1.1');
      return { definition: Errors.HTTP_MALFORMED, message: `Malformed HTTP request: ${problem}; the connection is closed.` };
    }
  }
}

/**
 * The refusals Node answers on its own, outside Fastify, with empty or foreign bodies: an `Expect`
 * other than 100-continue (417), HTTP/1.1 without Host (400; the server is created with
 * `requireHostHeader: false` so that this hook answers it), and CONNECT (a proxy method no
 * endpoint serves). Also records which response a socket is writing, for `clientErrorHandler`.
 */
export function registerClientErrors(app: FastifyInstance, responses: WeakMap<Duplex, ServerResponse>): void {
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    responses.set(request.socket, response);
  });

  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    app.log.info({ errorCode: Errors.EXPECTATION_FAILED.errorCode, expect: request.headers.expect }, 'request refused by the HTTP layer');
    answer(response, Errors.EXPECTATION_FAILED, 'The Expect header names an expectation the server does not support; only 100-continue is.');
  });

  app.server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    answerOnSocket(socket, Errors.ROUTE_NOT_FOUND, 'This server is not a proxy: CONNECT is not served.');
  });

  app.addHook('onRequest', (request, _reply, done) => {
    const raw = request.raw;
    // HTTP/1.1 requires Host (RFC 9112 §3.2); HTTP/1.0 and in-process calls (inject sets one) may omit it.
    if (raw.httpVersion === '1.1' && raw.headers.host === undefined) {
      done(new QuireError('HTTP_MALFORMED', 'Malformed HTTP request: an HTTP/1.1 request must carry a Host header.'));
      return;
    }
    done();
  });
}

/** An exception body through Node's response object, for events that never reach Fastify. */
function answer(response: ServerResponse, definition: ErrorDefinition, message: string): void {
  const { contentType, body } = errorAnswer(definition, message, '');
  const text = JSON.stringify(body);
  response.writeHead(definition.status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    connection: 'close',
  });
  response.end(text);
}
