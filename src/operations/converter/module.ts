import { QuireError } from '../../core/errors.js';
import { same } from '../admin/configuration-fields.js';
import { documentOperation, route, type WebServiceModule } from '../webservice.js';
import { ConverterService, type ConverterRequest } from './converter-service.js';

/** The converter web service (webPDF §10.4): a stored document becomes a PDF in place. */
export const converterModule: WebServiceModule<ConverterService> = {
  name: 'converter',
  engines: ['libreoffice', 'chromium', 'images', 'ghostscript', 'qpdf'],
  // The converter's pool is the LibreOffice pool: instances = warm workers, queueSize, maxLatency = seconds a job may wait.
  configuration: [
    { field: 'webservices.converter.instances', read: (c) => c.engines.libreoffice.workers, writes: same('engines.libreoffice.workers') },
    { field: 'webservices.converter.queueSize', read: (c) => c.engines.libreoffice.queueSize, writes: same('engines.libreoffice.queueSize') },
    {
      field: 'webservices.converter.maxLatency',
      read: (c) => Math.round(c.engines.libreoffice.queueTimeoutMs / 1000),
      writes: same('engines.libreoffice.queueTimeout'),
    },
  ],
  create: ({ documents, credentials, engines, config, steps }) => new ConverterService({ documents, credentials }, engines.converter, { timeoutMs: config.converter.timeoutMs, steps }),
  routes: [
    route<ConverterService>()({
      method: 'POST',
      path: '/new',
      operationId: 'convertNew',
      summary: 'Refused: the converter needs a stored document to convert (upload it, then call converter/{documentId})',
      async run() {
        throw new QuireError('PARAMETER', 'converter/new has nothing to convert: upload the document first, then call converter/{documentId}.');
      },
    }),
    documentOperation<ConverterService, ConverterRequest>({
      operationId: 'convert',
      summary:
        'Convert a stored document (Office, text, HTML, images, e-mail, PostScript, PDF) to PDF; answers 303 to its information. With report.fontIsMissing / report.fontAliasUsage, findings come as Warning headers (299).',
      seeOther: 'Location: the DocumentFile of the converted document',
      run: (converter, session, documentId, body) => converter.convert(session, documentId, body),
    }),
  ],
};
