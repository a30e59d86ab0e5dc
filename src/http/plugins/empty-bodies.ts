import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, RouteOptions, preParsingHookHandler } from 'fastify';

/** A Content-Length of zero, in any spelling the HTTP parser lets through ("0", "00"). */
const ZERO_LENGTH = /^0+$/;

/**
 * A route that takes no body ignores the Content-Type of an empty one. HTTP clients label bodiless
 * calls with a type of their choosing: axios sends `Content-Type: application/x-www-form-urlencoded`
 * with `Content-Length: 0` on a POST without data (the official TypeScript client's
 * `admin/session/{id}/close`), others `text/plain` or `application/json`. Fastify would look for a
 * parser of that type before the route runs and answer 415 to a body that does not exist.
 *
 * A route takes a body when its schema has one (`schema.body`) or it parses one by hand
 * (`config.documentedBody`: the multipart uploads). Those keep judging the type even of an empty
 * body: an empty urlencoded POST documents/ is a 415, which the clients expect. A non-empty body
 * (or a chunked one, whose length is not known before it is read) sent to a route without one is
 * still judged by its type. Register before the routes: it acts through an onRoute hook.
 */
export function registerEmptyBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    // GET and HEAD are never parsed (and GET info is the hottest route: no hook where none is needed).
    if ([route.method].flat().every((method) => method === 'GET' || method === 'HEAD') || takesBody(route)) return;
    route.preParsing = [...[route.preParsing ?? []].flat(), ignoreTypeOfEmptyBody];
  });
}

function takesBody(route: RouteOptions): boolean {
  return route.schema?.body !== undefined || route.config?.documentedBody !== undefined;
}

/** Callback-style: an async hook would cost a promise on every call of these routes. */
const ignoreTypeOfEmptyBody: preParsingHookHandler = (request, _reply, payload, done) => {
  const headers = request.raw.headers;
  // request.headers overlays the raw ones (Fastify's documented setter), which stay as the client sent them for the log.
  if (headers['content-type'] !== undefined && declaresNoBody(headers)) request.headers = { 'content-type': undefined };
  done(null, payload);
};

/** No Transfer-Encoding, and a Content-Length of 0 or none: the request carries no body (RFC 9112 §6.3). */
function declaresNoBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return false;
  const length = headers['content-length'];
  return length === undefined || ZERO_LENGTH.test(length);
}
