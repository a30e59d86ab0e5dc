import type { FastifyPluginAsync } from 'fastify';

/** `GET {contextPath}/health`: 200 while the server accepts requests, without authentication (container health checks). */
export const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get('/health', { config: { auth: 'none' }, schema: { summary: 'Liveness check', operationId: 'health' } }, async () => ({
    status: 'UP',
  }));
};
