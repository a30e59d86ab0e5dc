import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { ConfigError, type Config } from './config/load.js';
import { KeyStoreError } from './engines/keystore/errors.js';
import { openKeyStore, type KeyStoreContents, type KeyStoreSpec } from './engines/keystore/read.js';
import { createSelfSignedKeyStore } from './engines/keystore/self-signed.js';
import { httpsKeyStoreSpec, isGeneratable } from './engines/keystore/spec.js';

/*
 * The HTTPS listener: a second server in front of the same Fastify application. Fastify owns the
 * HTTP server (app.server); this one gets the very request handler and the HTTP-level listeners
 * Fastify and the plugins attached to it (client errors, Expect, CONNECT), and the same Node
 * settings (header timeout, keep-alive, connection checks), so both listeners answer alike. Closing
 * the application (return503OnClosing) covers both; the server itself is closed next to app.close().
 */

export interface HttpsSetup {
  spec: KeyStoreSpec;
  keyStore: KeyStoreContents;
  /** Whether this start generated the self-signed key store. */
  generated: boolean;
}

export interface HttpsListener {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Names and addresses of a generated certificate: the configured ones, or this machine's name and loopback. */
export function selfSignedHostNames(config: Pick<Config, 'https'>): string[] {
  const configured = config.https.selfSignedHostNames;
  return [...new Set(configured.length > 0 ? configured : [os.hostname(), 'localhost', '127.0.0.1', '::1'])];
}

/**
 * The key store of an enabled HTTPS listener, read and checked before anything else starts. When it
 * does not exist yet and lives in `<dataDir>/keystore`, a self-signed one is generated there (mode
 * 0600) and used from then on. Any other problem stops the start with the setting to fix.
 */
export async function prepareHttps(config: Config, log: FastifyBaseLogger): Promise<HttpsSetup | undefined> {
  if (!config.https.enabled) return undefined;
  const spec = httpsKeyStoreSpec(config);
  let generated = false;
  const files = [spec.file, ...(spec.keyFile ? [spec.keyFile] : [])];
  if (files.every((file) => !existsSync(file)) && files.every((file) => isGeneratable(config.dataDir, file))) {
    const hostNames = selfSignedHostNames(config);
    await createSelfSignedKeyStore(spec, hostNames);
    generated = true;
    log.warn({ file: spec.file, hostNames }, 'https: no key store yet, generated a self-signed certificate; clients must be told to trust it (or configure https.keyStore)');
  }
  let keyStore: KeyStoreContents;
  try {
    keyStore = await openKeyStore(spec);
  } catch (error) {
    if (!(error instanceof KeyStoreError)) throw error;
    const key = error.kind === 'password' ? 'https.keyStore.password' : error.kind === 'noKey' && spec.alias ? 'https.keyStore.alias' : 'https.keyStore.file';
    const origin = config.overrides[key] ? `from ${config.overrides[key]}` : config.configFile ? `in ${config.configFile}` : '';
    throw new ConfigError([{ key, origin, message: error.message }]);
  }
  const validTo = new Date(keyStore.served.validTo);
  if (validTo.getTime() < Date.now()) log.warn({ file: spec.file, validTo }, 'https: the certificate has expired; clients will refuse it');
  return { spec, keyStore, generated };
}

/** How often Node looks for connections past headersTimeout: the same rule as the HTTP listener's (app.ts). */
function connectionsCheckingInterval(headersTimeout: number): number {
  return headersTimeout > 0 ? Math.max(25, Math.min(1000, Math.floor(headersTimeout / 4))) : 30_000;
}

/** HTTP-level events whose listeners the HTTPS server shares with Fastify's server. */
const SHARED_EVENTS = ['request', 'checkExpectation', 'connect', 'clientError'] as const;

/**
 * Opens the HTTPS listener for an application that already listens on HTTP (so that every listener
 * Fastify and its plugins attach to app.server exists). TLS: the key store's key and chain, TLS 1.2
 * or newer (https.minVersion), Node's default cipher list unless https.ciphers names one, the
 * server's cipher order.
 */
export async function listenHttps(app: FastifyInstance, config: Config, setup: HttpsSetup, port: number): Promise<HttpsListener> {
  const plain = app.server;
  const server = createServer({
    ...setup.keyStore.tls,
    minVersion: config.https.minVersion,
    ...(config.https.ciphers ? { ciphers: config.https.ciphers } : {}),
    honorCipherOrder: true,
    // A TLS handshake is paced like the request headers: a client that stalls it loses the connection.
    handshakeTimeout: plain.headersTimeout > 0 ? plain.headersTimeout : 120_000,
    headersTimeout: plain.headersTimeout,
    requestTimeout: plain.requestTimeout,
    keepAliveTimeout: plain.keepAliveTimeout,
    connectionsCheckingInterval: connectionsCheckingInterval(plain.headersTimeout),
    requireHostHeader: false,
  });
  server.timeout = plain.timeout;
  server.maxHeadersCount = plain.maxHeadersCount;
  server.maxRequestsPerSocket = plain.maxRequestsPerSocket;
  for (const event of SHARED_EVENTS) {
    for (const listener of plain.listeners(event)) server.on(event, listener as (...args: unknown[]) => void);
  }
  // 'checkContinue' re-emits 'request' on its own server (http/plugins/expect-continue.ts): here, this one.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => server.emit('request', request, response));
  // A failed handshake (an old protocol, a client that does not trust the certificate) is the client's business.
  server.on('tlsClientError', (error, socket) => {
    app.log.debug({ err: error, remoteAddress: socket.remoteAddress }, 'https: TLS handshake failed');
  });
  const host = config.https.host || config.server.host;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  app.log.info({ host, port: bound, certificate: setup.keyStore.served.subject.replace(/\n/g, ', '), validTo: setup.keyStore.served.validTo }, 'https: listening');
  return {
    server,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
      }),
  };
}

/** A Host header's name part, when it is a plain host name or an IP literal (anything else is not echoed into a Location). */
function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d+)?$/.exec(header.trim());
  return match?.[1];
}

/**
 * https.redirectHttp: the HTTP listener no longer serves the application; every request is answered
 * 308 (method and body kept, RFC 9110 §15.4.9) with the same path on the HTTPS port, and the
 * connection is closed without reading a body the client may still be sending.
 */
export function redirectHttpToHttps(app: FastifyInstance, httpsPort: number, publicHostName = ''): void {
  const plain = app.server;
  const redirect = (request: IncomingMessage, response: ServerResponse) => {
    // A request without a usable Host (HTTP/1.0) goes to the server's public name (server.hostName), else localhost.
    const host = hostName(request.headers.host) ?? (publicHostName || 'localhost');
    const target = request.url?.startsWith('/') ? request.url : '/';
    const location = `https://${host}${httpsPort === 443 ? '' : `:${httpsPort}`}${target}`;
    response.writeHead(308, { location, 'content-length': '0', connection: 'close' });
    response.end();
  };
  plain.removeAllListeners('request');
  plain.on('request', redirect);
}
