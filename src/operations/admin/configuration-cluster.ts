import { hostname } from 'node:os';
import { rowsSection, same, type FieldRow } from './configuration-fields.js';

/**
 * `Cluster_Settings`: Quire runs as one node, its own coordinator. `mode` is stored (`cluster.mode`)
 * and shown as written, so a client reads back what it wrote; the server runs alone whatever it says
 * (admin/cluster/status shows the node alone, mode `single`) until the cluster issue gives it a meaning.
 * The other members are fixed.
 */
const ROWS: FieldRow[] = [
  { field: 'mode', read: (c) => c.cluster.mode, writes: same('cluster.mode') },
  { field: 'role', read: () => 'coordinator' },
  { field: 'name', read: () => '' },
  { field: 'nodeName', read: () => hostname() },
  { field: 'connectTimeout', read: () => 0 },
  { field: 'secretKey', read: () => '' },
  { field: 'stopOnError', read: () => false },
];

export const clusterSection = rowsSection(ROWS);
