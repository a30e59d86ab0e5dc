import type { FastifyInstance } from 'fastify';
import { holdCancellationScope, withCancellation } from '../../core/cancellation.js';
import { QuireError } from '../../core/errors.js';
import { isWebservice } from '../../core/webservices.js';
import { INTERNAL_SESSION_HEADER } from './internal-calls.js';

/**
 * A synchronous web-service call (converter, toolbox, ...) whose client disconnects before the
 * answer is cancelled: its engine processes are killed and its pool jobs withdrawn instead of
 * running to their time limits for nobody. The stored document stays as it was (a toolbox chain
 * commits only at its end; the failure unwinds it like any other).
 *
 * The call's handler runs inside an ambient cancellation scope (core/cancellation.ts) that
 * `engines/process/run` and the engine pools read, so no operation needs a `signal` parameter. A
 * preHandler registered after the asynchronous-calls hook: a call accepted as a job (202) never
 * gets here, and a replayed job (in-process, no socket) is not scoped.
 */
export function registerClientCancellation(app: FastifyInstance, options: { restBase: string }): void {
  const { restBase } = options;
  app.addHook('preHandler', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (route === undefined || !isWebserviceCall(route, request.method, restBase) || request.headers[INTERNAL_SESSION_HEADER] !== undefined) {
      done();
      return;
    }
    const controller = new AbortController();
    const response = reply.raw;
    const cancel = (): void => {
      // 'close' also follows a normal answer; only a close before the answer was written cancels.
      if (response.writableFinished) return;
      controller.abort(new QuireError('CALL_CANCELLED', 'The client closed the connection before the answer; the call was cancelled and nothing was changed.'));
    };
    // The handler goes on after `done` returns: the scope stays open until the response ends. After
    // an early close the document transaction the handler is in holds its own scope (with the
    // call's signal, now aborted), so its engines still see the cancellation.
    const release = holdCancellationScope();
    response.once('finish', release);
    response.once('close', release);
    if (response.destroyed) {
      cancel();
      release();
    } else response.once('close', cancel);
    // The rest of the hook chain and the handler run synchronously from `done`, so inside the scope.
    withCancellation(controller.signal, done);
  });
}

function isWebserviceCall(route: string, method: string, restBase: string): boolean {
  if (method !== 'POST' || !route.startsWith(`${restBase}/`)) return false;
  const [name, operation] = route.slice(restBase.length + 1).split('/');
  return name !== undefined && operation !== undefined && isWebservice(name);
}
