import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature of webhook deliveries (the scheme of Stripe and Standard Webhooks):
 *
 *   X-Quire-Timestamp: <unix seconds when the attempt was sent>
 *   X-Quire-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>
 *
 * The key is the secret's text as UTF-8 bytes (the generated secret is 64 hex characters, used as
 * text, not decoded). Putting the timestamp under the MAC lets a receiver refuse a captured delivery
 * replayed later: it checks the MAC, then that the timestamp is recent. Every attempt is signed anew,
 * so retries after a long backoff carry a fresh timestamp.
 */

export const WEBHOOK_HEADERS = {
  event: 'x-quire-event',
  delivery: 'x-quire-delivery',
  timestamp: 'x-quire-timestamp',
  signature: 'x-quire-signature',
} as const;

/** `sha256=<hex>` for a timestamp (unix seconds) and the body exactly as sent. */
export function webhookSignature(secret: string, timestamp: number, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
  return `sha256=${mac}`;
}

/** Header values as Node (`IncomingHttpHeaders`) or a plain object give them; names are matched case-insensitively. */
export type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * Whether a delivery is authentic and fresh: the signature matches the secret, the timestamp and the
 * raw body (the bytes received, before any JSON parsing), and the timestamp lies within
 * `toleranceSeconds` of now. The signature header may list several `sha256=` values separated by
 * commas; one match suffices.
 */
export function verifyWebhookSignature(secret: string, headers: HeaderBag, rawBody: string | Buffer, toleranceSeconds = 300, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const timestampText = header(headers, WEBHOOK_HEADERS.timestamp);
  const signatures = header(headers, WEBHOOK_HEADERS.signature);
  if (timestampText === undefined || signatures === undefined || !/^\d{1,12}$/.test(timestampText)) return false;
  const timestamp = Number(timestampText);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(webhookSignature(secret, timestamp, rawBody));
  return signatures.split(',').some((candidate) => {
    const given = Buffer.from(candidate.trim());
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function header(headers: HeaderBag, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(',') : value;
  }
  return undefined;
}
