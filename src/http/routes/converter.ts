import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { QuireError } from '../../core/errors.js';
import type { ConverterService } from '../../operations/converter/converter-service.js';
import { seeDocumentInfo } from '../replies.js';
import { ConverterOperation } from '../schemas/converter.js';
import { DocumentIdParams, ref } from '../schemas/shared.js';

const tags = ['converter'];

/** Header values are Latin-1 at most: non-ASCII characters are percent-encoded, quotes escaped. */
function headerText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (c) => encodeURIComponent(c)).replace(/["\\]/g, (c) => `\\${c}`);
}

export interface ConverterRoutes {
  converter: ConverterService;
  restBase: string;
}

/** The converter web service (webPDF §10.4): a stored document becomes a PDF in place. */
export const converterRoutes: FastifyPluginAsyncTypebox<ConverterRoutes> = async (app, { converter, restBase }) => {
  app.post(
    '/converter/new',
    {
      schema: {
        tags,
        operationId: 'convertNew',
        summary: 'Refused: the converter needs a stored document to convert (upload it, then call converter/{documentId})',
        response: { 303: Type.Null() },
      },
    },
    async () => {
      throw new QuireError('PARAMETER', 'converter/new has nothing to convert: upload the document first, then call converter/{documentId}.');
    },
  );

  app.post(
    '/converter/:documentId',
    {
      schema: {
        tags,
        operationId: 'convert',
        summary: 'Convert a stored document (Office, text, HTML, images, e-mail, PostScript, PDF) to PDF; answers 303 to its information. With report.fontIsMissing / report.fontAliasUsage, findings come as Warning headers (299).',
        params: DocumentIdParams,
        body: ref(ConverterOperation),
        response: { 303: Type.Null({ description: 'Location: the DocumentFile of the converted document' }) },
      },
    },
    async (request, reply) => {
      const { record, warnings } = await converter.convert(request.session!, request.params.documentId, request.body);
      if (warnings.length > 0) {
        request.log.info({ documentId: record.id, warnings }, 'conversion report');
        // RFC 7234 Warning fields (code 299, "miscellaneous persistent warning"), one per finding.
        reply.header('warning', warnings.map((w) => `299 quire "${headerText(w)}"`));
      }
      return seeDocumentInfo(reply, restBase, record.id);
    },
  );
};
