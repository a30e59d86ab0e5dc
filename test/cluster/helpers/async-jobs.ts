import http from 'node:http';
import type net from 'node:net';
import { bearer } from '../../helpers/client.js';
import { downloadToFile } from '../../helpers/converter.js';
import type { ErrorBody } from '../../helpers/documents.js';
import type { Job } from '../../helpers/jobs.js';
import { pdfinfo } from '../../helpers/pdf-tools.js';

/**
 * What the cluster job tests need around the asynchronous job API (docs/jobs.md): a webhook receiver,
 * a submission that records exactly what the client saw, the session's job list, and the /Rotate of a
 * stored document as poppler reads it (never the code under test).
 */

/** One POST that reached the receiver. */
export interface WebhookDelivery {
  /** X-Quire-Delivery: the same on every attempt of one delivery. */
  delivery: string;
  /** The job the event is about (the body is the job resource). */
  jobId: string;
  state: string;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port>/hook */
  url: string;
  deliveries: WebhookDelivery[];
  /** Deliveries per job id. */
  byJob(): Map<string, WebhookDelivery[]>;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that answers 204 to every POST and records it. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: WebhookDelivery[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { jobId: string; state: string };
      deliveries.push({ delivery: String(request.headers['x-quire-delivery']), jobId: body.jobId, state: body.state });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    byJob: () => {
      const grouped = new Map<string, WebhookDelivery[]>();
      for (const d of deliveries) grouped.set(d.jobId, [...(grouped.get(d.jobId) ?? []), d]);
      return grouped;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What the client saw of one call: the status (0 = no answer: connection reset or refused), the content type and the body. */
export interface Answer<T = unknown> {
  status: number;
  contentType: string | null;
  body?: T;
  /** The network error when there was no answer, or the start of a body that is no JSON. */
  failure?: string;
}

/** A 90° rotation of every page, as an asynchronous toolbox job (`?async=true`), with a webhook if given. */
export function submitRotation(rest: string, token: string, documentId: string, callbackUrl?: string): Promise<Answer<Job & ErrorBody>> {
  const webhook = callbackUrl === undefined ? '' : `&callbackUrl=${encodeURIComponent(callbackUrl)}`;
  return call(`${rest}/toolbox/${documentId}?async=true${webhook}`, token, { toolbox: [{ rotate: { pages: '*', degrees: 90 } }] });
}

/** The same rotation as a synchronous call (303 to the document's information when it worked). */
export function rotateNow(rest: string, token: string, documentId: string): Promise<Answer<Partial<Job> & ErrorBody>> {
  return call(`${rest}/toolbox/${documentId}`, token, { toolbox: [{ rotate: { pages: '*', degrees: 90 } }] });
}

async function call<T>(url: string, token: string, body: unknown): Promise<Answer<T>> {
  try {
    const response = await fetch(url, { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' }, body: JSON.stringify(body), redirect: 'manual' });
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    // Only JSON is parsed: anything else (a proxy's HTML error page) is kept as text for the failure message.
    const parsed = text !== '' && contentType?.startsWith('application/json') ? (JSON.parse(text) as T) : undefined;
    return { status: response.status, contentType, ...(parsed === undefined ? {} : { body: parsed }), ...(parsed === undefined && text !== '' ? { failure: text.slice(0, 200) } : {}) };
  } catch (error) {
    return { status: 0, contentType: null, failure: error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error) };
  }
}

/** The session's jobs by id (`GET jobs?limit=1000`). */
export async function jobsById(rest: string, token: string): Promise<Map<string, Job>> {
  const response = await fetch(`${rest}/jobs?limit=1000`, { headers: bearer(token) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET jobs answered ${response.status}: ${text}`);
  return new Map((JSON.parse(text) as Job[]).map((job) => [job.jobId, job]));
}

/**
 * Polls the session's jobs until every one of `ids` has finished (succeeded or failed); throws naming
 * the unfinished ones and their states once `timeoutMs` passed (the bound of "no job stays running or
 * queued for ever").
 */
export async function waitFinished(rest: string, token: string, ids: readonly string[], timeoutMs: number): Promise<Map<string, Job>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const jobs = await jobsById(rest, token).catch(() => new Map<string, Job>());
    const open = ids.filter((id) => !['succeeded', 'failed'].includes(jobs.get(id)?.state ?? ''));
    if (open.length === 0) return jobs;
    if (Date.now() > deadline) {
      const states = open.slice(0, 10).map((id) => `${id}: ${jobs.get(id)?.state ?? 'not listed'}`);
      throw new Error(`${open.length} of ${ids.length} jobs not finished within ${timeoutMs} ms, e.g. ${states.join(', ')}`);
    }
    // Each listing reads every job of the session from Redis: not too often, the nodes have work to do.
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The /Rotate of every page of the stored document, as pdfinfo reads the downloaded file. */
export async function storedRotations(rest: string, token: string, documentId: string): Promise<number[]> {
  const file = await downloadToFile(rest, token, documentId);
  return [...pdfinfo(file, '-f', '1', '-l', '999').matchAll(/^Page\s+\d+\s+rot:\s+(\d+)/gm)].map((m) => Number(m[1]));
}

/** Runs `work` over `items` with at most `limit` at once; results in order. */
export async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
}
