import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { ToolboxService } from '../../operations/toolbox/toolbox-service.js';
import { seeDocumentInfo } from '../replies.js';
import { DocumentIdParams, ref } from '../schemas/shared.js';
import { ToolboxNewQuery, ToolboxOperation } from '../schemas/toolbox.js';

const tags = ['toolbox'];

export interface ToolboxRoutes {
  toolbox: ToolboxService;
  restBase: string;
}

/** The toolbox web service (webPDF §10.9): operations on a stored PDF, or on a new document. */
export const toolboxRoutes: FastifyPluginAsyncTypebox<ToolboxRoutes> = async (app, { toolbox, restBase }) => {
  app.post(
    '/toolbox/new',
    {
      schema: {
        tags,
        operationId: 'toolboxNew',
        summary: 'Run toolbox operations on a new, empty document named `name`; answers 303 to the new document',
        querystring: ToolboxNewQuery,
        body: ref(ToolboxOperation),
        response: { 303: Type.Null({ description: 'Location: the DocumentFile of the new document' }) },
      },
    },
    async (request, reply) => {
      const record = await toolbox.runNew(request.session!, request.body, {
        name: request.query.name ?? 'empty.pdf',
        history: request.query.history ?? false,
      });
      return seeDocumentInfo(reply, restBase, record.id);
    },
  );

  app.post(
    '/toolbox/:documentId',
    {
      schema: {
        tags,
        operationId: 'toolbox',
        summary: 'Run toolbox operations in array order on a stored document, as one transaction; answers 303 to its information',
        params: DocumentIdParams,
        body: ref(ToolboxOperation),
        response: { 303: Type.Null({ description: 'Location: the DocumentFile of the changed document' }) },
      },
    },
    async (request, reply) => {
      const record = await toolbox.run(request.session!, request.params.documentId, request.body);
      return seeDocumentInfo(reply, restBase, record.id);
    },
  );
};
