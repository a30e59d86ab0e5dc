import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AdminRouteOptions } from './admin-options.js';

/** admin/datastore. (Skeleton: filled in by its helper.) */
export const adminDatastoreRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async () => {};
