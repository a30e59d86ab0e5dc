import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import type { DocumentThumbnails } from '../../operations/documents/thumbnails.js';
import { ThumbnailQuery } from '../schemas/portal.js';
import { DocumentIdParams } from '../schemas/shared.js';

/**
 * `GET documents/{documentId}/thumbnail` (a Quire extension for the portal's document list): a page of
 * a stored PDF as a small PNG, authorised exactly like the download (the session's own documents).
 * Revalidated by ETag, which names the document's state: a changed document is a new picture.
 */
export const documentThumbnailRoutes: FastifyPluginAsyncTypebox<{ thumbnails: DocumentThumbnails }> = async (app, { thumbnails }) => {
  app.get(
    '/documents/:documentId/thumbnail',
    {
      schema: {
        tags: ['portal'],
        operationId: 'getDocumentThumbnail',
        summary: 'A page of the PDF as a PNG thumbnail (Quire extension); not a PDF: 400, errorCode -211',
        params: DocumentIdParams,
        querystring: ThumbnailQuery,
        produces: ['image/png'],
        response: {
          200: Type.String({ format: 'binary', description: 'the PNG' }),
          304: Type.Null({ description: 'not modified' }),
        },
      },
    },
    async (request, reply) => {
      const { page, width } = request.query;
      const thumbnail = await thumbnails.thumbnail(request.session!, request.params.documentId, page, width);
      // The schema documents the answer; the bytes go out as they are.
      const raw = (reply as FastifyReply).header('etag', thumbnail.etag).header('cache-control', 'private, no-cache');
      raw.header('x-quire-thumbnail', thumbnail.rendered ? 'rendered' : 'cached');
      if (request.headers['if-none-match'] === thumbnail.etag) return raw.code(304).send();
      return raw.type('image/png').send(thumbnail.png);
    },
  );
};
