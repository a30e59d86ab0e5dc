import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { QuireError } from '../../../src/core/errors.js';
import { WEBHOOK, type WebhookPayload } from '../../../src/operations/jobs/payloads.js';
import { verifyWebhookSignature } from '../../../src/operations/jobs/webhook-signature.js';
import { Webhooks } from '../../../src/operations/jobs/webhooks.js';
import { WorkQueue } from '../../../src/operations/queue/work-queue.js';
import { FileQueueStore } from '../../../src/storage/queue/file-queue-store.js';
import type { QueueEntry } from '../../../src/storage/queue/queue-store.js';
import { bearer } from '../../helpers/client.js';
import { eventually, openSession, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf } from '../../helpers/toolbox.js';
import { rejectionOf } from '../../helpers/rejection.js';

// --- a receiver: a real HTTP server on 127.0.0.1 that records what arrives ---

interface Delivery {
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The body exactly as received (what the signature covers). */
  raw: string;
}

interface Receiver {
  port: number;
  deliveries: Delivery[];
  /** The status the receiver answers with. */
  status: number;
  close(): Promise<void>;
}

async function startReceiver(port = 0): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const receiver: Receiver = { port, deliveries, status: 204, close: async () => undefined };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({ url: request.url ?? '', headers: request.headers, raw: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(receiver.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.port = (server.address() as net.AddressInfo).port;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}

/** A port nothing listens on (a listener opened and closed again). */
async function closedPort(): Promise<number> {
  const receiver = await startReceiver();
  await receiver.close();
  return receiver.port;
}

// --- a queue with the webhook handler, on real files, as server.ts builds it ---

interface Harness {
  dataDir: string;
  queue: WorkQueue;
  webhooks: Webhooks;
  /** Resolves with the entry once it reached DONE or FAILED_PERMANENT. */
  settled(id: string): Promise<QueueEntry>;
  deliver(payload: WebhookPayload): Promise<QueueEntry>;
  /** Stops the queue and closes the store, keeping the data dir (a server stop). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});

async function harness(env: Record<string, string> = {}, dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-webhooks-'))): Promise<Harness> {
  const config = loadConfig({
    QUIRE_DATA_DIR: dataDir,
    QUIRE_NETWORK__ALLOW_INTERNAL: 'true',
    QUIRE_WEBHOOKS__MAX_ATTEMPTS: '3',
    QUIRE_WEBHOOKS__RETRY_DELAY: '0.01',
    QUIRE_WEBHOOKS__TIMEOUT: '5',
    ...env,
  });
  const store = new FileQueueStore(path.join(dataDir, 'queue'));
  await store.open();
  const queue = new WorkQueue(store, { maxPending: 100, archiveFile: path.join(dataDir, 'queue', 'failed-archive.jsonl') });
  const webhooks = await Webhooks.open({ config, dataDir });
  queue.register(webhooks.handler());
  const waiting = new Map<string, (entry: QueueEntry) => void>();
  queue.onSettled((entry) => waiting.get(entry.id)?.(entry));
  await queue.start();
  const settled = (id: string) => new Promise<QueueEntry>((resolve) => waiting.set(id, resolve));
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= queue.stop(1000).then(() => store.close()));
  const result: Harness = {
    dataDir,
    queue,
    webhooks,
    settled,
    deliver: async (payload) => {
      const entry = await queue.enqueue(WEBHOOK, payload);
      return settled(entry.id);
    },
    stop,
    close: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  harnesses.push(result);
  return result;
}

function secretOf(dataDir: string): string {
  return readFileSync(path.join(dataDir, 'keys', 'webhook-secret'), 'utf8').trim();
}

const payload = (url: string): WebhookPayload => ({
  url,
  event: 'job.completed',
  body: { jobId: 'f'.repeat(32), status: 'succeeded', text: 'Grüße ✓' },
  subject: 'f'.repeat(32),
});

describe('webhook deliveries (queue + handler)', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('delivers a signed POST that verifies with the secret of the data dir', async () => {
    const h = await harness();
    receiver.deliveries.length = 0;
    const before = Math.floor(Date.now() / 1000);
    const entry = await h.deliver(payload(`http://127.0.0.1:${receiver.port}/hooks?key=1`));
    expect(entry.state).toBe('DONE');
    expect(entry.attempts).toBe(1);
    // Delivered entries are not kept.
    expect(await h.queue.get(entry.id)).toBeUndefined();

    expect(receiver.deliveries).toHaveLength(1);
    const delivery = receiver.deliveries[0]!;
    expect(delivery.url).toBe('/hooks?key=1');
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['x-quire-event']).toBe('job.completed');
    expect(delivery.headers['x-quire-delivery']).toBe(entry.id);
    expect(JSON.parse(delivery.raw)).toEqual(payload('').body);
    const timestamp = Number(delivery.headers['x-quire-timestamp']);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));

    const secret = secretOf(h.dataDir);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    // Independently of Quire's helper: HMAC-SHA256 over "<timestamp>.<raw body>".
    const mac = createHmac('sha256', secret).update(`${timestamp}.${delivery.raw}`, 'utf8').digest('hex');
    expect(delivery.headers['x-quire-signature']).toBe(`sha256=${mac}`);
    expect(verifyWebhookSignature(secret, delivery.headers, delivery.raw, 300)).toBe(true);
    // A changed body, another secret or a stale timestamp do not verify.
    expect(verifyWebhookSignature(secret, delivery.headers, delivery.raw.replace('succeeded', 'failed'), 300)).toBe(false);
    expect(verifyWebhookSignature('0'.repeat(64), delivery.headers, delivery.raw, 300)).toBe(false);
    expect(verifyWebhookSignature(secret, delivery.headers, delivery.raw, 300, timestamp + 301)).toBe(false);
    expect(verifyWebhookSignature(secret, { ...delivery.headers, 'x-quire-timestamp': String(timestamp + 1) }, delivery.raw, 300)).toBe(false);
  });

  it('retries a receiver that fails, and reports its status', async () => {
    const h = await harness();
    const failing = await startReceiver();
    failing.status = 500;
    try {
      const entry = await h.deliver(payload(`http://127.0.0.1:${failing.port}/`));
      expect(entry).toMatchObject({ state: 'FAILED_PERMANENT', attempts: 3, lastError: 'HTTP 500 from receiver' });
      expect(failing.deliveries).toHaveLength(3);
      // One delivery id for every attempt (receivers dedupe on it), a fresh signature each time.
      expect(new Set(failing.deliveries.map((d) => d.headers['x-quire-delivery']))).toEqual(new Set([entry.id]));
      expect(failing.deliveries.map((d) => d.headers['x-quire-attempt'])).toEqual(['1', '2', '3']);
      for (const d of failing.deliveries) expect(verifyWebhookSignature(secretOf(h.dataDir), d.headers, d.raw)).toBe(true);
    } finally {
      await failing.close();
    }
  });

  it('a delivery to a closed port ends in FAILED_PERMANENT, and is delivered after a requeue once the receiver runs', async () => {
    const h = await harness();
    const port = await closedPort();
    const entry = await h.deliver(payload(`http://127.0.0.1:${port}/late`));
    expect(entry.state).toBe('FAILED_PERMANENT');
    expect(entry.attempts).toBe(3);
    expect(entry.lastError).toBe(`connection refused to 127.0.0.1:${port}`);
    expect(entry.history.filter((e) => e.event === 'retry scheduled')).toHaveLength(2);
    expect((await h.queue.listFailed(10)).map((e) => e.id)).toEqual([entry.id]);

    const late = await startReceiver(port);
    try {
      const done = h.settled(entry.id);
      expect(await h.queue.requeue(entry.id, 'the receiver is back')).toBe(true);
      const delivered = await done;
      expect(delivered.state).toBe('DONE');
      expect(delivered.attempts).toBe(1);
      expect(delivered.history.find((e) => e.event === 'requeued')?.detail).toBe('the receiver is back');
      expect(late.deliveries).toHaveLength(1);
      expect(late.deliveries[0]!.headers['x-quire-delivery']).toBe(entry.id);
      expect(verifyWebhookSignature(secretOf(h.dataDir), late.deliveries[0]!.headers, late.deliveries[0]!.raw)).toBe(true);
      expect(await h.queue.listFailed(10)).toEqual([]);
    } finally {
      await late.close();
    }
  });
});

describe('the address policy of callback URLs', () => {
  async function refusal(webhooks: Webhooks, url: string): Promise<QuireError> {
    const error = await rejectionOf(webhooks.checkCallbackUrl(url), QuireError);
    expect(error.errorCode).toBe(-143);
    expect(error.status).toBe(400);
    return error;
  }

  it('refuses internal addresses unless allowed', async () => {
    const strict = (await harness({ QUIRE_NETWORK__ALLOW_INTERNAL: 'false' })).webhooks;
    expect((await refusal(strict, 'http://127.0.0.1:9/hook')).message).toBe(
      'The callback URL is refused: 127.0.0.1 is a loopback address (network.allowInternal and network.allowHosts do not allow it).',
    );
    expect((await refusal(strict, 'http://localhost:9/')).message).toMatch(/localhost resolves to 127\.0\.0\.1, a loopback address/);
    expect((await refusal(strict, 'http://[::ffff:10.0.0.1]/')).message).toMatch(/refused: .*private/);
    const open = (await harness()).webhooks;
    await expect(open.checkCallbackUrl('http://127.0.0.1:9/hook')).resolves.toBeUndefined();
    const listed = (await harness({ QUIRE_NETWORK__ALLOW_INTERNAL: 'false', QUIRE_NETWORK__ALLOW_HOSTS: '[127.0.0.0/8]' })).webhooks;
    await expect(listed.checkCallbackUrl('http://127.0.0.1:9/hook')).resolves.toBeUndefined();
    expect((await refusal(listed, 'http://10.1.2.3/')).message).toMatch(/private/);
  });

  it('refuses what is not an absolute http(s) URL, credentials and overlong URLs', async () => {
    const { webhooks } = await harness();
    expect((await refusal(webhooks, '/relative/hook')).message).toBe('The callback URL is refused: it is not an absolute URL.');
    expect((await refusal(webhooks, 'ftp://127.0.0.1/')).message).toBe('The callback URL is refused: ftp: URLs are not allowed, only http: and https:.');
    expect((await refusal(webhooks, 'file:///etc/passwd')).message).toMatch(/file: URLs are not allowed/);
    expect((await refusal(webhooks, 'http://user:pw@127.0.0.1/')).message).toMatch(/must not contain credentials/);
    expect((await refusal(webhooks, `http://127.0.0.1/${'a'.repeat(2048)}`)).message).toMatch(/longer than 2048 characters/);
    await expect(webhooks.checkCallbackUrl(`http://127.0.0.1/${'a'.repeat(2000)}`)).resolves.toBeUndefined();
  });

  it('judges again at delivery time: a refused target fails permanently after one attempt, nothing is sent', async () => {
    const receiver = await startReceiver();
    try {
      const h = await harness({ QUIRE_NETWORK__ALLOW_INTERNAL: 'false' });
      const entry = await h.deliver(payload(`http://127.0.0.1:${receiver.port}/`));
      expect(entry.state).toBe('FAILED_PERMANENT');
      expect(entry.attempts).toBe(1);
      expect(entry.lastError).toBe('the address policy refuses the callback URL: 127.0.0.1 is a loopback address');
      expect(receiver.deliveries).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describe('the signing secret', () => {
  it('is generated once into <dataDir>/keys/webhook-secret (0600) and reused by later starts', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-webhooks-'));
    const receiver = await startReceiver();
    try {
      const first = await harness({}, dataDir);
      const file = path.join(dataDir, 'keys', 'webhook-secret');
      const secret = secretOf(dataDir);
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      await first.deliver(payload(`http://127.0.0.1:${receiver.port}/`));
      await first.stop();

      // A second start on the same data dir: the same secret, not a new one.
      const second = await harness({}, dataDir);
      expect(secretOf(dataDir)).toBe(secret);
      await second.deliver(payload(`http://127.0.0.1:${receiver.port}/`));
      expect(receiver.deliveries).toHaveLength(2);
      for (const d of receiver.deliveries) expect(verifyWebhookSignature(secret, d.headers, d.raw)).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('is webhooks.secret when configured (no file is written)', async () => {
    const receiver = await startReceiver();
    try {
      const h = await harness({ QUIRE_WEBHOOKS__SECRET: 'configured secret' });
      await h.deliver(payload(`http://127.0.0.1:${receiver.port}/`));
      expect(() => statSync(path.join(h.dataDir, 'keys', 'webhook-secret'))).toThrow(/ENOENT/);
      const d = receiver.deliveries[0]!;
      expect(verifyWebhookSignature('configured secret', d.headers, d.raw)).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});

describe('webhooks of asynchronous calls (HTTP)', () => {
  let receiver: Receiver;

  // Registered before the server's hooks: the receiver starts first and closes after the server stopped.
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });
  const { server } = useTestServer({ env: { QUIRE_NETWORK__ALLOW_INTERNAL: 'true', QUIRE_WEBHOOKS__MAX_ATTEMPTS: '2', QUIRE_WEBHOOKS__RETRY_DELAY: '0.02' }, session: false });

  it('a webhook received by a local test server with a valid signature', async () => {
    const session = await openSession(server.rest);
    const document = await uploadFile(server.rest, session.token, await numberedPdf(2), 'two.pdf');
    const response = await fetch(`${server.rest}/toolbox/${document.documentId}`, {
      method: 'POST',
      headers: { ...bearer(session.token), 'content-type': 'application/json', prefer: 'respond-async', 'x-quire-callback-url': `http://127.0.0.1:${receiver.port}/done?k=1` },
      body: JSON.stringify({ toolbox: [{ rotate: { pages: '1', degrees: 90 } }] }),
    });
    expect(response.status).toBe(202);
    const jobUrl = response.headers.get('location')!;
    const jobId = jobUrl.split('/').pop()!;

    const delivery = await eventually(
      () => {
        const found = receiver.deliveries.find((d) => d.raw.includes(jobId));
        if (!found) throw new Error('no delivery yet');
        return found;
      },
      30_000,
      50,
    );
    expect(delivery.url).toBe('/done?k=1');
    expect(delivery.headers['x-quire-event']).toMatch(/^job\./);
    expect(delivery.headers['x-quire-delivery']).toMatch(/^[0-9a-f]{32}$/);
    const secret = secretOf(server.dataDir);
    expect(verifyWebhookSignature(secret, delivery.headers, delivery.raw, 60)).toBe(true);
    const timestamp = delivery.headers['x-quire-timestamp'] as string;
    expect(delivery.headers['x-quire-signature']).toBe(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${delivery.raw}`).digest('hex')}`);
  });
});
