import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import type { AdminRouteOptions } from './admin-options.js';

/**
 * The Prometheus metrics at `{restBase}/` (the interface's getMetrics) and `{contextPath}/metrics`
 * (where the Java client's fetchMetrics and most scrapers look). Registered without prefix, so the
 * paths are full ones. An administrator's session token or Basic credentials open them; with
 * `metrics.public` they need none (for a scraper inside a trusted network).
 */
export const metricsRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async (app, { admin, restBase, contextPath }) => {
  const auth = admin.config.metrics.public ? 'none' : 'admin-or-basic';
  const schema = {
    tags: ['administration'],
    summary: 'Metrics in the Prometheus text exposition format 0.0.4',
    produces: [admin.metrics.contentType],
    response: { 200: Type.String({ description: 'Prometheus text exposition (see docs/administration.md for the metric names)' }) },
  };
  const scrape = async (_request: unknown, reply: FastifyReply) => reply.type(admin.metrics.contentType).send(await admin.metrics.scrape());

  app.get(`${restBase}/`, { config: { auth }, schema: { ...schema, operationId: 'getMetrics' } }, scrape);
  app.get(`${contextPath}/metrics`, { config: { auth }, schema: { ...schema, operationId: 'getMetricsOutsideRest' } }, scrape);
};
