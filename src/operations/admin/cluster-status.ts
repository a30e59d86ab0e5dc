import os from 'node:os';
import type { Config } from '../../config/load.js';
import type { PoolStats } from '../../core/pool-stats.js';
import type { ExecutableState } from './server-status.js';

/** `Webservice_Result` (reference §11.1): code 0 is success. */
export interface WebserviceResult {
  code: number;
  description: string;
  exitCode: number;
  hideException: boolean;
}

export type ClusterNodeState = 'unknown' | 'init' | 'connect' | 'wait' | 'boot' | 'locked' | 'up' | 'down';

/** What a node does in a cluster (`cluster.node.role`): everything, only the HTTP API, or only engines and queue work. */
export type NodeRole = 'all' | 'api' | 'worker';

/** A pool's state as a member reports it in its heartbeat (the engine supervisor's figures, core/pool-stats.ts). */
export type MemberPool = Pick<PoolStats, 'engine' | 'size' | 'ready' | 'busy' | 'starting' | 'queued' | 'queueLimit'>;

/**
 * A member's heartbeat record in the cluster's shared store (src/cluster/membership.ts writes it every
 * `cluster.node.heartbeatInterval`). Times are epoch milliseconds of the member's own clock; whether a
 * member is alive is decided by the store's expiry of its heartbeat, never by comparing clocks.
 */
export interface MemberRecord {
  id: string;
  role: NodeRole;
  /** Where the member's HTTP API is reached (cluster.node.address); a worker's private health listener. */
  address: string;
  version: string;
  startedAt: number;
  heartbeatAt: number;
  loadAverage: number;
  cpuCount: number;
  /** UP, DEGRADED (an enabled engine failed its last check) or STARTING (no check finished yet): the health endpoint's word. */
  health: 'UP' | 'DEGRADED' | 'STARTING';
  engines: Readonly<Record<string, ExecutableState>>;
  pools: MemberPool[];
}

/** A member as the status shows it: alive (heartbeat not expired) or lost, since when its loss was noticed. */
export interface MemberView extends MemberRecord {
  lost: boolean;
  /** When a sweep found the member lost and released its leases; absent while alive or not swept yet. */
  lostAt?: number;
  coordinator: boolean;
}

/** Quire's addition to `Cluster_NodeStatus`: what the member reported in its last heartbeat. */
export interface ClusterMemberDetails {
  role: NodeRole;
  version: string;
  startedAt: number;
  heartbeatAt: number;
  lostAt?: number;
  loadAverage: number;
  cpuCount: number;
  health: MemberRecord['health'];
  engines: Readonly<Record<string, ExecutableState>>;
  pools: MemberPool[];
}

export interface ClusterNodeStatus {
  error: WebserviceResult;
  isCoordinator: boolean;
  localAddress: string;
  name: string;
  state: ClusterNodeState;
  member?: ClusterMemberDetails;
}

export interface ClusterStatus {
  error: WebserviceResult;
  id: string;
  isDemoMode: boolean;
  localAddress: string;
  maximumAllowedNodes: number;
  namespace: string;
  nodes: ClusterNodeStatus[];
  settings: {
    configuration: { source: 'coordinator' | 'node' };
    connectTimeout: number;
    mode: 'single' | 'cluster';
    name: string;
    nodeName: string;
    role: 'coordinator' | 'member';
    secretKey: string;
    stopOnError: boolean;
  };
}

/** `cluster.node.id`, or the host and port (the process id while the port is chosen by the system): unique on a machine, stable across restarts. */
export function nodeIdOf(config: Pick<Config, 'cluster' | 'server'>): string {
  return config.cluster.node.id || `${os.hostname()}:${config.server.port || process.pid}`;
}

const NO_ERROR: WebserviceResult = { code: 0, description: '', exitCode: 0, hideException: false };

/**
 * `Cluster_Status` of a server that runs alone (cluster mode `single`): this node is the only
 * member and its own coordinator, and it is `up` (it answers this call). The node is named after
 * the host; `localAddress` is where the caller reached it.
 */
export function singleNodeClusterStatus(localAddress: string): ClusterStatus {
  const name = os.hostname();
  return {
    error: NO_ERROR,
    id: name,
    isDemoMode: false,
    localAddress,
    maximumAllowedNodes: 1,
    namespace: '',
    nodes: [{ error: NO_ERROR, isCoordinator: true, localAddress, name, state: 'up' }],
    settings: {
      configuration: { source: 'node' },
      connectTimeout: 0,
      mode: 'single',
      name: '',
      nodeName: name,
      role: 'coordinator',
      // Never the key itself: a single node has none, and the status is no place for secrets.
      secretKey: '',
      stopOnError: false,
    },
  };
}

/**
 * `Cluster_Status` in cluster mode: every member the shared store knows, alive ones `up`, lost ones
 * (heartbeat expired) `down` with the reason in their `error`. There is no licence limit:
 * `maximumAllowedNodes` is 0 (webPDF's "not limited"). The coordinator is the member that has run
 * longest; it sweeps lost members (src/cluster/membership.ts). The configuration comes from the
 * shared store (`source: coordinator`).
 */
export function memberClusterStatus(members: readonly MemberView[], self: { id: string; clusterName: string }, localAddress: string): ClusterStatus {
  const me = members.find((m) => m.id === self.id);
  return {
    error: NO_ERROR,
    id: self.clusterName,
    isDemoMode: false,
    localAddress,
    maximumAllowedNodes: 0,
    namespace: '',
    nodes: members.map((member) => ({
      error: member.lost ? lostError(member) : NO_ERROR,
      isCoordinator: member.coordinator,
      localAddress: member.address,
      name: member.id,
      state: member.lost ? 'down' : 'up',
      member: {
        role: member.role,
        version: member.version,
        startedAt: member.startedAt,
        heartbeatAt: member.heartbeatAt,
        ...(member.lostAt === undefined ? {} : { lostAt: member.lostAt }),
        loadAverage: member.loadAverage,
        cpuCount: member.cpuCount,
        health: member.health,
        engines: member.engines,
        pools: member.pools,
      },
    })),
    settings: {
      configuration: { source: 'coordinator' },
      connectTimeout: 0,
      mode: 'cluster',
      name: self.clusterName,
      nodeName: self.id,
      role: me?.coordinator ? 'coordinator' : 'member',
      secretKey: '',
      stopOnError: false,
    },
  };
}

function lostError(member: MemberView): WebserviceResult {
  const last = new Date(member.heartbeatAt).toISOString();
  // Not an error of this call: a description for the operator, code 0 stays "the status was read".
  return { code: 0, description: `lost: no heartbeat since ${last}${member.lostAt === undefined ? '' : '; its leases were released'}`, exitCode: 0, hideException: false };
}
