import type { FastifyInstance } from 'fastify';

/**
 * One log line per request, after the response: method, path (never the query, which may carry a
 * token), status and duration. Request bodies and headers are never logged.
 */
export function registerRequestLog(app: FastifyInstance): void {
  // Callback-style: an async hook costs a promise on every request.
  app.addHook('onResponse', (request, reply, done) => {
    // The entry is built only when it will be written (the default level in production is warn).
    if (!infoEnabled(request.log)) return done();
    request.log.info(
      {
        method: request.method,
        path: request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    );
    done();
  });
}

/** pino's loggers answer isLevelEnabled; another logger is assumed to want the entry. */
function infoEnabled(log: object): boolean {
  const pino = log as { isLevelEnabled?: (level: string) => boolean };
  return pino.isLevelEnabled?.('info') ?? true;
}
