import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Config } from '../../config/load.js';
import { QuireError } from '../../core/errors.js';
import { compileFilter, extractEntries, openEntry, uniqueEntryNames, writeZip, type ArchiveEntry, type ArchiveLimits, type FileFilter } from '../../engines/archive/index.js';
import type { Session } from '../../sessions/session.js';
import { activeVersion, type DocumentRecord, type DocumentStore } from '../../storage/document-store.js';
import { discardPartialFile } from '../../storage/atomic.js';
import type { DocumentService } from './document-service.js';
import { fromEngine } from '../engine-errors.js';

/** webPDF `Document_FileCompress`. */
export interface CompressRequest {
  documentIdList?: string[];
  fileFilter?: FileFilter;
  archiveFileName?: string;
  storeArchive?: boolean;
}

/**
 * Archives in the session storage: ZIPs of documents (streamed, never held in memory), extraction of
 * a stored ZIP into new documents, and reading one member. Every ZIP read is guarded against bombs,
 * unsafe member paths, absurd entry counts and (unless allowed) nested archives, and bounded by the
 * session's limits.
 */
export class DocumentArchives {
  constructor(
    private readonly documents: DocumentService,
    private readonly store: DocumentStore,
    private readonly settings: Config['documents']['archive'],
  ) {}

  /** The documents a compress request names by id and/or selects by filter (additive), in storage order. */
  async select(session: Session, request: CompressRequest): Promise<DocumentRecord[]> {
    const all = await this.documents.list(session);
    const chosen = new Set<string>();
    for (const id of request.documentIdList ?? []) chosen.add((await this.documents.info(session, id)).id);
    if (request.fileFilter) {
      const selected = this.compile(request.fileFilter).select(all.map(displayName));
      all.forEach((record, index) => {
        if (selected[index]) chosen.add(record.id);
      });
    }
    const selected = all.filter((r) => chosen.has(r.id));
    if (selected.length === 0) {
      throw new QuireError('PARAMETER', 'Invalid parameter documentIdList/fileFilter: no document of the session is selected.');
    }
    return selected;
  }

  /** Streams a ZIP of the documents into `destination`; the documents stay locked meanwhile. */
  async compressTo(session: Session, records: DocumentRecord[], destination: Writable): Promise<void> {
    await this.documents.withLocks(
      session,
      records.map((r) => r.id),
      async () => {
        const names = uniqueEntryNames(records.map(displayName));
        const sources = await Promise.all(
          records.map(async (record, index) => {
            const content = await this.store.content(session.id, record.id);
            if (!content) throw new QuireError('DOCUMENT_NOT_FOUND', `The document "${record.id}" was deleted.`);
            return { name: names[index]!, file: content.path, mtime: new Date(record.lastModified) };
          }),
        );
        try {
          await writeZip(sources, destination);
        } catch (error) {
          throw fromEngine(error);
        }
      },
    );
  }

  /** Builds the ZIP in a temporary file and stores it as a new document of the session. */
  async compressToDocument(session: Session, records: DocumentRecord[], archiveFileName: string): Promise<DocumentRecord> {
    const temp = this.documents.tempPath();
    const sink = createWriteStream(temp);
    try {
      await this.compressTo(session, records, sink);
      const { size } = await stat(temp);
      return await this.documents.adopt(session, temp, size, { clientFileName: zipName(archiveFileName), history: false });
    } catch (error) {
      await discardPartialFile(sink, temp);
      throw error;
    }
  }

  /**
   * Extracts the members a filter selects into new documents whose parent is the archive. All or
   * nothing: when a member is refused, the documents made so far are removed again.
   */
  async extract(session: Session, archiveId: string, fileFilter: FileFilter | undefined): Promise<DocumentRecord[]> {
    const { record, file } = await this.documents.content(session, archiveId);
    this.requireZip(record);
    const filter = this.compile(fileFilter);
    return this.documents.withLocks(session, [archiveId], async () => {
      const created: DocumentRecord[] = [];
      try {
        await extractEntries(file.path, {
          filter,
          limits: await this.limitsFor(session),
          onPlan: (entries) => this.checkPlan(session, entries),
          onEntry: async (entry, content) => {
            created.push(
              await this.documents.upload(session, content, {
                clientFileName: path.posix.basename(entry.path),
                history: false,
                parentId: archiveId,
              }),
            );
          },
        });
        return created;
      } catch (error) {
        for (const document of created) await this.documents.delete(session, document.id).catch(() => undefined);
        throw fromEngine(error);
      }
    });
  }

  /** One member of a stored ZIP, by its exact path. */
  async member(session: Session, archiveId: string, memberPath: string): Promise<{ entry: ArchiveEntry; stream: Readable }> {
    const { record, file } = await this.documents.content(session, archiveId);
    this.requireZip(record);
    try {
      return await openEntry(file.path, memberPath, { ...(await this.limitsFor(session)), maxTotalBytes: Number.MAX_SAFE_INTEGER });
    } catch (error) {
      throw fromEngine(error);
    }
  }

  private requireZip(record: DocumentRecord): void {
    if (activeVersion(record).mimeType !== 'application/zip') {
      throw new QuireError('ARCHIVE_REFUSED', `The document "${record.id}" is not a ZIP archive.`);
    }
  }

  private compile(filter: FileFilter | undefined) {
    try {
      return compileFilter(filter);
    } catch (error) {
      throw fromEngine(error);
    }
  }

  /** Engine limits from the configuration and what the session may still store. */
  private async limitsFor(session: Session): Promise<Partial<ArchiveLimits>> {
    const limits = this.documents.limitsOf(session);
    const usage = await this.documents.usage(session.id);
    const unlimited = Number.MAX_SAFE_INTEGER;
    return {
      maxEntries: this.settings.maxEntries,
      maxRatio: this.settings.maxRatio,
      allowNested: this.settings.allowNested,
      maxEntryBytes: limits.uploadLimit > 0 ? limits.uploadLimit : unlimited,
      maxTotalBytes: limits.diskSpaceLimit > 0 ? Math.max(0, limits.diskSpaceLimit - usage.bytes) : unlimited,
    };
  }

  /** Refuses up front an extraction that cannot fit the session's file count. */
  private async checkPlan(session: Session, entries: ArchiveEntry[]): Promise<void> {
    const limits = this.documents.limitsOf(session);
    const usage = await this.documents.usage(session.id);
    if (limits.maxFiles > 0 && usage.files + entries.length > limits.maxFiles) {
      throw new QuireError('MAX_FILES', `Extracting ${entries.length} documents would exceed the session's limit of ${limits.maxFiles} documents (it holds ${usage.files}).`);
    }
  }
}

function displayName(record: DocumentRecord): string {
  const { fileExtension } = activeVersion(record);
  return fileExtension ? `${record.fileName}.${fileExtension}` : record.fileName;
}

/** The client's archive name with a .zip extension (the TypeScript client sends "files"). */
export function zipName(archiveFileName: string): string {
  const name = archiveFileName.trim() || 'archive.zip';
  return /\.zip$/i.test(name) ? name : `${name}.zip`;
}
