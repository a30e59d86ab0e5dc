import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { isId } from '../core/ids.js';
import { writeFileAtomic } from './atomic.js';
import { CONTENT_FILE, ContentFiles, moveIntoPlace, removeSessionDir } from './document-files.js';
import { activeVersion, type ContentFile, type DocumentRecord, type DocumentStore, type StorageUsage } from './document-store.js';

const META = 'meta.json';

/**
 * The embedded document store. Layout: `<dataDir>/storage/<sessionId>/<documentId>/{meta.json,c-<id>...}`
 * (one content file per kept state) with new content in progress under `<dataDir>/tmp/`. Only names
 * the server generated ever become path segments. A document exists once its meta.json exists: content
 * is moved into place first, then the metadata is written atomically, and only then are content files
 * that no state refers to any more deleted; a crash in between leaves whole documents and debris that
 * the next start removes.
 */
export class FileDocumentStore extends ContentFiles implements DocumentStore {
  private readonly index = new Map<string, Map<string, DocumentRecord>>();
  /** Running usage per session, kept in step with the index so that usage() is O(1) (it runs per received chunk). */
  private readonly totals = new Map<string, StorageUsage>();
  constructor(dataDir: string) {
    super(dataDir, path.join(dataDir, 'tmp'));
  }

  async open(): Promise<void> {
    await rm(this.tempDir, { recursive: true, force: true });
    await mkdir(this.tempDir, { recursive: true });
    await mkdir(this.storageDir, { recursive: true });
    for (const sessionId of await readdir(this.storageDir)) {
      if (!isId(sessionId)) continue;
      const sessionDir = path.join(this.storageDir, sessionId);
      for (const documentId of await readdir(sessionDir).catch(() => [] as string[])) {
        const record = await this.recover(sessionId, documentId);
        if (record) this.remember(record);
        else await rm(path.join(sessionDir, documentId), { recursive: true, force: true });
      }
    }
  }

  async add(record: DocumentRecord, tempFile: string): Promise<void> {
    const dir = await moveIntoPlace(this.storageDir, record, tempFile);
    await writeFileAtomic(path.join(dir, META), JSON.stringify(record));
    this.remember(structuredClone(record));
  }

  async update(record: DocumentRecord, tempFile?: string): Promise<void> {
    const previous = this.index.get(record.sessionId)?.get(record.id);
    if (!previous) throw new Error(`no document ${record.id}`);
    if (tempFile) await rename(tempFile, this.filePath(record, activeVersion(record).file));
    await writeFileAtomic(path.join(this.documentDir(record.sessionId, record.id), META), JSON.stringify(record));
    this.remember(structuredClone(record));
    const kept = new Set(record.versions.map((v) => v.file));
    for (const version of previous.versions) {
      if (!kept.has(version.file)) await rm(this.filePath(record, version.file), { force: true });
    }
  }

  async get(sessionId: string, documentId: string): Promise<DocumentRecord | undefined> {
    return this.index.get(sessionId)?.get(documentId);
  }

  async list(sessionId: string): Promise<DocumentRecord[]> {
    return [...(this.index.get(sessionId)?.values() ?? [])];
  }

  async content(sessionId: string, documentId: string, versionId?: number): Promise<ContentFile | undefined> {
    const record = this.index.get(sessionId)?.get(documentId);
    return record && this.contentOf(record, versionId);
  }

  async delete(sessionId: string, documentId: string): Promise<boolean> {
    const documents = this.index.get(sessionId);
    const record = documents?.get(documentId);
    if (!record || !documents?.delete(documentId)) return false;
    this.account(record, -1);
    const dir = this.documentDir(sessionId, documentId);
    await rm(path.join(dir, META), { force: true }); // from here on the document is gone, even after a crash
    await rm(dir, { recursive: true, force: true });
    return true;
  }

  async deleteSession(sessionId: string): Promise<void> {
    this.index.delete(sessionId);
    this.totals.delete(sessionId);
    await removeSessionDir(this.storageDir, this.tempDir, sessionId);
  }

  async usage(sessionId: string): Promise<StorageUsage> {
    const totals = this.totals.get(sessionId);
    return totals ? { ...totals } : { files: 0, bytes: 0, historyBytes: 0 };
  }

  /** Usage of all sessions together, from the running totals (for the metrics; no disk access). */
  totalUsage(): StorageUsage {
    const sum: StorageUsage = { files: 0, bytes: 0, historyBytes: 0 };
    for (const usage of this.totals.values()) {
      sum.files += usage.files;
      sum.bytes += usage.bytes;
      sum.historyBytes += usage.historyBytes;
    }
    return sum;
  }

  async sessionIds(): Promise<string[]> {
    const names = await readdir(this.storageDir).catch(() => [] as string[]);
    return names.filter(isId);
  }

  private remember(record: DocumentRecord): void {
    let documents = this.index.get(record.sessionId);
    if (!documents) {
      documents = new Map();
      this.index.set(record.sessionId, documents);
    }
    const previous = documents.get(record.id);
    if (previous) this.account(previous, -1);
    documents.set(record.id, record);
    this.account(record, 1);
  }

  private account(record: DocumentRecord, sign: 1 | -1): void {
    let totals = this.totals.get(record.sessionId);
    if (!totals) {
      totals = { files: 0, bytes: 0, historyBytes: 0 };
      this.totals.set(record.sessionId, totals);
    }
    totals.files += sign;
    for (const version of record.versions) {
      totals.bytes += sign * version.size;
      if (version.id !== record.activeVersion) totals.historyBytes += sign * version.size;
    }
  }

  /**
   * A document as a crash left it: states whose content file is missing or of the wrong size are
   * dropped (the document too, when that is its active state), and files no state refers to are removed.
   */
  private async recover(sessionId: string, documentId: string): Promise<DocumentRecord | undefined> {
    if (!isId(documentId)) return undefined;
    const dir = path.join(this.storageDir, sessionId, documentId);
    let record: DocumentRecord;
    try {
      record = JSON.parse(await readFile(path.join(dir, META), 'utf8')) as DocumentRecord;
      if (record.id !== documentId || record.sessionId !== sessionId || !Array.isArray(record.versions)) return undefined;
    } catch {
      return undefined;
    }
    const intact = [];
    for (const version of record.versions) {
      if (!CONTENT_FILE.test(version.file)) continue;
      const size = await stat(path.join(dir, version.file)).then(
        (s) => s.size,
        () => -1,
      );
      if (size === version.size) intact.push(version);
    }
    if (!intact.some((v) => v.id === record.activeVersion)) return undefined;
    if (intact.length !== record.versions.length) {
      record = { ...record, versions: intact };
      await writeFileAtomic(path.join(dir, META), JSON.stringify(record));
    }
    const referenced = new Set([META, ...intact.map((v) => v.file)]);
    for (const name of await readdir(dir)) {
      if (!referenced.has(name)) await rm(path.join(dir, name), { recursive: true, force: true });
    }
    return record;
  }
}
