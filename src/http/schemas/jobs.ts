import Type from 'typebox';
import { DocumentFile } from './documents.js';
import { component, ref, WebserviceException } from './shared.js';

const instant = (description: string) => Type.String({ format: 'date-time', description });

/** The job resource of an asynchronous web-service call (a Quire extension, docs/jobs.md). */
export const Job = component(
  Type.Object(
    {
      jobId: Type.String({ description: '32 hex digits; the resource is {restBase}/jobs/{jobId}' }),
      state: Type.Enum(['queued', 'running', 'succeeded', 'failed']),
      progress: Type.Integer({ minimum: 0, maximum: 100, description: 'percent; 100 once finished' }),
      webservice: Type.String({ description: 'the web service called: converter, toolbox, ...' }),
      documentId: Type.Optional(Type.String({ description: 'the document the call works on (absent for toolbox/new)' })),
      createdAt: instant('when the call was accepted (ISO 8601, UTC)'),
      startedAt: Type.Optional(instant('when the latest attempt started')),
      finishedAt: Type.Optional(instant('when the job succeeded or failed')),
      attempts: Type.Integer({ minimum: 0, description: 'attempts started so far (retries after engine overload or a server stop)' }),
      // The DocumentFile as the info route answered it when the job finished: stored JSON, typed loosely here.
      result: Type.Optional(Type.Unsafe<Record<string, unknown>>(ref(DocumentFile))),
      error: Type.Optional(ref(WebserviceException)),
      callbackUrl: Type.Optional(Type.String({ description: 'the webhook told about the outcome (event job.completed)' })),
    },
    { $id: 'Quire_Job', description: 'An asynchronous web-service call (Quire extension): state, progress and, when finished, the resulting DocumentFile or the error.' },
  ),
);

export const JobIdParams = Type.Object({ jobId: Type.String({ description: 'id from the Location of the 202 answer' }) });

export const JobListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'most jobs listed, newest first' }),
});
