import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AdminRouteOptions } from './admin-options.js';

/** admin/server/log (GET with Range, HEAD) and admin/server/support. (Skeleton: filled in by its helper.) */
export const adminLogRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async () => {};
