import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { QuireError } from '../../core/errors.js';
import { toJobView } from '../../operations/jobs/job-view.js';
import { JOB, type JobPayload } from '../../operations/jobs/payloads.js';
import type { BackgroundQueue } from '../../operations/queue/background-queue.js';
import type { Session } from '../../sessions/session.js';
import type { QueueEntry } from '../../storage/queue/queue-store.js';
import { Job, JobIdParams, JobListQuery } from '../schemas/jobs.js';
import { ref } from '../schemas/shared.js';

// A Quire extension: documented in docs/jobs.md, and tagged so in the OpenAPI document.
const tags = ['experimental'];

/**
 * The job resource of asynchronous calls (http/plugins/async-calls.ts): a job's state and result,
 * the session's jobs, and cancelling a job that has not started. A job is visible to its session
 * only: any other session gets the same 404 as for an unknown id.
 */
export const jobRoutes: FastifyPluginAsyncTypebox<{ queue: BackgroundQueue; restBase: string }> = async (app, { queue }) => {
  const ownJob = async (session: Session, jobId: string): Promise<QueueEntry<JobPayload>> => {
    const entry = await queue.get(jobId);
    if (!entry || entry.kind !== JOB || entry.sessionId !== session.id) {
      throw new QuireError('JOB_NOT_FOUND', `No job ${jobId} belongs to this session (finished jobs are kept for queue.keepResults).`);
    }
    return entry as QueueEntry<JobPayload>;
  };

  app.get(
    '/jobs',
    {
      schema: {
        tags,
        operationId: 'listJobs',
        summary: 'The jobs of the session, newest first (finished ones while their results are kept)',
        querystring: JobListQuery,
        response: { 200: Type.Array(ref(Job)) },
      },
    },
    async (request) => {
      const entries = await queue.list({ kind: JOB, sessionId: request.session!.id });
      return entries
        .reverse()
        .slice(0, request.query.limit)
        .map((entry) => toJobView(entry as QueueEntry<JobPayload>));
    },
  );

  app.get(
    '/jobs/:jobId',
    {
      schema: {
        tags,
        operationId: 'getJob',
        summary: 'State, progress and, once finished, the resulting DocumentFile or error of an asynchronous call',
        params: JobIdParams,
        response: { 200: ref(Job) },
      },
    },
    async (request) => toJobView(await ownJob(request.session!, request.params.jobId)),
  );

  app.delete(
    '/jobs/:jobId',
    {
      schema: {
        tags,
        operationId: 'cancelJob',
        summary: 'Cancel a job that has not started; a running or finished job answers 409 (-145)',
        params: JobIdParams,
      },
    },
    async (request, reply) => {
      const entry = await ownJob(request.session!, request.params.jobId);
      if (!(await queue.cancel(entry.id))) {
        throw new QuireError('JOB_NOT_CANCELLABLE', `Job ${entry.id} has started or finished already; only queued jobs can be cancelled.`);
      }
      request.log.info({ jobId: entry.id }, 'job cancelled');
      return reply.code(200).send();
    },
  );
};
