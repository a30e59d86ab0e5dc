import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AddressPolicy, type HostResolver } from '../../../src/engines/net/address-policy.js';
import { postWebhook, WebhookError } from '../../../src/engines/net/webhook-client.js';
import { rejectionOf } from '../../helpers/rejection.js';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A receiver on 127.0.0.1 whose answer each test sets. */
let receiver: http.Server;
let port: number;
let received: Received[] = [];
let answer: (request: http.IncomingMessage, response: http.ServerResponse) => void;

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() });
      answer(request, response);
    });
  });
  port = await listen(receiver);
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
beforeEach(() => {
  received = [];
  answer = (_request, response) => response.writeHead(204).end();
});

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

async function closedPort(): Promise<number> {
  const server = http.createServer();
  const free = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return free;
}

/** `receiver.test` does not exist in any DNS: only the policy's resolver knows it. Counts the lookups. */
function countingResolver(answers: string[][]): { resolve: HostResolver; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (name) => {
      calls.push(name);
      return answers[Math.min(calls.length - 1, answers.length - 1)]!;
    },
  };
}

const open = new AddressPolicy({ allowInternal: true });

const failure = (promise: Promise<unknown>): Promise<WebhookError> => rejectionOf(promise, WebhookError);

describe('postWebhook', () => {
  it('POSTs the body and headers, and reports status and duration', async () => {
    const result = await postWebhook({
      url: `http://127.0.0.1:${port}/hooks/quire?token=abc`,
      headers: { 'content-type': 'application/json', 'x-test': 'yes' },
      body: '{"a":1}',
      timeoutMs: 5000,
      policy: open,
    });
    expect(result.status).toBe(204);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', url: '/hooks/quire?token=abc', body: '{"a":1}' });
    expect(received[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'x-test': 'yes', 'content-length': '7' });
  });

  it('connects only to the address the policy judged: one lookup, the Host header keeps the name (DNS rebinding)', async () => {
    // The first answer is the checked one; a second lookup would get 127.0.0.2, where nothing listens.
    const dns = countingResolver([['127.0.0.1'], ['127.0.0.2']]);
    const policy = new AddressPolicy({ allowHosts: ['127.0.0.0/8'] }, dns.resolve);
    const result = await postWebhook({ url: `http://receiver.test:${port}/in`, headers: {}, body: 'x', timeoutMs: 5000, policy });
    expect(result.status).toBe(204);
    expect(dns.calls).toEqual(['receiver.test']);
    expect(received[0]!.headers.host).toBe(`receiver.test:${port}`);
  });

  it('tries the next checked address when the first refuses the connection', async () => {
    const dns = countingResolver([['127.0.0.2', '127.0.0.1']]);
    // The receiver listens on 127.0.0.1 only; 127.0.0.2 refuses.
    const policy = new AddressPolicy({ allowInternal: true }, dns.resolve);
    const result = await postWebhook({ url: `http://receiver.test:${port}/`, headers: {}, body: 'x', timeoutMs: 5000, policy });
    expect(result.status).toBe(204);
    expect(dns.calls).toHaveLength(1);
  });

  it('refuses an internal address the policy does not allow, without connecting', async () => {
    const error = await failure(postWebhook({ url: `http://127.0.0.1:${port}/`, headers: {}, body: 'x', timeoutMs: 5000, policy: new AddressPolicy() }));
    expect(error.kind).toBe('refused');
    expect(error.message).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(received).toHaveLength(0);
  });

  it('refuses other schemes and invalid URLs', async () => {
    expect((await failure(postWebhook({ url: 'ftp://127.0.0.1/', headers: {}, body: 'x', timeoutMs: 1000, policy: open }))).kind).toBe('refused');
    expect((await failure(postWebhook({ url: 'no url', headers: {}, body: 'x', timeoutMs: 1000, policy: open }))).kind).toBe('refused');
  });

  it('reports a closed port as "connection refused to <address>:<port>"', async () => {
    const closed = await closedPort();
    const error = await failure(postWebhook({ url: `http://127.0.0.1:${closed}/`, headers: {}, body: 'x', timeoutMs: 5000, policy: open }));
    expect(error.kind).toBe('connect');
    expect(error.message).toBe(`connection refused to 127.0.0.1:${closed}`);
  });

  it('times out a receiver that does not answer', async () => {
    answer = () => undefined; // never answers
    const started = Date.now();
    const error = await failure(postWebhook({ url: `http://127.0.0.1:${port}/`, headers: {}, body: 'x', timeoutMs: 300, policy: open }));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(`no answer from 127.0.0.1:${port} within 300 ms`);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('counts a slow name lookup against the same time limit', async () => {
    const slow = new AddressPolicy({ allowInternal: true }, () => new Promise((resolve) => setTimeout(() => resolve(['127.0.0.1']), 2000)));
    const started = Date.now();
    const error = await failure(postWebhook({ url: `http://slow.test:${port}/`, headers: {}, body: 'x', timeoutMs: 200, policy: slow }));
    expect(error.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(received).toHaveLength(0);
  });

  it('counts a non-2xx answer as a failure', async () => {
    answer = (_request, response) => response.writeHead(500).end('boom');
    const error = await failure(postWebhook({ url: `http://127.0.0.1:${port}/`, headers: {}, body: 'x', timeoutMs: 5000, policy: open }));
    expect(error).toMatchObject({ kind: 'status', status: 500, message: 'HTTP 500 from receiver' });
  });

  it('does not follow redirects: a 3xx is a failure and its target is never asked', async () => {
    answer = (request, response) => {
      if (request.url === '/elsewhere') response.writeHead(204).end();
      else response.writeHead(307, { location: `http://127.0.0.1:${port}/elsewhere` }).end();
    };
    const error = await failure(postWebhook({ url: `http://127.0.0.1:${port}/start`, headers: {}, body: 'x', timeoutMs: 5000, policy: open }));
    expect(error).toMatchObject({ kind: 'status', status: 307, message: 'HTTP 307 from receiver (redirects are not followed)' });
    expect(received.map((r) => r.url)).toEqual(['/start']);
  });

  it('reads a large answer only up to a bound and drops it', async () => {
    let written = 0;
    let aborted = false;
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = (): void => {
        // 64 MiB at most: the client must hang up long before.
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) {
            response.once('drain', pump);
            return;
          }
        }
        response.end();
      };
      response.once('close', () => (aborted = !response.writableFinished));
      pump();
    };
    const result = await postWebhook({ url: `http://127.0.0.1:${port}/`, headers: {}, body: 'x', timeoutMs: 5000, policy: open });
    expect(result.status).toBe(200);
    await expect.poll(() => aborted).toBe(true);
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });
});

