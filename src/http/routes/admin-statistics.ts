import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AdminRouteOptions } from './admin-options.js';

/** admin/statistic/{dataSource}/{aggregation}. (Skeleton: filled in by its helper.) */
export const adminStatisticRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async () => {};
