import { createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Limits } from '../../config/load.js';
import { QuireError } from '../../core/errors.js';
import { UNKNOWN_FILE_TYPE, type FileType } from '../../core/file-types.js';
import { newId } from '../../core/ids.js';
import { KeyedSerializer } from '../../core/serial.js';
import { detectFormat, documentNames, sanitizeClientFileName } from '../../engines/format/detect-format.js';
import type { Session } from '../../sessions/session.js';
import { activeVersion, type ContentFile, type DocumentRecord, type DocumentStore, type DocumentVersion, diskSpaceError, maxFilesError, type StorageUsage } from '../../storage/document-store.js';
import { discardPartialFile } from '../../storage/atomic.js';
import type { DocumentLocks } from '../../storage/document-locks.js';
import { LocalDocumentLocks } from './locks.js';
import { QuotaReservations, type Reservation } from './quota.js';

export interface UploadOptions {
  clientFileName: string | undefined;
  history: boolean;
  /** Set for documents created from another one (archive extraction). */
  parentId?: string;
}

/** Which session may do what: the document service asks this instead of importing the session layer. */
export interface SessionGate {
  limitsFor(session: Pick<Session, 'kind'>): Limits;
  isLive(sessionId: string): Promise<boolean>;
}

/** The global free-disk floor (storage/disk-floor): throws INSUFFICIENT_STORAGE below it. */
export interface SpaceGate {
  ensure(): Promise<void>;
}

/** Content received into a temporary file, with its detected type. */
interface Received {
  temp: string;
  size: number;
  type: FileType;
}

/**
 * The document storage of a session: upload and content replacement (streamed to disk, limits
 * enforced while the bytes arrive), information, listing, download, rename, history and deletion.
 * Every lookup is scoped to the caller's session, so one session can never reach another's documents.
 */
export class DocumentService {
  private readonly quota = new QuotaReservations();
  private readonly commits = new KeyedSerializer();

  constructor(
    private readonly store: DocumentStore,
    private readonly gate: SessionGate,
    private readonly space: SpaceGate = { ensure: async () => undefined },
    /** The embedded locks by default; the cluster's lease in Redis in cluster mode (stores-wiring.ts). */
    readonly locks: DocumentLocks = new LocalDocumentLocks(),
  ) {}

  /** Refuses INSUFFICIENT_STORAGE when the data disk is below its floor: operations call it before work whose result is stored. */
  async ensureFreeSpace(): Promise<void> {
    await this.space.ensure();
  }

  /** Refuses early what can be refused before reading the body: a declared size past the limits, no free slot, a full disk. */
  async precheck(session: Session, declaredSize: number | undefined, replacing?: DocumentRecord): Promise<void> {
    await this.space.ensure();
    const limits = this.gate.limitsFor(session);
    const usage = await this.store.usage(session.id);
    if (!replacing && limits.maxFiles > 0 && usage.files + this.quota.pendingFiles(session.id) >= limits.maxFiles) {
      throw maxFilesError(limits.maxFiles);
    }
    if (declaredSize === undefined) return;
    if (limits.uploadLimit > 0 && declaredSize > limits.uploadLimit) throw uploadLimitError(limits.uploadLimit);
    const freed = replacing && !replacing.history ? activeVersion(replacing).size : 0;
    if (limits.diskSpaceLimit > 0 && usage.bytes - freed + this.quota.reservedBytes(session.id) + declaredSize > limits.diskSpaceLimit) {
      throw diskSpaceError(limits.diskSpaceLimit);
    }
  }

  async upload(session: Session, source: Readable, options: UploadOptions): Promise<DocumentRecord> {
    const limits = this.gate.limitsFor(session);
    // Reserve first, then count: concurrent uploads each see the others' reservations and cannot overrun maxFiles together.
    const reservation = this.quota.reserve(session.id);
    let received: Received | undefined;
    try {
      const usage = await this.store.usage(session.id);
      if (limits.maxFiles > 0 && usage.files + this.quota.pendingFiles(session.id) > limits.maxFiles) throw maxFilesError(limits.maxFiles);
      received = await this.receive(session, source, reservation, limits, 0, options.clientFileName);
      return await this.commitNew(session, received, options);
    } catch (error) {
      if (received) await rm(received.temp, { force: true });
      throw error;
    } finally {
      reservation.release();
    }
  }