describe('postWebhook over https', () => {
  let dir: string;
  let server: https.Server;
  let tlsPort: number;
  /** Server names the clients' ClientHellos asked for (SNI), and TCP connections accepted. */
  const serverNames: string[] = [];
  let connections = 0;

  beforeAll(async () => {
    // A self-signed certificate for receiver.test: the handshake reaches the server, the client's check fails.
    dir = mkdtempSync(path.join(os.tmpdir(), 'quire-webhook-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=receiver.test',
        '-addext',
        'subjectAltName=DNS:receiver.test',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const context = tls.createSecureContext({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) });
    server = https.createServer(
      {
        SNICallback: (name, done) => {
          serverNames.push(name);
          done(null, context);
        },
      },
      (_request, response) => response.writeHead(204).end(),
    );
    server.on('connection', () => connections++);
    server.on('tlsClientError', () => undefined);
    tlsPort = await listen(server);
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects to the pinned address with the URL host as TLS server name, and checks the certificate', async () => {
    // receiver.test exists in no DNS: reaching the server at all proves the checked address was used.
    const dns = countingResolver([['127.0.0.1'], ['127.0.0.2']]);
    const policy = new AddressPolicy({ allowInternal: true }, dns.resolve);
    const error = await failure(postWebhook({ url: `https://receiver.test:${tlsPort}/`, headers: {}, body: 'x', timeoutMs: 5000, policy }));
    expect(error.kind).toBe('connect');
    expect(error.message).toMatch(new RegExp(`^could not connect to receiver\\.test:${tlsPort} \\(self[- ]signed certificate`));
    expect(connections).toBe(1);
    expect(serverNames).toEqual(['receiver.test']);
    expect(dns.calls).toEqual(['receiver.test']);
  });
});
