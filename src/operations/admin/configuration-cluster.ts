import { hostname } from 'node:os';
import type { Config } from '../../config/load.js';
import { nodeIdOf } from './cluster-status.js';
import { rowsSection, same, type FieldRow } from './configuration-fields.js';

/**
 * `Cluster_Settings`. `mode` is `cluster.mode` (a restart applies it; it reads back at once). A single
 * server is its own coordinator, named after the host. In cluster mode the node is a member named by
 * `cluster.node.id` (no node is the configuration's coordinator: Redis is, and admin/cluster/status
 * shows which member sweeps lost ones); `connectTimeout` is the Redis command timeout in milliseconds.
 * Node settings come from each node's environment, so they are shown, not written. The secret key is
 * never shown.
 */
const clustered = (c: Config) => c.cluster.mode === 'cluster';
const ROWS: FieldRow[] = [
  { field: 'mode', read: (c) => c.cluster.mode, writes: same('cluster.mode') },
  { field: 'role', read: (c) => (clustered(c) ? 'member' : 'coordinator') },
  { field: 'name', read: (c) => (clustered(c) ? c.cluster.redis.keyPrefix : '') },
  { field: 'nodeName', read: (c) => (clustered(c) ? nodeIdOf(c) : hostname()) },
  { field: 'connectTimeout', read: (c) => (clustered(c) ? c.cluster.redis.commandTimeoutMs : 0) },
  { field: 'secretKey', read: () => '' },
  { field: 'stopOnError', read: () => false },
];

export const clusterSection = rowsSection(ROWS);
