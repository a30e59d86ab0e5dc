import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AdminRouteOptions } from './admin-options.js';

const tags = ['administration'];

/**
 * `GET admin/server/restart`: answers 200 at once; the graceful restart (in-flight calls finish, the
 * configuration is read again, engines and listeners start anew, sessions and documents stay) begins
 * once that answer has been sent.
 */
export const adminServerRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async (app, { admin }) => {
  app.get(
    '/admin/server/restart',
    {
      config: { auth: 'admin' },
      schema: { tags, operationId: 'restartServer', summary: 'Restart the server gracefully (configuration reloaded; sessions and documents kept)' },
    },
    async (request, reply) => {
      request.log.warn({ by: request.session?.userName }, 'restart requested');
      reply.raw.once('finish', () => admin.restart());
      return reply.code(200).send();
    },
  );
};
