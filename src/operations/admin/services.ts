import type { Config } from '../../config/load.js';
import type { LogFiles } from '../../observability/log-files.js';
import type { Metrics } from '../../observability/metrics.js';
import type { OperationEvents } from '../../observability/operation-events.js';
import type { ConfigurationService } from './configuration.js';
import type { DataStore } from './datastore.js';
import type { ServerStatusService } from './server-status.js';
import type { StatisticsService } from './statistics.js';

/** Everything the administration routes work with; server.ts builds it, app.ts hands it to each admin route group. */
export interface AdminServices {
  config: Config;
  events: OperationEvents;
  metrics: Metrics;
  logFiles: LogFiles;
  statistics: StatisticsService;
  datastore: DataStore;
  configuration: ConfigurationService;
  status: ServerStatusService;
  /** Asks for a graceful in-process restart; it starts after the current response has been sent. */
  restart(): void;
}
