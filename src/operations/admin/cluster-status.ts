import os from 'node:os';

/** `Webservice_Result` (reference §11.1): code 0 is success. */
export interface WebserviceResult {
  code: number;
  description: string;
  exitCode: number;
  hideException: boolean;
}

export type ClusterNodeState = 'unknown' | 'init' | 'connect' | 'wait' | 'boot' | 'locked' | 'up' | 'down';

export interface ClusterStatus {
  error: WebserviceResult;
  id: string;
  isDemoMode: boolean;
  localAddress: string;
  maximumAllowedNodes: number;
  namespace: string;
  nodes: Array<{ error: WebserviceResult; isCoordinator: boolean; localAddress: string; name: string; state: ClusterNodeState }>;
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
