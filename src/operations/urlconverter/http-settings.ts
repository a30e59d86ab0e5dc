import { QuireError } from '../../core/errors.js';

/**
 * `settings.http` (reference §10.1 `Operation_HttpSettings`) for a URL conversion: what is honoured
 * and what is refused. `Operation_Settings` is an open object in the schema (it is shared by every
 * web service), so its `http` member is checked here.
 *
 * - `followRedirect` (default true): redirects of the page are followed, each hop judged by the policy.
 * - `headers.header[]`: sent with every request to the page's own origin (never to third parties).
 * - `userAgent`: the browser's User-Agent for the page and its resources.
 * - `timeout.response` (ms, default 60000): bounds the whole load, below `urlconverter.timeout`.
 * - `timeout.connect` other than its default, and any `ssl` ciphers or protocols: refused with -104
 *   (Chromium's network stack takes neither per page).
 */
export interface HttpSettings {
  followRedirects: boolean;
  headers: Record<string, string>;
  userAgent: string | undefined;
  /** From `timeout.response`; undefined when absent. */
  responseTimeoutMs: number | undefined;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the browser owns (framing, routing, connection management): a client may not set them. */
const RESERVED = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-authorization', 'proxy-connection']);
const MAX_HEADERS = 50;
const MAX_HEADER_BYTES = 8 * 1024;

export function httpSettings(settings: unknown): HttpSettings {
  const result: HttpSettings = { followRedirects: true, headers: {}, userAgent: undefined, responseTimeoutMs: undefined };
  if (settings === undefined || settings === null) return result;
  const http = object(settings, 'settings').http;
  if (http === undefined || http === null) return result;
  const h = object(http, 'settings.http');
  if (h.followRedirect !== undefined) result.followRedirects = boolean(h.followRedirect, 'settings.http.followRedirect');
  if (h.userAgent !== undefined) {
    const agent = string(h.userAgent, 'settings.http.userAgent');
    if (/[\r\n\0]/.test(agent) || agent.length > 1024) throw parameter('settings.http.userAgent', 'a single line of at most 1024 characters');
    if (agent.trim() !== '') result.userAgent = agent.trim();
  }
  if (h.headers !== undefined && h.headers !== null) result.headers = headers(object(h.headers, 'settings.http.headers').header);
  if (h.timeout !== undefined && h.timeout !== null) {
    const timeout = object(h.timeout, 'settings.http.timeout');
    if (timeout.connect !== undefined && integer(timeout.connect, 'settings.http.timeout.connect') !== DEFAULT_CONNECT_TIMEOUT_MS) {
      throw new QuireError(
        'OPTION_UNSUPPORTED',
        'settings.http.timeout.connect is not supported by this server: the page load as a whole is bounded by settings.http.timeout.response and urlconverter.timeout.',
      );
    }
    if (timeout.response !== undefined) {
      const response = integer(timeout.response, 'settings.http.timeout.response');
      if (response <= 0) throw parameter('settings.http.timeout.response', 'a positive number of milliseconds');
      result.responseTimeoutMs = response;
    }
  }
  if (h.ssl !== undefined && h.ssl !== null) {
    const ssl = object(h.ssl, 'settings.http.ssl');
    for (const [member, list] of [
      ['ciphers', 'cipher'],
      ['protocols', 'protocol'],
    ] as const) {
      const value = ssl[member];
      if (value === undefined || value === null) continue;
      const entries = object(value, `settings.http.ssl.${member}`)[list];
      if (Array.isArray(entries) && entries.length > 0) {
        throw new QuireError('OPTION_UNSUPPORTED', `settings.http.ssl.${member} is not supported by this server: the browser negotiates TLS 1.2 or 1.3 with its own cipher list.`);
      }
    }
  }
  return result;
}

function headers(list: unknown): Record<string, string> {
  if (list === undefined || list === null) return {};
  if (!Array.isArray(list)) throw parameter('settings.http.headers.header', 'an array of {name, value}');
  if (list.length > MAX_HEADERS) throw parameter('settings.http.headers.header', `at most ${MAX_HEADERS} headers`);
  const out: Record<string, string> = {};
  let bytes = 0;
  list.forEach((entry, index) => {
    const field = `settings.http.headers.header[${index}]`;
    const e = object(entry, field);
    const name = e.name === undefined ? '' : string(e.name, `${field}.name`).trim();
    const value = e.value === undefined ? '' : string(e.value, `${field}.value`);
    if (name === '') return;
    if (!TOKEN.test(name)) throw parameter(`${field}.name`, "a header name (letters, digits and !#$%&'*+.^_`|~-)");
    if (RESERVED.has(name.toLowerCase())) throw parameter(`${field}.name`, `a header the browser does not own ("${name}" is)`);
    if (/[\r\n\0]/.test(value)) throw parameter(`${field}.value`, 'a single line');
    bytes += name.length + value.length;
    if (bytes > MAX_HEADER_BYTES) throw parameter('settings.http.headers.header', `at most ${MAX_HEADER_BYTES} bytes of headers`);
    out[name.toLowerCase()] = value;
  });
  return out;
}

function object(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw parameter(field, 'an object');
  return value as Record<string, unknown>;
}

function string(value: unknown, field: string): string {
  if (typeof value !== 'string') throw parameter(field, 'a string');
  return value;
}

function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw parameter(field, 'true or false');
  return value;
}

function integer(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw parameter(field, 'an integer');
  return value;
}

function parameter(field: string, expected: string): QuireError {
  return new QuireError('PARAMETER', `Invalid parameter ${field}: must be ${expected}.`);
}
