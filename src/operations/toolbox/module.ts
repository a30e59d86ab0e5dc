import Type from 'typebox';
import { referenceTag } from '../../core/webservices.js';
import { componentRef, DocumentIdParams, route, type WebServiceModule } from '../webservice.js';
import { TOOLBOX_REGISTRY } from './registry.js';
import { ToolboxService, type ToolboxRequest } from './toolbox-service.js';

const toolboxRoute = route<ToolboxService>();

/** `toolbox/new`: the file name and history mode of the new document. */
export const ToolboxNewQuery = Type.Object({
  name: Type.Optional(Type.String({ default: 'empty.pdf', description: 'file name of the new document' })),
  history: Type.Optional(Type.Boolean({ default: false })),
});

/** The toolbox web service (webPDF §10.9): operations on a stored PDF, or on a new document. */
export const toolboxModule: WebServiceModule<ToolboxService> = {
  name: 'toolbox',
  prefix: '/toolbox',
  tag: referenceTag('toolbox'),
  engines: ['qpdf', 'ghostscript', 'poppler'],
  statistics: 'toolbox',
  create: ({ documents, credentials, engines, config, memoryScratch }) =>
    new ToolboxService(
      { documents, credentials },
      {
        rewriter: engines.converter.rewriter,
        ghostscript: engines.converter.ghostscript,
        qpdf: engines.qpdf,
        poppler: engines.poppler,
        toolTimeoutMs: config.documents.toolTimeoutMs,
        fontEnv: engines.fonts.env,
        ...(memoryScratch ? { memoryScratch } : {}),
        ...(config.toolbox.printCommand.length > 0 ? { printCommand: config.toolbox.printCommand } : {}),
      },
      TOOLBOX_REGISTRY,
      config.toolbox.timeoutMs,
    ),
  routes: [
    toolboxRoute({
      method: 'POST',
      path: '/new',
      operationId: 'toolboxNew',
      summary: 'Run toolbox operations on a new, empty document named `name`; answers 303 to the new document',
      querystring: ToolboxNewQuery,
      body: componentRef<ToolboxRequest>('Operation_ToolboxOperation'),
      seeOther: 'Location: the DocumentFile of the new document',
      async run(toolbox, session, { query, body }) {
        const record = await toolbox.runNew(session, body, { name: query.name ?? 'empty.pdf', history: query.history ?? false });
        return { documentId: record.id };
      },
    }),
    toolboxRoute({
      method: 'POST',
      path: '/:documentId',
      operationId: 'toolbox',
      summary: 'Run toolbox operations in array order on a stored document, as one transaction; answers 303 to its information',
      params: DocumentIdParams,
      body: componentRef<ToolboxRequest>('Operation_ToolboxOperation'),
      seeOther: 'Location: the DocumentFile of the changed document',
      async run(toolbox, session, { params, body }) {
        const record = await toolbox.run(session, params.documentId, body);
        return { documentId: record.id };
      },
    }),
  ],
};