  /** A temporary file for content the server makes itself (an archive, an operation's result). */
  tempPath(): string {
    return this.store.tempPath();
  }

  /**
   * Stores a finished temporary file (made by the server, e.g. a ZIP of documents) as a new document,
   * under the same limits as an upload. The file is moved, or deleted when refused.
   */
  async adopt(session: Session, temp: string, size: number, options: UploadOptions): Promise<DocumentRecord> {
    const limits = this.gate.limitsFor(session);
    try {
      if (limits.uploadLimit > 0 && size > limits.uploadLimit) throw uploadLimitError(limits.uploadLimit);
      const received: Received = { temp, size, type: await detectFormat(temp, options.clientFileName) };
      return await this.commitNew(session, received, options);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  private async commitNew(session: Session, received: Received, options: UploadOptions): Promise<DocumentRecord> {
    const limits = this.gate.limitsFor(session);
    const { fileName, fileExtension } = documentNames(options.clientFileName, received.type);
    const now = Date.now();
    const version = this.newVersion(options.history ? 1 : 0, '', fileName, fileExtension, received, now);
    const record: DocumentRecord = {
      id: newId(),
      sessionId: session.id,
      fileName,
      parentId: options.parentId ?? '',
      createdAt: now,
      lastModified: now,
      history: options.history,
      activeVersion: version.id,
      versions: [version],
    };
    await this.commits.run(session.id, async () => {
      // The final word, taken one commit at a time per session: the limits against what is stored now.
      await this.space.ensure();
      const stored = await this.store.usage(session.id);
      if (limits.maxFiles > 0 && stored.files + 1 > limits.maxFiles) throw maxFilesError(limits.maxFiles);
      if (limits.diskSpaceLimit > 0 && stored.bytes + version.size > limits.diskSpaceLimit) throw diskSpaceError(limits.diskSpaceLimit);
      await this.ensureLive(session);
      // The check above is serialised on this node only: a cluster store repeats it atomically with the add.
      await this.store.add(record, received.temp, limits);
    });
    return record;
  }

  /** Holds the locks of several documents at once (all or none), e.g. while they are zipped. */
  async withLocks<T>(session: Session, documentIds: readonly string[], task: () => Promise<T>): Promise<T> {
    const [first, ...rest] = [...new Set(documentIds)];
    if (first === undefined) return task();
    return this.locks.with(session.id, first, () => this.withLocks(session, rest, task));
  }

  /** The limits of the session (for operations that check them before they start). */
  limitsOf(session: Session): Limits {
    return this.gate.limitsFor(session);
  }

  /** `PUT documents/{id}`: new content for the same document (a new history state in history mode). */
  async replaceContent(session: Session, documentId: string, source: Readable, clientFileName: string | undefined): Promise<DocumentRecord> {
    const record = await this.info(session, documentId);
    return this.locks.with(session.id, documentId, async () => {
      const limits = this.gate.limitsFor(session);
      const reservation = this.quota.reserve(session.id, false);
      let received: Received | undefined;
      try {
        const freed = record.history ? 0 : activeVersion(record).size;
        received = await this.receive(session, source, reservation, limits, freed, clientFileName);
        const extension = clientFileName?.includes('.') ? clientFileName.slice(clientFileName.lastIndexOf('.')) : '';
        const { fileExtension } = documentNames(`${record.fileName}${extension}`, received.type);
        return await this.commitContent(session, documentId, received, 'documents:update', fileExtension);
      } catch (error) {
        if (received) await rm(received.temp, { force: true });
        throw error;
      } finally {
        reservation.release();
      }
    });
  }

  /**
   * Makes a finished temporary file (an operation's result, in the store's tmp directory) the
   * document's new content: a new history state in history mode. The caller holds the document's
   * lock. The file is moved, or deleted when the limits refuse it; the stored document is untouched
   * on any failure.
   */
  async commitResult(session: Session, documentId: string, temp: string, operation: string, producedType?: FileType): Promise<DocumentRecord> {
    try {
      const { size } = await stat(temp);
      // The server made this file: the producer knows its type (content cannot tell JSON from text,
      // and sniffing a ZIP of 1,000 parts costs more than the split).
      const type = producedType && producedType.key !== 'unknown' ? producedType : await detectFormat(temp, undefined);
      const limits = this.gate.limitsFor(session);
      if (limits.uploadLimit > 0 && size > limits.uploadLimit) throw uploadLimitError(limits.uploadLimit);
      return await this.commitContent(session, documentId, { temp, size, type }, operation, type.extension);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  /** Files and bytes a session stores (for administration). */
  async usage(sessionId: string): Promise<StorageUsage> {
    return this.store.usage(sessionId);
  }

  /** Only the session's id is read: recovery of queued jobs has the id of the session, not the session. */
  async info(session: Pick<Session, 'id'>, documentId: string): Promise<DocumentRecord> {
    const record = await this.store.get(session.id, documentId);
    if (!record) throw notFound(documentId);
    return record;
  }

  isLocked(record: DocumentRecord): boolean {
    return this.locks.isLocked(record.sessionId, record.id);
  }

  async list(session: Session, parentId?: string): Promise<DocumentRecord[]> {
    const all = await this.store.list(session.id);
    const selected = parentId === undefined ? all : all.filter((r) => r.parentId === parentId);
    return selected.sort((a, b) => a.createdAt - b.createdAt);
  }

  async content(session: Session, documentId: string): Promise<{ record: DocumentRecord; file: ContentFile }> {
    const record = await this.info(session, documentId);
    const file = await this.store.content(session.id, documentId);
    if (!file) throw notFound(documentId);
    return { record, file };
  }

  async delete(session: Session, documentId: string): Promise<void> {
    await this.info(session, documentId);
    await this.locks.with(session.id, documentId, async () => {
      if (!(await this.store.delete(session.id, documentId))) throw notFound(documentId);
    });
  }

  /**
   * Changes the display name; content, type and history stay. The client's name is display data only:
   * it is cleaned like an upload's file name, and with `hasExtension` its extension is dropped.
   */
  async rename(session: Session, documentId: string, clientName: string, options: { hasExtension: boolean }): Promise<DocumentRecord> {
    const fileName = options.hasExtension ? documentNames(clientName, UNKNOWN_FILE_TYPE).fileName : sanitizeClientFileName(clientName);
    if (fileName === '') throw new QuireError('PARAMETER', 'Invalid parameter body.fileName: must not be empty.');
    return this.commits.run(session.id, async () => {
      const record = await this.info(session, documentId);
      const renamed: DocumentRecord = { ...record, fileName, lastModified: Date.now() };
      await this.store.update(renamed);
      return renamed;
    });
  }

  history(record: DocumentRecord): DocumentVersion[] {
    return record.history ? record.versions : [];
  }

  historyEntry(record: DocumentRecord, historyId: number): DocumentVersion {
    const version = record.history ? record.versions.find((v) => v.id === historyId) : undefined;
    if (!version) {
      throw new QuireError(
        'HISTORY_NOT_FOUND',
        record.history ? `The document "${record.id}" has no history entry ${historyId}.` : `The document "${record.id}" was not stored in history mode; it has no history.`,
      );
    }
    return version;
  }

  /** Relabels a history entry and/or makes it the active state again (content and type come back). */
  async updateHistory(session: Session, documentId: string, historyId: number, change: { operation?: string; active?: boolean }): Promise<DocumentRecord> {
    const record = await this.info(session, documentId);
    this.historyEntry(record, historyId);
    return this.locks.with(session.id, documentId, () =>
      this.commits.run(session.id, async () => {
        const current = await this.info(session, documentId);
        const versions = current.versions.map((v) => (v.id === historyId && change.operation !== undefined ? { ...v, operation: change.operation } : v));
        const activate = change.active === true && current.activeVersion !== historyId;
        const next: DocumentRecord = {
          ...current,
          versions,
          activeVersion: activate ? historyId : current.activeVersion,
          lastModified: activate ? Date.now() : current.lastModified,
        };
        await this.store.update(next);
        return next;
      }),
    );
  }

  /** Streams content into a temporary file, enforcing the limits as bytes arrive, and detects its type. */
  private async receive(session: Session, source: Readable, reservation: Reservation, limits: Limits, freedBytes: number, clientFileName: string | undefined): Promise<Received> {
    const temp = this.store.tempPath();
    const store = this.store;
    const space = this.space;
    // 256 KiB of written-ahead chunks: with 1 MiB the 1 GiB upload's peak RSS was 149.6–151.1 MB against
    // the 150 MB budget, with 256 KiB 146.4 at the same throughput (`npm run bench -- --only=transfer`).
    const sink = createWriteStream(temp, { highWaterMark: 256 * 1024 });
    try {
      await pipeline(
        source,
        async function* meter(chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            await space.ensure(); // cached: a statfs at most once a second
            reservation.add(chunk.length);
            if (limits.uploadLimit > 0 && reservation.bytes > limits.uploadLimit) throw uploadLimitError(limits.uploadLimit);
            // Stored bytes are read afresh: uploads of the session that finished meanwhile count too.
            if (limits.diskSpaceLimit > 0 && (await store.usage(session.id)).bytes - freedBytes + reservation.sessionTotal() > limits.diskSpaceLimit) {
              throw diskSpaceError(limits.diskSpaceLimit);
            }
            yield chunk;
          }
        },
        sink,
      );
      return { temp, size: reservation.bytes, type: await detectFormat(temp, clientFileName) };
    } catch (error) {
      await discardPartialFile(sink, temp);
      if (error instanceof QuireError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_STREAM_PREMATURE_CLOSE' || /terminated early|Unexpected end/i.test((error as Error).message)) {
        throw new QuireError('UPLOAD_MALFORMED', 'The upload was cut off before the file ended.', { cause: error });
      }
      throw error;
    }
  }

  /**
   * Makes received content the document's new state: a new history entry in history mode, otherwise
   * a replacement whose old content file is deleted. The caller holds the document's lock.
   */
  private async commitContent(session: Session, documentId: string, received: Received, operation: string, fileExtension: string): Promise<DocumentRecord> {
    const limits = this.gate.limitsFor(session);
    return this.commits.run(session.id, async () => {
      const current = await this.info(session, documentId);
      await this.space.ensure();
      const freed = current.history ? 0 : activeVersion(current).size;
      const stored = await this.store.usage(session.id);
      if (limits.diskSpaceLimit > 0 && stored.bytes - freed + received.size > limits.diskSpaceLimit) throw diskSpaceError(limits.diskSpaceLimit);
      await this.ensureLive(session);
      const now = Date.now();
      const id = current.history ? Math.max(...current.versions.map((v) => v.id)) + 1 : 0;
      const version = this.newVersion(id, operation, current.fileName, fileExtension, received, now);
      const next: DocumentRecord = {
        ...current,
        lastModified: now,
        activeVersion: id,
        versions: current.history ? [...current.versions, version] : [version],
      };
      await this.store.update(next, received.temp, limits);
      return next;
    });
  }

  private newVersion(id: number, operation: string, fileName: string, fileExtension: string, received: Received, now: number): DocumentVersion {
    return {
      id,
      operation,
      fileName,
      fileExtension,
      fileTypeId: received.type.id,
      mimeType: received.type.mimeType,
      fileTypeGroups: [...received.type.groups],
      size: received.size,
      createdAt: now,
      file: this.store.contentFileName(),
    };
  }

  /** A logout during a transfer deleted the session's storage: do not bring a document back into it. */
  private async ensureLive(session: Session): Promise<void> {
    if (!(await this.gate.isLive(session.id))) throw new QuireError('SESSION_NOT_FOUND', 'The session ended during the transfer.');
  }
}

function notFound(documentId: string): QuireError {
  return new QuireError('DOCUMENT_NOT_FOUND', `No document with id "${documentId}" exists in this session.`);
}

function uploadLimitError(limit: number): QuireError {
  return new QuireError('UPLOAD_LIMIT', `The upload exceeds the session's upload limit of ${limit} bytes.`);
}
