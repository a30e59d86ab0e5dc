import type { FastifyPluginAsync } from 'fastify';
import { healthWord, type ServerStatusService } from '../../operations/admin/server-status.js';

/**
 * `GET {contextPath}/health`, without authentication (container and load-balancer checks): 200 while
 * the server accepts requests. The body says `UP`, or `DEGRADED` when an enabled engine failed its
 * last check (LibreOffice listeners down, a tool missing): the process is alive and serves what does
 * not need that engine, so a supervisor must not restart it for this, but monitoring should alert.
 * The engine states are the administration's checks, run at most every few seconds in the background,
 * so the probe answers at once and probes cannot multiply the checks; `engines` is absent until the
 * first check after start has finished.
 */
export const healthRoutes: FastifyPluginAsync<{ status: ServerStatusService }> = async (app, { status }) => {
  app.get('/health', { config: { auth: 'none' }, schema: { summary: 'Liveness check and engine health', operationId: 'health' } }, async () => {
    const last = status.lastEngineHealth();
    if (!last) return { status: 'UP' };
    return { status: healthWord(last.states), engines: last.states, checkedAt: last.checkedAt.toISOString() };
  });
};
