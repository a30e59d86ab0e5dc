import pino, { type Logger } from 'pino';

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
