import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Limits } from '../../config/load.js';
import { QuireError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { KeyedSerializer } from '../../core/serial.js';
import { detectFormat, documentNames } from '../../engines/format/detect-format.js';
import type { Session } from '../../sessions/session.js';
import type { ContentFile, DocumentRecord, DocumentStore, StorageUsage } from '../../storage/document-store.js';
import { QuotaReservations } from './quota.js';

export interface UploadOptions {
  clientFileName: string | undefined;
  history: boolean;
}

/** Which session may do what: the document service asks this instead of importing the session layer. */
export interface SessionGate {
  limitsFor(session: Pick<Session, 'kind'>): Limits;
  isLive(sessionId: string): Promise<boolean>;
}

/**
 * The document storage of a session: upload (streamed to disk, limits enforced while the bytes
 * arrive), information, listing, download and deletion. Every lookup is scoped to the caller's
 * session, so one session can never reach another's documents.
 */
export class DocumentService {
  private readonly quota = new QuotaReservations();
  private readonly commits = new KeyedSerializer();

  constructor(
    private readonly store: DocumentStore,
    private readonly gate: SessionGate,
  ) {}

  /** Refuses early what can be refused before reading the body: a declared size past the limits, or no free slot. */
  async precheck(session: Session, declaredSize: number | undefined): Promise<void> {
    const limits = this.gate.limitsFor(session);
    const usage = await this.store.usage(session.id);
    if (limits.maxFiles > 0 && usage.files + this.quota.pendingFiles(session.id) >= limits.maxFiles) {
      throw new QuireError('MAX_FILES', `The session already holds its limit of ${limits.maxFiles} documents.`);
    }
    if (declaredSize === undefined) return;
    if (limits.uploadLimit > 0 && declaredSize > limits.uploadLimit) {
      throw uploadLimitError(limits.uploadLimit);
    }
    if (limits.diskSpaceLimit > 0 && usage.bytes + this.quota.reservedBytes(session.id) + declaredSize > limits.diskSpaceLimit) {
      throw diskSpaceError(limits.diskSpaceLimit);
    }
  }

  async upload(session: Session, source: Readable, options: UploadOptions): Promise<DocumentRecord> {
    const limits = this.gate.limitsFor(session);
    // Reserve first, then count: concurrent uploads each see the others' reservations and cannot overrun maxFiles together.
    const reservation = this.quota.reserve(session.id);
    const temp = this.store.tempPath();
    const store = this.store;
    try {
      const usage = await store.usage(session.id);
      if (limits.maxFiles > 0 && usage.files + this.quota.pendingFiles(session.id) > limits.maxFiles) {
        throw new QuireError('MAX_FILES', `The session already holds its limit of ${limits.maxFiles} documents.`);
      }
      await pipeline(
        source,
        async function* meter(chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            reservation.add(chunk.length);
            if (limits.uploadLimit > 0 && reservation.bytes > limits.uploadLimit) throw uploadLimitError(limits.uploadLimit);
            // Stored bytes are read afresh: uploads of the session that finished meanwhile count too.
            if (limits.diskSpaceLimit > 0 && (await store.usage(session.id)).bytes + reservation.sessionTotal() > limits.diskSpaceLimit) {
              throw diskSpaceError(limits.diskSpaceLimit);
            }
            yield chunk;
          }
        },
        createWriteStream(temp, { highWaterMark: 1024 * 1024 }),
      );
      const type = await detectFormat(temp, options.clientFileName);
      const { fileName, fileExtension } = documentNames(options.clientFileName, type);
      const now = Date.now();
      const record: DocumentRecord = {
        id: newId(),
        sessionId: session.id,
        fileName,
        fileExtension,
        fileTypeId: type.id,
        mimeType: type.mimeType,
        fileTypeGroups: [...type.groups],
        size: reservation.bytes,
        lastModified: now,
        createdAt: now,
        parentId: '',
        history: options.history,
        historyId: options.history ? 1 : 0,
      };
      await this.commits.run(session.id, async () => {
        // The final word, taken one upload at a time per session: the limits against what is stored now.
        const stored = await store.usage(session.id);
        if (limits.maxFiles > 0 && stored.files + 1 > limits.maxFiles) {
          throw new QuireError('MAX_FILES', `The session already holds its limit of ${limits.maxFiles} documents.`);
        }
        if (limits.diskSpaceLimit > 0 && stored.bytes + record.size > limits.diskSpaceLimit) throw diskSpaceError(limits.diskSpaceLimit);
        // A logout during the upload deleted the session's storage: do not bring a document back into it.
        if (!(await this.gate.isLive(session.id))) throw new QuireError('SESSION_NOT_FOUND', 'The session ended during the upload.');
        await store.add(record, temp);
      });
      return record;
    } catch (error) {
      await rm(temp, { force: true });
      if (error instanceof QuireError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_STREAM_PREMATURE_CLOSE' || /terminated early|Unexpected end/i.test((error as Error).message)) {
        throw new QuireError('UPLOAD_MALFORMED', 'The upload was cut off before the file ended.', { cause: error });
      }
      throw error;
    } finally {
      reservation.release();
    }
  }

  /** Files and bytes a session stores (for administration). */
  async usage(sessionId: string): Promise<StorageUsage> {
    return this.store.usage(sessionId);
  }

  async info(session: Session, documentId: string): Promise<DocumentRecord> {
    const record = await this.store.get(session.id, documentId);
    if (!record) throw notFound(documentId);
    return record;
  }

  async list(session: Session): Promise<DocumentRecord[]> {
    return (await this.store.list(session.id)).sort((a, b) => a.createdAt - b.createdAt);
  }

  async content(session: Session, documentId: string): Promise<{ record: DocumentRecord; file: ContentFile }> {
    const record = await this.info(session, documentId);
    const file = await this.store.content(session.id, documentId);
    if (!file) throw notFound(documentId);
    return { record, file };
  }

  async delete(session: Session, documentId: string): Promise<void> {
    if (!(await this.store.delete(session.id, documentId))) throw notFound(documentId);
  }

  async rename(session: Session, documentId: string, fileName: string): Promise<DocumentRecord> {
    const record = await this.info(session, documentId);
    const renamed = { ...record, fileName };
    await this.store.update(renamed);
    return renamed;
  }
}

function notFound(documentId: string): QuireError {
  return new QuireError('DOCUMENT_NOT_FOUND', `No document with id "${documentId}" exists in this session.`);
}

function uploadLimitError(limit: number): QuireError {
  return new QuireError('UPLOAD_LIMIT', `The upload exceeds the session's upload limit of ${limit} bytes.`);
}

function diskSpaceError(limit: number): QuireError {
  return new QuireError('DISK_SPACE_LIMIT', `Storing the upload would exceed the session's disk space limit of ${limit} bytes.`);
}
