import { createReadStream } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { QuireError } from '../../core/errors.js';
import { zipName, type DocumentArchives } from '../../operations/documents/archives.js';
import type { KeyPairCredentials } from '../../operations/documents/credentials.js';
import type { DocumentDescriber } from '../../operations/documents/describe.js';
import type { DocumentService } from '../../operations/documents/document-service.js';
import type { DocumentProtection } from '../../operations/documents/protection.js';
import { attachment, seeDocumentInfo } from '../replies.js';
import { FileCompress, FileExtract, InfoForm, PdfPassword } from '../schemas/document-operations.js';
import { DocumentFile, toDocumentFile } from '../schemas/documents.js';
import { DocumentIdParams, ref } from '../schemas/shared.js';

const tags = ['documents'];

export interface DocumentOperations {
  documents: DocumentService;
  describer: DocumentDescriber;
  protection: DocumentProtection;
  archives: DocumentArchives;
  restBase: string;
}

/** Protected PDFs, form information and archives of the session storage (webPDF §4.2). */
export const documentOperationRoutes: FastifyPluginAsyncTypebox<DocumentOperations> = async (app, ops) => {
  const { documents, describer, protection, archives, restBase } = ops;

  app.put(
    '/documents/:documentId/security/password',
    {
      schema: {
        tags,
        operationId: 'updateDocumentSecurity',
        summary: 'Supply the password or key pair of a protected PDF; error 0 when it opens the document (then remembered), -5008 when wrong',
        params: DocumentIdParams,
        body: ref(PdfPassword),
        response: { 200: ref(DocumentFile) },
      },
    },
    async (request) => {
      const { open, permission, keyPair } = request.body;
      const supplied = { open, permission, keyPair: keyPair ? readKeyPair(keyPair) : undefined };
      const { record, result } = await protection.supply(request.session!, request.params.documentId, supplied);
      const description = await describer.describe(record);
      // The answer to this call is the check itself: a wrong password shows -5008 here, not the stored state.
      return toDocumentFile(record, documents.isLocked(record), { ...description, error: result.errorCode === 0 ? description.error : result });
    },
  );

  app.get(
    '/documents/:documentId/info/:details',
    {
      schema: {
        tags,
        operationId: 'getDocumentInfoDetails',
        summary: 'Details of a document: `form` gives its AcroForm fields and form data',
        params: Type.Object({ documentId: Type.String(), details: Type.Enum(['form']) }),
        response: { 200: ref(InfoForm) },
      },
    },
    async (request) => protection.formInfo(request.session!, request.params.documentId),
  );

  app.post(
    '/documents/compress',
    {
      schema: {
        tags,
        operationId: 'compressDocument',
        summary: 'ZIP documents of the session. Accept: application/octet-stream answers the ZIP bytes; application/json stores it and answers its DocumentFile',
        body: ref(FileCompress),
        produces: ['application/json', 'application/octet-stream'],
        response: {
          200: Type.String({ format: 'binary', description: 'the ZIP (Accept: application/octet-stream)' }),
          303: Type.Null({ description: 'Location: the DocumentFile of the stored archive (Accept: application/json)' }),
        },
      },
    },
    async (request, reply) => {
      const session = request.session!;
      const body = request.body;
      const records = await archives.select(session, body);
      const archiveFileName = zipName(body.archiveFileName ?? 'archive.zip');
      const raw = reply as FastifyReply;
      if (wantsBytes(request.headers.accept) && !body.storeArchive) {
        // Refuse before the first byte what would fail later; then stream the ZIP straight into the
        // response, never holding it in memory or on disk.
        const locked = records.find((r) => documents.isLocked(r));
        if (locked) throw new QuireError('DOCUMENT_LOCKED', `The document "${locked.id}" is in use by another operation.`);
        const zip = new PassThrough();
        archives.compressTo(session, records, zip).catch((error: unknown) => {
          request.log.error({ err: error }, 'streaming an archive failed');
          zip.destroy(error as Error);
        });
        return raw.code(200).header('content-type', 'application/octet-stream').header('content-disposition', attachment(archiveFileName)).send(zip);
      }
      const stored = await archives.compressToDocument(session, records, archiveFileName);
      if (wantsBytes(request.headers.accept)) {
        const { file } = await documents.content(session, stored.id);
        return raw
          .code(200)
          .header('content-type', 'application/octet-stream')
          .header('content-disposition', attachment(archiveFileName))
          .header('content-length', String(file.size))
          .send(createReadStream(file.path));
      }
      return seeDocumentInfo(raw, restBase, stored.id);
    },
  );

  app.post(
    '/documents/:documentId/extract',
    {
      schema: {
        tags,
        operationId: 'extractDocument',
        summary: 'Extract members of a stored ZIP into new documents (parentDocumentId = the archive)',
        params: DocumentIdParams,
        body: ref(FileExtract),
        response: { 200: Type.Array(ref(DocumentFile)) },
      },
    },
    async (request) => {
      const created = await archives.extract(request.session!, request.params.documentId, request.body.fileFilter);
      return created.map((record) => toDocumentFile(record, documents.isLocked(record)));
    },
  );

  app.get(
    '/documents/:documentId/archive/*',
    {
      config: { wildcardName: 'archivePath' },
      schema: {
        tags,
        operationId: 'getDocumentFromArchive',
        summary: 'One member of a stored ZIP by its path inside the archive (may contain /)',
        params: Type.Object({ documentId: Type.String(), '*': Type.String({ description: 'archivePath' }) }),
        produces: ['application/octet-stream'],
        response: { 200: Type.String({ format: 'binary' }) },
      },
    },
    async (request, reply) => {
      const memberPath = request.params['*'];
      if (!memberPath) throw new QuireError('PARAMETER', 'Invalid parameter archivePath: must name a member of the archive.');
      const { entry, stream } = await archives.member(request.session!, request.params.documentId, memberPath);
      return (reply as FastifyReply)
        .code(200)
        .header('content-type', 'application/octet-stream')
        .header('content-length', String(entry.size))
        .header('content-disposition', attachment(path.posix.basename(entry.path)))
        .send(stream);
    },
  );
};

/** The clients ask for the archive bytes with Accept: application/octet-stream (the default is JSON). */
function wantsBytes(accept: string | undefined): boolean {
  return typeof accept === 'string' && /application\/octet-stream|application\/zip/i.test(accept) && !/application\/json/i.test(accept);
}

/** Key material as Operation_KeyPair carries it: PEM text, or Base64 of PEM or DER, inline. */
function readKeyPair(keyPair: {
  certificate: { source?: string; value?: string; uri?: string };
  privateKey: { source?: string; value?: string; uri?: string; password?: string };
}): KeyPairCredentials {
  const material = (field: string, data: { source?: string; value?: string }): string | Buffer => {
    if (data.source === 'uri') {
      throw new QuireError('PARAMETER', `Invalid parameter keyPair.${field}.source: "uri" is not supported; send the key material in value.`);
    }
    const value = (data.value ?? '').trim();
    if (value === '') throw new QuireError('PARAMETER', `Invalid parameter keyPair.${field}.value: must hold the PEM text.`);
    if (value.includes('-----BEGIN')) return value;
    const bytes = Buffer.from(value, 'base64');
    const text = bytes.toString('latin1');
    return text.includes('-----BEGIN') ? text : bytes; // Base64 of PEM, or of DER
  };
  return {
    certificate: material('certificate', keyPair.certificate),
    privateKey: material('privateKey', keyPair.privateKey),
    privateKeyPassword: keyPair.privateKey.password || undefined,
  };
}
