import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { QuireError } from '../../core/errors.js';
import type { BackgroundQueue } from '../../operations/queue/background-queue.js';
import { DLQ_DEFAULTS, DlqCleanUpResponse, DlqEntry, DlqIdParams, DlqListQuery, DlqPurgeQuery, DlqRequeueQuery, toDlqEntry } from '../schemas/admin-dlq.js';
import { ref } from '../schemas/shared.js';

const tags = ['administration'];

/**
 * The replay queue (admin/dlq/failed): work of the durable queue that failed permanently — webhook
 * deliveries whose attempts are used up, jobs that cannot complete — listed, deleted, purged (with an
 * archive) or put back to PENDING. Admin only.
 */
export const adminDlqRoutes: FastifyPluginAsyncTypebox<{ queue: BackgroundQueue; restBase: string }> = async (app, { queue }) => {
  const notFound = (id: string) => new QuireError('DLQ_ENTRY_NOT_FOUND', `The replay queue has no failed entry with id "${id}".`);

  app.get(
    '/admin/dlq/failed',
    {
      config: { auth: 'admin' },
      schema: {
        tags,
        operationId: 'listFailedDlqEntries',
        summary: 'Entries in FAILED_PERMANENT, oldest first',
        querystring: DlqListQuery,
        response: { 200: Type.Array(ref(DlqEntry)) },
      },
    },
    async (request) => (await queue.listFailed(request.query.limit ?? DLQ_DEFAULTS.limit)).map(toDlqEntry),
  );

  app.delete(
    '/admin/dlq/failed',
    {
      config: { auth: 'admin' },
      schema: {
        tags,
        operationId: 'purgeFailedDlqEntries',
        summary: 'Remove entries that failed at least olderThanMillis ago, archived first to <dataDir>/queue/failed-archive.jsonl unless archiveBeforeDelete=false',
        querystring: DlqPurgeQuery,
        response: { 200: ref(DlqCleanUpResponse) },
      },
    },
    async (request) => {
      const { olderThanMillis = DLQ_DEFAULTS.olderThanMillis, archiveBeforeDelete = DLQ_DEFAULTS.archiveBeforeDelete } = request.query;
      return { removed: await queue.purgeFailed(olderThanMillis, archiveBeforeDelete) };
    },
  );

  app.delete(
    '/admin/dlq/failed/:id',
    {
      config: { auth: 'admin' },
      schema: { tags, operationId: 'deleteFailedDlqEntry', summary: 'Remove one failed entry without running it', params: DlqIdParams },
    },
    async (request, reply) => {
      if (!(await queue.deleteFailed(request.params.id))) throw notFound(request.params.id);
      return reply.code(200).send();
    },
  );

  app.post(
    '/admin/dlq/failed/:id/requeue',
    {
      config: { auth: 'admin' },
      schema: {
        tags,
        operationId: 'requeueFailedDlqEntry',
        summary: 'Put a failed entry back to PENDING with its attempts reset; the reason goes into its history',
        params: DlqIdParams,
        querystring: DlqRequeueQuery,
      },
    },
    async (request, reply) => {
      if (!(await queue.requeue(request.params.id, request.query.reason ?? DLQ_DEFAULTS.reason))) throw notFound(request.params.id);
      return reply.code(200).send();
    },
  );
};
