import type { Config } from '../../config/load.js';

/** Admin_ServerStatus and Cluster_Status. (Skeleton: the status helper fills it in.) */
export interface ServerStatusDeps {
  config: Config;
}

export class ServerStatusService {
  constructor(readonly deps: ServerStatusDeps) {}
}
