import type { FastifyInstance } from 'fastify';

/** Node's own test for the expectation it hands to 'checkContinue' (any other goes to 'checkExpectation': 417, see client-errors.ts). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * `Expect: 100-continue` done late: Node would answer "100 Continue" before any hook runs. Instead the
 * request goes through authentication and the route's own checks first, and the interim response is
 * sent only when the body is about to be read. A refused upload is thus refused before its bytes travel.
 */
export function registerExpectContinue(app: FastifyInstance): void {
  app.server.on('checkContinue', (req, res) => {
    app.server.emit('request', req, res);
  });
  // Callback-style: it runs on every request, and an async hook costs a promise each time.
  app.addHook('preParsing', (request, reply, payload, done) => {
    const expect = request.headers.expect;
    if (typeof expect === 'string' && CONTINUE.test(expect) && !reply.raw.headersSent) {
      reply.raw.writeContinue();
    }
    done(null, payload);
  });
}
