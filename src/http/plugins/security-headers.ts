import type { FastifyInstance } from 'fastify';

/**
 * `X-Content-Type-Options: nosniff` on every answer. Downloads carry whatever a client uploaded
 * (an "image" that is really HTML, a log line with markup): a browser must render them as the
 * declared type or save them, never sniff them into a page of this origin. JSON answers get it too,
 * since they echo client input (file names, error messages).
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });
}
