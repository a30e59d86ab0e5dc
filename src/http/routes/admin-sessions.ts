import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { QuireError } from '../../core/errors.js';
import { sessionTable } from '../../operations/admin/session-table.js';
import type { DocumentService } from '../../operations/documents/document-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { SessionTable } from '../schemas/admin-sessions.js';
import { ref } from '../schemas/shared.js';

const tags = ['administration'];

/** Administration of sessions: the session table and closing a session. */
export const adminSessionRoutes: FastifyPluginAsyncTypebox<{ sessions: SessionService; documents: DocumentService }> = async (app, { sessions, documents }) => {
  app.get(
    '/admin/session/table',
    {
      config: { auth: 'admin' },
      schema: { tags, operationId: 'readSessionTable', summary: 'Status of every session', response: { 200: ref(SessionTable) } },
    },
    async (request) => sessionTable(sessions, documents, request.session!.id),
  );

  app.post(
    '/admin/session/:sessionId/close',
    {
      config: { auth: 'admin' },
      schema: {
        tags,
        operationId: 'closeSession',
        summary: 'End a session at once; its documents are deleted and its tokens give 401 (-60)',
        params: Type.Object({ sessionId: Type.String() }),
      },
    },
    async (request, reply) => {
      if (!(await sessions.close(request.params.sessionId))) {
        throw new QuireError('SESSION_UNKNOWN', `No session with id "${request.params.sessionId}" exists.`);
      }
      return reply.code(200).send();
    },
  );
};
