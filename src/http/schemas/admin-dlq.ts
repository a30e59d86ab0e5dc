import Type, { type Static } from 'typebox';
import type { JobPayload, WebhookPayload } from '../../operations/jobs/payloads.js';
import { JOB, WEBHOOK } from '../../operations/jobs/payloads.js';
import { withoutQuery } from '../../operations/jobs/webhooks.js';
import type { QueueEntry } from '../../storage/queue/queue-store.js';
import { component } from './shared.js';

/**
 * The replay queue (DLQ) of the administration. The reference names the endpoints and
 * DLQ_CleanUpResponse but defines no entry structure: DLQ_Entry is Quire's own.
 */

const time = (description: string) => Type.String({ format: 'date-time', description });

export const DlqEntry = component(
  Type.Object(
    {
      id: Type.String({ description: 'the queue entry id (32 hex digits); for a webhook, the X-Quire-Delivery the receiver saw' }),
      kind: Type.String({ description: 'what failed: "job" (an asynchronous web-service call), "webhook" (a delivery), ...' }),
      state: Type.Literal('FAILED_PERMANENT'),
      createdAt: time('when the work was accepted'),
      failedAt: time('when it went to FAILED_PERMANENT'),
      attempts: Type.Integer({ format: 'int32', description: 'attempts made' }),
      maxAttempts: Type.Integer({ format: 'int32' }),
      lastError: Type.String({ description: 'why the last attempt failed' }),
      history: Type.Array(
        Type.Object({ at: time('when'), event: Type.String({ description: 'enqueued, retry scheduled, failed permanently, requeued, interrupted, ...' }), detail: Type.Optional(Type.String()) }),
        { description: "the entry's latest events, oldest first" },
      ),
      summary: Type.Object(
        {
          url: Type.Optional(Type.String({ description: 'webhook: the callback URL without its query string' })),
          event: Type.Optional(Type.String({ description: 'webhook: the event, e.g. job.completed' })),
          subject: Type.Optional(Type.String({ description: 'webhook: the job the event is about' })),
          webservice: Type.Optional(Type.String({ description: 'job: the web service called' })),
          documentId: Type.Optional(Type.String({ description: 'job: the document it worked on' })),
        },
        { description: 'what the entry is about; never bodies, tokens or secrets' },
      ),
    },
    { $id: 'DLQ_Entry', description: 'An entry of the replay queue: work that failed permanently.' },
  ),
);

export const DlqCleanUpResponse = component(
  Type.Object({ removed: Type.Integer({ format: 'int32', default: 0, description: 'entries removed (and archived, when asked)' }) }, { $id: 'DLQ_CleanUpResponse' }),
);

/** The reference's defaults of the optional query parameters. */
export const DLQ_DEFAULTS = { limit: 100, olderThanMillis: 86_400_000, archiveBeforeDelete: true, reason: 'manual admin requeue' } as const;

export const DlqListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ format: 'int32', minimum: 1, maximum: 10_000, default: DLQ_DEFAULTS.limit, description: 'most entries returned, oldest first' })),
});

export const DlqPurgeQuery = Type.Object({
  olderThanMillis: Type.Optional(Type.Integer({ format: 'int64', minimum: 0, default: DLQ_DEFAULTS.olderThanMillis, description: 'remove entries that failed at least this many milliseconds ago' })),
  archiveBeforeDelete: Type.Optional(Type.Boolean({ default: DLQ_DEFAULTS.archiveBeforeDelete, description: 'append the removed entries to <dataDir>/queue/failed-archive.jsonl first' })),
});

export const DlqIdParams = Type.Object({ id: Type.String({ description: 'a replay queue entry id' }) });

export const DlqRequeueQuery = Type.Object({
  reason: Type.Optional(Type.String({ default: DLQ_DEFAULTS.reason, maxLength: 1000, description: "recorded in the entry's history" })),
});

const iso = (epochMs: number) => new Date(epochMs).toISOString();

export function toDlqEntry(entry: QueueEntry): Static<typeof DlqEntry> {
  return {
    id: entry.id,
    kind: entry.kind,
    state: 'FAILED_PERMANENT',
    createdAt: iso(entry.createdAt),
    failedAt: iso(entry.failedAt ?? entry.updatedAt),
    attempts: entry.attempts,
    maxAttempts: entry.maxAttempts,
    lastError: entry.lastError ?? '',
    history: entry.history.map((event) => ({ at: iso(event.at), event: event.event, ...(event.detail === undefined ? {} : { detail: event.detail }) })),
    summary: summarise(entry),
  };
}

/** Only fields that identify the work: payloads hold bodies, headers (tokens) and results. */
function summarise(entry: QueueEntry): Static<typeof DlqEntry>['summary'] {
  if (entry.kind === WEBHOOK) {
    const payload = entry.payload as Partial<WebhookPayload>;
    return {
      ...(typeof payload.url === 'string' ? { url: withoutQuery(payload.url) } : {}),
      ...(typeof payload.event === 'string' ? { event: payload.event } : {}),
      ...(typeof payload.subject === 'string' ? { subject: payload.subject } : {}),
    };
  }
  if (entry.kind === JOB) {
    const payload = entry.payload as Partial<JobPayload>;
    return {
      ...(typeof payload.webservice === 'string' ? { webservice: payload.webservice } : {}),
      ...(typeof payload.documentId === 'string' ? { documentId: payload.documentId } : {}),
    };
  }
  return {};
}
