import pino, { type Logger } from 'pino';
import type { Config } from '../config/load.js';
import { isSecretKey, REDACTED } from '../config/redact.js';
import type { LogFiles } from './log-files.js';

/**
 * Paths pino redacts after its serializers have run: the places where request data with
 * credentials ends up when a request, its headers or a reply are logged. No wildcard-first paths
 * (`*.password`): with one, pino runs a redaction — a copy and a JSON serialization — on every key of
 * every line (a third of all the bytes GET info allocated); `scrub` below finds secret-looking keys
 * at any depth of a logged object instead.
 */
const REDACT_PATHS = [
  'password',
  'token',
  'refreshToken',
  'accessToken',
  'authorization',
  'cookie',
  'secret',
  'clientSecret',
  'privateKey',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/** Nesting followed when looking for secrets in a logged object; deeper values are left as they are. */
const SCRUB_DEPTH = 8;

/**
 * The server's structured logger. Secrets never reach a line: any value under a secret-looking key
 * (password, secret, token, key, ... — the rule of the redacted configuration) is replaced however
 * deep it sits in a logged plain object (configurations, option objects), pino's redaction covers
 * serialized requests and headers, and the request log writes paths without query strings.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'quire' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { log: (object) => scrub(object, SCRUB_DEPTH) as Record<string, unknown> },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
    },
    destination,
  );
}

/**
 * The server's logger for a configuration: the daily files in `<dataDir>/logs` always, stdout too
 * when `log.console` is on. Each stream takes every line; the logger's level decides what is written.
 */
export function createServerLogger(config: Config, files: LogFiles): Logger {
  const streams: pino.StreamEntry[] = [{ stream: files.destination(), level: 'trace' }];
  if (config.log.console) streams.push({ stream: process.stdout, level: 'trace' });
  return createLogger(config.log.level, pino.multistream(streams));
}

/**
 * The value with secrets under secret-looking keys redacted. Copy on write: objects without a
 * secret are returned as they are, so the usual small log objects cost one walk and no copy.
 * Only plain objects and arrays are walked (errors and other instances go to their serializers).
 */
function scrub(value: unknown, depth: number): unknown {
  if (depth === 0 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const clean = scrub(item, depth - 1);
      if (clean !== item) (copy ??= [...value])[index] = clean;
    });
    return copy ?? value;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const clean = isSecretKey(key) && item !== undefined && item !== null ? REDACTED : scrub(item, depth - 1);
    if (clean !== item) (copy ??= { ...value })[key] = clean;
  }
  return copy ?? value;
}
