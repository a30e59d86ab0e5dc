import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { BaseLogger } from 'pino';
import type { Config } from '../../config/load.js';
import { QuireError } from '../../core/errors.js';
import { AddressPolicy } from '../../engines/net/address-policy.js';
import { postWebhook, WebhookError, type WebhookResponse } from '../../engines/net/webhook-client.js';
import { writeFileAtomic } from '../../storage/atomic.js';
import type { QueueEntry } from '../../storage/queue/queue-store.js';
import { PermanentFailure, type QueueHandler } from '../queue/work-queue.js';
import { WEBHOOK, type WebhookPayload } from './payloads.js';
import { WEBHOOK_HEADERS, webhookSignature } from './webhook-signature.js';

/**
 * Webhook deliveries: which callback URLs are accepted, the signing secret, and the "webhook" queue
 * handler that POSTs one event per queue entry. A delivery that fails for a passing reason (no
 * connection, timeout, a non-2xx answer) is retried with the queue's backoff; after
 * `webhooks.maxAttempts` it rests in FAILED_PERMANENT, the replay queue an administrator requeues.
 * A target the address policy refuses at delivery time fails permanently at once: the policy will
 * refuse it on every attempt.
 */
export interface WebhooksDeps {
  config: Pick<Config, 'webhooks' | 'network'>;
  dataDir: string;
  logger?: Pick<BaseLogger, 'debug' | 'warn'>;
}

/** Longest callback URL accepted (the URL is stored with every job and delivery). */
export const MAX_CALLBACK_URL_LENGTH = 2048;

/** Where the generated secret lives, relative to the data dir. */
export const WEBHOOK_SECRET_FILE = path.join('keys', 'webhook-secret');

export class Webhooks {
  private constructor(
    private readonly deps: WebhooksDeps,
    private readonly secret: string,
    private readonly policy: AddressPolicy,
  ) {}

  /** Reads (or generates once) the signing secret and builds the address policy of `network`. */
  static async open(deps: WebhooksDeps): Promise<Webhooks> {
    const secret = deps.config.webhooks.secret || (await loadOrCreateSecret(path.join(deps.dataDir, WEBHOOK_SECRET_FILE)));
    return new Webhooks(deps, secret, new AddressPolicy(deps.config.network));
  }

  /** Throws QuireError CALLBACK_URL_REFUSED unless `url` may receive webhooks (judged now; delivery judges again). */
  async checkCallbackUrl(url: string): Promise<void> {
    const refuse = (why: string): never => {
      throw new QuireError('CALLBACK_URL_REFUSED', `The callback URL is refused: ${why}.`);
    };
    if (url.length > MAX_CALLBACK_URL_LENGTH) refuse(`it is longer than ${MAX_CALLBACK_URL_LENGTH} characters`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return refuse('it is not an absolute URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') refuse(`${parsed.protocol} URLs are not allowed, only http: and https:`);
    // The URL is stored with the job and shows in logs and the replay queue: no place for a password.
    if (parsed.username !== '' || parsed.password !== '') refuse('it must not contain credentials (user:password@)');
    const decision = await this.policy.checkUrl(parsed);
    if (!decision.allowed) {
      const hint = decision.refusal === 'address' ? ' (network.allowInternal and network.allowHosts do not allow it)' : '';
      refuse(`${decision.reason}${hint}`);
    }
  }

  handler(): QueueHandler<WebhookPayload> {
    const { webhooks } = this.deps.config;
    return {
      kind: WEBHOOK,
      concurrency: 4,
      maxAttempts: webhooks.maxAttempts,
      backoff: { baseMs: webhooks.retryDelayMs, maxMs: webhooks.maxRetryDelayMs },
      // Nobody polls a delivery: a delivered one is gone, a failed one rests in the replay queue.
      keepDoneMs: 0,
      // A delivery cut off by a crash may or may not have arrived: deliver again (receivers dedupe on X-Quire-Delivery).
      recover: () => ({ retry: true }),
      run: (entry) => this.deliver(entry),
      settled: (entry) => {
        if (entry.state === 'FAILED_PERMANENT') {
          this.deps.logger?.warn(
            { delivery: entry.id, url: withoutQuery(entry.payload.url), attempts: entry.attempts, lastError: entry.lastError },
            'webhook delivery failed permanently; it is in the replay queue',
          );
        }
      },
    };
  }

  /** One attempt: sign with a fresh timestamp, POST, and sort the failure into retry or give up. */
  private async deliver(entry: QueueEntry<WebhookPayload>): Promise<WebhookResponse> {
    const { url, event, body } = entry.payload;
    const raw = JSON.stringify(body ?? null);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Quire-Webhooks',
      [WEBHOOK_HEADERS.event]: event,
      [WEBHOOK_HEADERS.delivery]: entry.id,
      [WEBHOOK_HEADERS.timestamp]: String(timestamp),
      [WEBHOOK_HEADERS.signature]: webhookSignature(this.secret, timestamp, raw),
      'x-quire-attempt': String(entry.attempts),
    };
    try {
      const response = await postWebhook({ url, headers, body: raw, timeoutMs: this.deps.config.webhooks.timeoutMs, policy: this.policy });
      this.deps.logger?.debug({ delivery: entry.id, event, status: response.status, durationMs: response.durationMs }, 'webhook delivered');
      return response;
    } catch (error) {
      if (error instanceof WebhookError && error.kind === 'refused') {
        throw new PermanentFailure(`the address policy refuses the callback URL: ${error.message}`, { cause: error });
      }
      this.deps.logger?.warn({ delivery: entry.id, url: withoutQuery(url), attempt: entry.attempts, of: entry.maxAttempts, err: error }, 'webhook delivery attempt failed');
      throw error;
    }
  }
}

/** The URL without credentials, query string and fragment (they may carry the receiver's tokens): for logs and listings. */
export function withoutQuery(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url.replace(/[?#].*$/s, '');
  }
}

/** The secret of `<dataDir>/keys/webhook-secret`, generated on first use (32 random bytes as 64 hex characters). */
async function loadOrCreateSecret(file: string): Promise<string> {
  try {
    const secret = (await readFile(file, 'utf8')).trim();
    // Silently replacing an emptied file would break every receiver's verification: say so instead.
    if (secret === '') throw new Error(`${file} is empty: delete it to have a new webhook secret generated, or set webhooks.secret`);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32).toString('hex');
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, `${secret}\n`, 0o600);
  return secret;
}
