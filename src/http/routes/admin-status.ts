import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AdminServerStatus, ClusterStatus } from '../schemas/admin-status.js';
import { ref } from '../schemas/shared.js';
import type { AdminRouteOptions } from './admin-options.js';

const tags = ['administration'];

/** admin/server/status (server, runtime, engines' health per web service) and admin/cluster/status. */
export const adminStatusRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async (app, { admin }) => {
  app.get(
    '/admin/server/status',
    {
      config: { auth: 'admin' },
      schema: {
        tags,
        operationId: 'readServerStatus',
        summary: 'Server, runtime and web service status (the engines are health-checked, at most every few seconds)',
        response: { 200: ref(AdminServerStatus) },
      },
    },
    async () => admin.status.serverStatus(),
  );

  app.get(
    '/admin/cluster/status',
    {
      config: { auth: 'admin' },
      schema: { tags, operationId: 'readClusterStatus', summary: 'Status of the cluster and its members (this server alone in cluster mode single)', response: { 200: ref(ClusterStatus) } },
    },
    async (request) => admin.status.clusterStatus(localAddress(request)),
  );
};

/** host:port at which the caller reached this server (IPv6 in brackets). */
function localAddress(request: FastifyRequest): string {
  const { localAddress: host = '', localPort = 0 } = request.socket;
  return host.includes(':') ? `[${host}]:${localPort}` : `${host}:${localPort}`;
}
