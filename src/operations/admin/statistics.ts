import type { OperationEvents } from '../../observability/operation-events.js';

/** Realtime and persistent statistics per web service. (Skeleton: the statistics helper fills it in.) */
export interface StatisticsDeps {
  events: OperationEvents;
  dataDir: string;
}

export class Statistics {
  private constructor(readonly deps: StatisticsDeps) {}

  static async open(deps: StatisticsDeps): Promise<Statistics> {
    return new Statistics(deps);
  }

  async close(): Promise<void> {}
}
