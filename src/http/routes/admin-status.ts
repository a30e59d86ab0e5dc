import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AdminRouteOptions } from './admin-options.js';

/** admin/server/status and admin/cluster/status. (Skeleton: filled in by its helper.) */
export const adminStatusRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async () => {};
