import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AdminRouteOptions } from './admin-options.js';

/** Prometheus metrics at {restBase}/ and {contextPath}/metrics (registered without prefix: full paths). (Skeleton: filled in by its helper.) */
export const metricsRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async () => {};
