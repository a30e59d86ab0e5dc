import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AdminRouteOptions } from './admin-options.js';

/** admin/configuration. (Skeleton: filled in by its helper.) */
export const adminConfigurationRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async () => {};
