import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import send from '@fastify/send';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { QuireError } from '../../core/errors.js';
import type { DocumentService } from '../../operations/documents/document-service.js';
import type { DocumentRecord } from '../../storage/document-store.js';
import { DocumentFile, toDocumentFile, UploadBodyDoc, UploadQuery } from '../schemas/documents.js';
import { seeDocumentInfo } from '../replies.js';
import { DocumentIdParams, ref } from '../schemas/shared.js';

const tags = ['documents'];
/** Bytes a multipart envelope may add around the file before a declared Content-Length alone proves a limit is exceeded. */
const MULTIPART_ALLOWANCE = 64 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Request body shown in the OpenAPI document for routes that parse their body by hand. */
    documentedBody?: { contentType: string; schema: unknown };
  }
}

/** The session's document storage (webPDF §4): upload, information, list, download, delete. */
export const documentRoutes: FastifyPluginAsyncTypebox<{ documents: DocumentService; restBase: string }> = async (
  app,
  { documents, restBase },
) => {
  app.post(
    '/documents',
    {
      config: { documentedBody: { contentType: 'multipart/form-data', schema: UploadBodyDoc } },
      schema: {
        tags,
        operationId: 'uploadDocument',
        summary: 'Upload a document (multipart part `filedata`); answers 303 to its information',
        querystring: UploadQuery,
        response: { 303: Type.Null({ description: 'Location: the DocumentFile of the new document' }) },
      },
      onRequest: async (request) => {
        const declared = Number(request.headers['content-length']);
        const bound = Number.isFinite(declared) && declared > MULTIPART_ALLOWANCE ? declared - MULTIPART_ALLOWANCE : undefined;
        await documents.precheck(request.session!, bound);
      },
    },
    async (request, reply) => {
      let record: DocumentRecord | undefined;
      let nameField: string | undefined;
      const parts = request.parts({
        limits: { files: 1, fields: 16, parts: 32, fieldSize: 64 * 1024, fileSize: Infinity, headerPairs: 64 },
        isPartAFile: (fieldName: string, _type: string, fileName: string | undefined) => fieldName === 'filedata' || fileName !== undefined,
      } as Parameters<typeof request.parts>[0]);
      try {
        for await (const part of parts) {
          if (part.type === 'file') {
            if (part.fieldname !== 'filedata' || record) {
              part.file.resume();
              throw new QuireError('UPLOAD_MALFORMED', `Unexpected file part "${part.fieldname}"; send one file part named filedata.`);
            }
            record = await documents.upload(request.session!, part.file, {
              clientFileName: part.filename || nameField,
              history: request.query.history,
            });
          } else if (part.fieldname === 'name' && typeof part.value === 'string') {
            nameField = part.value;
          }
        }
      } catch (error) {
        // The rest of the body was refused: the client learns no id, so the stored file must not linger.
        if (record) await documents.delete(request.session!, record.id).catch(() => undefined);
        throw error;
      }
      if (!record) throw new QuireError('UPLOAD_MALFORMED', 'The upload has no file part named filedata.');
      // The name part may follow the file part; it names files whose part carried no filename.
      if (nameField && record.fileName === 'document' && record.fileExtension === '') {
        record = await documents.rename(request.session!, record.id, nameField);
      }
      return seeDocumentInfo(reply as FastifyReply, restBase, record.id);
    },
  );

  app.get(
    '/documents/list',
    {
      schema: {
        tags,
        operationId: 'getDocumentInfoList',
        summary: 'Every document of the session',
        response: { 200: Type.Array(ref(DocumentFile)) },
      },
    },
    async (request) => (await documents.list(request.session!)).map(toDocumentFile),
  );

  app.get(
    '/documents/:documentId/info',
    {
      schema: {
        tags,
        operationId: 'getDocumentInfo',
        summary: 'Information about one document',
        params: DocumentIdParams,
        querystring: Type.Object({ password: Type.Optional(Type.String()) }),
        response: { 200: ref(DocumentFile) },
      },
    },
    async (request) => toDocumentFile(await documents.info(request.session!, request.params.documentId)),
  );

  app.get(
    '/documents/:documentId',
    {
      schema: {
        tags,
        operationId: 'getDocument',
        summary: 'Download the document (byte ranges and conditional requests supported)',
        params: DocumentIdParams,
        querystring: Type.Object({ format: Type.Optional(Type.Enum(['default'])) }),
        produces: ['application/octet-stream'],
        response: {
          200: Type.String({ format: 'binary', description: 'the document' }),
          206: Type.String({ format: 'binary', description: 'the requested byte range' }),
          304: Type.Null({ description: 'not modified' }),
        },
      },
    },
    async (request, reply) => {
      const { record, file } = await documents.content(request.session!, request.params.documentId);
      const result = await send(request.raw, `/${path.basename(file.path)}`, {
        root: path.dirname(file.path),
        dotfiles: 'allow',
        cacheControl: false,
        contentType: false,
        highWaterMark: 1024 * 1024,
      });
      if (result.type === 'error') {
        const status = (result.metadata.error as { status?: number }).status ?? 500;
        if (status === 404) throw new QuireError('DOCUMENT_NOT_FOUND', `The document "${record.id}" was deleted.`);
        if (status === 416) throw new QuireError('PARAMETER', 'The requested range is not satisfiable.');
        throw result.metadata.error;
      }
      const fileName = `${record.fileName}${record.fileExtension ? `.${record.fileExtension}` : ''}`;
      const raw = reply as FastifyReply;
      raw.code(result.statusCode).headers(result.headers);
      if (result.statusCode !== 304) raw.header('content-type', record.mimeType);
      return raw
        .header('content-disposition', contentDisposition(fileName))
        .header('cache-control', 'private, no-cache')
        .send(result.stream);
    },
  );

  app.delete(
    '/documents/:documentId',
    { schema: { tags, operationId: 'deleteDocument', summary: 'Delete the document', params: DocumentIdParams } },
    async (request, reply) => {
      await documents.delete(request.session!, request.params.documentId);
      return reply.code(200).send();
    },
  );
};

/** RFC 6266 header with an ASCII fallback and the UTF-8 name (RFC 8187). */
function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  // RFC 8187 attr-char excludes ' ( ) * which encodeURIComponent leaves alone.
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
