import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { QuireError } from '../../core/errors.js';
import type { ConverterService } from '../../operations/converter/converter-service.js';
import { seeDocumentInfo } from '../replies.js';
import { ConverterOperation } from '../schemas/converter.js';
import { DocumentIdParams, ref } from '../schemas/shared.js';

const tags = ['converter'];

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
        summary: 'Convert a stored document (Office, text, HTML, images, e-mail, PostScript, PDF) to PDF; answers 303 to its information',
        params: DocumentIdParams,
        body: ref(ConverterOperation),
        response: { 303: Type.Null({ description: 'Location: the DocumentFile of the converted document' }) },
      },
    },
    async (request, reply) => {
      const record = await converter.convert(request.session!, request.params.documentId, request.body);
      return seeDocumentInfo(reply, restBase, record.id);
    },
  );
};
