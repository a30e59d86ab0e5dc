import pino, { type Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { LogFiles } from './log-files.js';

/**
 * The server's structured logger. Secrets never reach a line: credentials and tokens are redacted
 * wherever they could appear, and the request log writes paths without query strings.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'quire' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'password',
          '*.password',
          'token',
          '*.token',
          'refreshToken',
          '*.refreshToken',
          'authorization',
          '*.authorization',
          'headers.authorization',
          'req.headers.authorization',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/**
 * The server's logger for a configuration: the daily files in `<dataDir>/logs` always, stdout too
 * when `log.console` is on. (Skeleton: the logs helper completes the file side.)
 */
export function createServerLogger(config: Config, files: LogFiles): Logger {
  const streams: pino.StreamEntry[] = [{ stream: files.destination(), level: 'trace' }];
  if (config.log.console) streams.push({ stream: process.stdout, level: 'trace' });
  return createLogger(config.log.level, pino.multistream(streams));
}
