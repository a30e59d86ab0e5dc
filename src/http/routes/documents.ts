import { ReadStream } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import send from '@fastify/send';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { QuireError } from '../../core/errors.js';
import type { DocumentService } from '../../operations/documents/document-service.js';
import type { DocumentDescriber } from '../../operations/documents/describe.js';
import { activeVersion } from '../../operations/documents/versions.js';
import type { DocumentRecord } from '../../storage/document-store.js';
import { declaredFileSize, receiveSingleFile } from '../multipart.js';
import { DocumentFile, DocumentRename, documentFileText, toDocumentFile, UploadBodyDoc, UploadQuery } from '../schemas/documents.js';
import { HistoryEntry, HistoryEntryUpdate, HistoryParams, toHistoryEntry } from '../schemas/history.js';
import { attachment, seeDocumentInfo } from '../replies.js';
import { ResponseFileStream } from '../response-file-stream.js';
import { DocumentIdParams, ref } from '../schemas/shared.js';

const tags = ['documents'];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Request body shown in the OpenAPI document for routes that parse their body by hand. */
    documentedBody?: { contentType: string; schema: unknown };
  }
}

/** The session's document storage (webPDF §4): upload, replace, information, lists, download, rename, history, delete. */
export const documentRoutes: FastifyPluginAsyncTypebox<{ documents: DocumentService; describer: DocumentDescriber; restBase: string }> = async (app, { documents, describer, restBase }) => {
  /** Lists report what is known without inspecting every document anew. */
  const listed = (records: DocumentRecord[]) => Promise.all(records.map(async (r) => toDocumentFile(r, documents.isLocked(r), await describer.describe(r, { cachedMetadataOnly: true }))));

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
      onRequest: async (request) => documents.precheck(request.session!, declaredFileSize(request)),
    },
    async (request, reply) => {
      const session = request.session!;
      const received = await receiveSingleFile(
        request,
        (file, clientFileName) => documents.upload(session, file, { clientFileName, history: request.query.history }),
        (record) => documents.delete(session, record.id),
      );
      let record = received.result;
      // A `name` part after the file part names a file whose part carried no filename.
      if (!received.clientFileName && received.nameField) {
        record = await documents.rename(session, record.id, received.nameField, { hasExtension: true });
      }
      return seeDocumentInfo(reply as FastifyReply, restBase, record.id);
    },
  );

  app.put(
    '/documents/:documentId',
    {
      config: { documentedBody: { contentType: 'multipart/form-data', schema: UploadBodyDoc } },
      schema: {
        tags,
        operationId: 'updateContent',
        summary: 'Replace the content of a document (multipart part `filedata`); same documentId, a new history entry in history mode',
        params: DocumentIdParams,
        response: { 303: Type.Null({ description: 'Location: the DocumentFile of the document' }) },
      },
      onRequest: async (request) => {
        const session = request.session!;
        const params = request.params as { documentId: string };
        await documents.precheck(session, declaredFileSize(request), await documents.info(session, params.documentId));
      },
    },
    async (request, reply) => {
      const session = request.session!;
      const { documentId } = request.params;
      await receiveSingleFile(
        request,
        (file, clientFileName) => documents.replaceContent(session, documentId, file, clientFileName),
        async () => undefined, // a refused second part leaves the replaced content: the client asked for it
      );
      return seeDocumentInfo(reply as FastifyReply, restBase, documentId);
    },
  );

  app.post(
    '/documents/:documentId/update',
    {
      schema: {
        tags,
        operationId: 'renameDocument',
        summary: 'Rename a document (only fileName, without extension, changes)',
        params: DocumentIdParams,
        body: DocumentRename,
        response: { 200: ref(DocumentFile) },
      },
    },
    async (request) => {
      const record = await documents.rename(request.session!, request.params.documentId, request.body.fileName, { hasExtension: false });
      return toDocumentFile(record, documents.isLocked(record));
    },
  );

  app.get(
    '/documents/:documentId/history',
    {
      schema: {
        tags,
        operationId: 'getDocumentHistoryList',
        summary: 'The states of a document kept in history mode (empty without history mode)',
        params: DocumentIdParams,
        response: { 200: Type.Array(ref(HistoryEntry)) },
      },
    },
    async (request) => {
      const record = await documents.info(request.session!, request.params.documentId);
      return documents.history(record).map((version) => toHistoryEntry(record, version));
    },
  );

  app.get(
    '/documents/:documentId/history/:historyId',
    {
      schema: {
        tags,
        operationId: 'getHistoryEntry',
        summary: 'One state of a document kept in history mode',
        params: HistoryParams,
        response: { 200: ref(HistoryEntry) },
      },
    },
    async (request) => {
      const record = await documents.info(request.session!, request.params.documentId);
      return toHistoryEntry(record, documents.historyEntry(record, request.params.historyId));
    },
  );

  app.put(
    '/documents/:documentId/history/:historyId',
    {
      schema: {
        tags,
        operationId: 'updateHistoryEntry',
        summary: 'Relabel a history entry, or set active: true to revert the document to that state',
        params: HistoryParams,
        body: HistoryEntryUpdate,
        response: { 200: ref(HistoryEntry) },
      },
    },
    async (request) => {
      const { documentId, historyId } = request.params;
      const record = await documents.updateHistory(request.session!, documentId, historyId, request.body);
      return toHistoryEntry(record, documents.historyEntry(record, historyId));
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
    async (request) => listed(await documents.list(request.session!)),
  );

  app.get(
    '/documents/list/:parentDocumentId',
    {
      schema: {
        tags,
        operationId: 'getDocumentInfoListWithParentId',
        summary: 'The documents created from another one (e.g. extracted from an archive)',
        params: Type.Object({ parentDocumentId: Type.String() }),
        response: { 200: Type.Array(ref(DocumentFile)) },
      },
    },
    async (request) => listed(await documents.list(request.session!, request.params.parentDocumentId)),
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
      // documentFileText builds exactly the schema's members (toDocumentFile's type is the schema's
      // Static<>) as text, its metadata serialized once per content file: fast-json-stringify takes
      // its slow generic path on the open metadata object, and stringifying it on every call was
      // ~10 % of the most frequent call's CPU. The schema still documents the answer.
      serializerCompiler: () => JSON.stringify,
    },
    async (request, reply) => {
      const record = await documents.info(request.session!, request.params.documentId);
      const text = documentFileText(record, documents.isLocked(record), await describer.describe(record));
      // Text the schema's type cannot describe: sent through the untyped reply.
      return (reply as FastifyReply).header('content-type', 'application/json; charset=utf-8').send(text);
    },
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
      });
      if (result.type === 'error') {
        const status = (result.metadata.error as { status?: number }).status ?? 500;
        if (status === 404) throw new QuireError('DOCUMENT_NOT_FOUND', `The document "${record.id}" was deleted.`);
        if (status === 416) throw new QuireError('PARAMETER', 'The requested range is not satisfiable.');
        throw result.metadata.error;
      }
      const { fileExtension, mimeType } = activeVersion(record);
      const fileName = `${record.fileName}${fileExtension ? `.${fileExtension}` : ''}`;
      const raw = reply as FastifyReply;
      raw.code(result.statusCode).headers(result.headers);
      if (result.statusCode !== 304) raw.header('content-type', mimeType);
      return raw
        .header('content-disposition', attachment(fileName))
        .header('cache-control', 'private, no-cache')
        .send(reusingBuffers(result.stream, Number(result.headers['content-length']), raw.raw));
    },
  );

  app.delete('/documents/:documentId', { schema: { tags, operationId: 'deleteDocument', summary: 'Delete the document', params: DocumentIdParams } }, async (request, reply) => {
    await documents.delete(request.session!, request.params.documentId);
    return reply.code(200).send();
  });
};

/**
 * send's body (the file's range, `length` bytes) read into reused buffers instead
 * (response-file-stream.ts says why); send's own stream is closed before it reads. The empty bodies of
 * HEAD and 304 stay as they are.
 */
function reusingBuffers(body: Readable, length: number, response: ServerResponse): Readable {
  if (!(body instanceof ReadStream) || typeof body.path !== 'string' || !(length > 0)) return body;
  const start = (body as ReadStream & { start?: number }).start ?? 0;
  const file = body.path;
  body.destroy();
  return new ResponseFileStream(file, start, start + length - 1, response);
}
