import { hostname } from 'node:os';
import { readRows, rowChanges, type ConfigurationSection, type FieldRow } from './configuration-fields.js';

/**
 * `Cluster_Settings`: Quire runs as one node, its own coordinator. Nothing here can be changed yet;
 * asking for `mode: cluster` is refused with a problem rather than stored and ignored.
 */
const ROWS: FieldRow[] = [
  { field: 'mode', read: () => 'single' },
  { field: 'role', read: () => 'coordinator' },
  { field: 'name', read: () => '' },
  { field: 'nodeName', read: () => hostname() },
  { field: 'connectTimeout', read: () => 0 },
  { field: 'secretKey', read: () => '' },
  { field: 'stopOnError', read: () => false },
];

export const clusterSection: ConfigurationSection = {
  read({ shown }) {
    return { configuration: readRows(ROWS, shown) };
  },
  async changes(posted, { shown }) {
    return rowChanges(ROWS, posted, shown);
  },
};
