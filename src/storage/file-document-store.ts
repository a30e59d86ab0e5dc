import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { isId, newId } from '../core/ids.js';
import { writeFileAtomic } from './atomic.js';
import type { ContentFile, DocumentRecord, DocumentStore, StorageUsage } from './document-store.js';

const META = 'meta.json';
const CONTENT = 'content';

/**
 * The embedded document store. Layout: `<dataDir>/storage/<sessionId>/<documentId>/{content,meta.json}`
 * with uploads in progress under `<dataDir>/tmp/`. Only ids the server generated (32 hex digits) ever
 * become path segments. A document exists once its meta.json exists: content is moved into place
 * first, then the metadata is written atomically, so a crash leaves either nothing or a whole document.
 */
export class FileDocumentStore implements DocumentStore {
  private readonly index = new Map<string, Map<string, DocumentRecord>>();
  private readonly storageDir: string;
  private readonly tempDir: string;

  constructor(dataDir: string) {
    this.storageDir = path.join(dataDir, 'storage');
    this.tempDir = path.join(dataDir, 'tmp');
  }

  async open(): Promise<void> {
    await rm(this.tempDir, { recursive: true, force: true });
    await mkdir(this.tempDir, { recursive: true });
    await mkdir(this.storageDir, { recursive: true });
    for (const sessionId of await readdir(this.storageDir)) {
      if (!isId(sessionId)) continue;
      const sessionDir = path.join(this.storageDir, sessionId);
      for (const documentId of await readdir(sessionDir).catch(() => [] as string[])) {
        const record = await this.readRecord(sessionId, documentId);
        if (record) this.remember(record);
        else await rm(path.join(sessionDir, documentId), { recursive: true, force: true });
      }
    }
  }

  tempPath(): string {
    return path.join(this.tempDir, newId());
  }

  async add(record: DocumentRecord, tempFile: string): Promise<void> {
    const dir = this.documentDir(record.sessionId, record.id);
    await mkdir(dir, { recursive: true });
    await rename(tempFile, path.join(dir, CONTENT));
    await writeFileAtomic(path.join(dir, META), JSON.stringify(record));
    this.remember({ ...record });
  }

  async update(record: DocumentRecord): Promise<void> {
    if (!this.index.get(record.sessionId)?.has(record.id)) throw new Error(`no document ${record.id}`);
    await writeFileAtomic(path.join(this.documentDir(record.sessionId, record.id), META), JSON.stringify(record));
    this.remember({ ...record });
  }

  async get(sessionId: string, documentId: string): Promise<DocumentRecord | undefined> {
    return this.index.get(sessionId)?.get(documentId);
  }

  async list(sessionId: string): Promise<DocumentRecord[]> {
    return [...(this.index.get(sessionId)?.values() ?? [])];
  }

  async content(sessionId: string, documentId: string): Promise<ContentFile | undefined> {
    const record = this.index.get(sessionId)?.get(documentId);
    if (!record) return undefined;
    return { path: path.join(this.documentDir(sessionId, documentId), CONTENT), size: record.size, lastModified: record.lastModified };
  }

  async delete(sessionId: string, documentId: string): Promise<boolean> {
    const documents = this.index.get(sessionId);
    if (!documents?.delete(documentId)) return false;
    const dir = this.documentDir(sessionId, documentId);
    await rm(path.join(dir, META), { force: true }); // from here on the document is gone, even after a crash
    await rm(dir, { recursive: true, force: true });
    return true;
  }

  async deleteSession(sessionId: string): Promise<void> {
    this.index.delete(sessionId);
    if (!isId(sessionId)) return;
    // Rename first so that the session's documents vanish at once; the slow recursive delete follows.
    const doomed = path.join(this.tempDir, `deleted-${sessionId}-${newId()}`);
    try {
      await rename(path.join(this.storageDir, sessionId), doomed);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    await rm(doomed, { recursive: true, force: true });
  }

  async usage(sessionId: string): Promise<StorageUsage> {
    const documents = this.index.get(sessionId);
    let bytes = 0;
    for (const record of documents?.values() ?? []) bytes += record.size;
    return { files: documents?.size ?? 0, bytes };
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
    documents.set(record.id, record);
  }

  private documentDir(sessionId: string, documentId: string): string {
    if (!isId(sessionId) || !isId(documentId)) throw new Error('refusing a path built from a non-id');
    return path.join(this.storageDir, sessionId, documentId);
  }

  private async readRecord(sessionId: string, documentId: string): Promise<DocumentRecord | undefined> {
    if (!isId(documentId)) return undefined;
    const dir = path.join(this.storageDir, sessionId, documentId);
    try {
      const record = JSON.parse(await readFile(path.join(dir, META), 'utf8')) as DocumentRecord;
      const content = await stat(path.join(dir, CONTENT));
      if (record.id !== documentId || record.sessionId !== sessionId || content.size !== record.size) return undefined;
      return record;
    } catch {
      return undefined;
    }
  }
}
