import type { FastifyInstance } from 'fastify';
import type { OperationEvents } from '../../observability/operation-events.js';

// The list lives in core so that operations (the statistics) can use it without importing http.
export { WEBSERVICES, type WebserviceName } from '../../core/webservices.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The webPDF errorCode the error handler answered with, for observers. */
    quireErrorCode?: number;
  }
  interface FastifyContextConfig {
    /** The web service a route's calls count under (a web-service module's `statistics` name). */
    statistics?: string;
  }
}

/**
 * Emits one OperationEvent per answered request under the REST base: the web service is the route's
 * `statistics` name (web-service modules set it), else the first path segment after the base (`converter`, `toolbox`, `documents`, `admin`, ...). Metrics count
 * every request; the statistics keep the web-service operations (`WEBSERVICES`).
 */
export function registerOperationObserver(app: FastifyInstance, options: { restBase: string; events: OperationEvents }): void {
  const { restBase, events } = options;
  // Callback-style: an async hook costs a promise on every request.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (route === undefined || !route.startsWith(`${restBase}/`)) {
      done();
      return;
    }
    const webservice = request.routeOptions.config.statistics ?? (route.slice(restBase.length + 1).split('/')[0] || 'root');
    const elapsed = reply.elapsedTime;
    events.emit({
      webservice,
      route,
      method: request.method,
      statusCode: reply.statusCode,
      ok: reply.statusCode < 400,
      ...(request.quireErrorCode === undefined ? {} : { errorCode: request.quireErrorCode }),
      startedAt: Date.now() - elapsed,
      durationMs: elapsed,
      bytesIn: Number(request.headers['content-length'] ?? 0) || 0,
      bytesOut: Number(reply.getHeader('content-length') ?? 0) || 0,
      ...(request.session ? { sessionId: request.session.id } : {}),
      ...(request.acceptedAsJob ? { accepted: true } : {}),
    });
    done();
  });
}
