import { documentOperation, newDocumentOperation, type WebServiceModule } from '../webservice.js';
import { TOOLBOX_REGISTRY } from './registry.js';
import { ToolboxService, type ToolboxRequest } from './toolbox-service.js';

/** The toolbox web service (webPDF §10.9): operations on a stored PDF, or on a new document. */
export const toolboxModule: WebServiceModule<ToolboxService> = {
  name: 'toolbox',
  engines: ['qpdf', 'ghostscript', 'poppler'],
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
    newDocumentOperation<ToolboxService, ToolboxRequest>({
      operationId: 'toolboxNew',
      summary: 'Run toolbox operations on a new, empty document named `name`; answers 303 to the new document',
    }),
    documentOperation<ToolboxService, ToolboxRequest>({
      operationId: 'toolbox',
      summary: 'Run toolbox operations in array order on a stored document, as one transaction; answers 303 to its information',
    }),
  ],
};
