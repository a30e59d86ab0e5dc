import type { DestinationStream } from 'pino';

/** Daily log files in `<dataDir>/logs` with retention. (Skeleton: the logs helper fills it in.) */
export interface LogFilesOptions {
  dir: string;
  retentionDays: number;
}

export class LogFiles {
  private constructor(readonly options: LogFilesOptions) {}

  static async open(options: LogFilesOptions): Promise<LogFiles> {
    return new LogFiles(options);
  }

  /** The pino destination that appends to the current day's file. */
  destination(): DestinationStream {
    return { write: () => undefined };
  }

  async close(): Promise<void> {}
}
