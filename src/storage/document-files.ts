import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { isId, newId } from '../core/ids.js';
import { activeVersion, type ContentFile, type DocumentRecord, type DocumentVersion } from './document-store.js';

/**
 * Where a document's content lives on the data dir, for both document stores (the embedded one and the
 * cluster's, which keep the same layout): `storage/<sessionId>/<documentId>/c-<id>`. Only names the server
 * generated ever become path segments.
 */
export const CONTENT_FILE = /^c-[0-9a-f]{32}$/;

export function contentFileName(): string {
  return `c-${newId()}`;
}

export function documentDir(storageDir: string, sessionId: string, documentId: string): string {
  if (!isId(sessionId) || !isId(documentId)) throw new Error('refusing a path built from a non-id');
  return path.join(storageDir, sessionId, documentId);
}

export function contentPath(storageDir: string, record: Pick<DocumentRecord, 'sessionId' | 'id'>, file: string): string {
  if (!CONTENT_FILE.test(file)) throw new Error('refusing a content file name the server did not make');
  return path.join(documentDir(storageDir, record.sessionId, record.id), file);
}

/**
 * What both document stores share about content files: the storage and scratch directories, and the
 * names and checked paths in them.
 */
export abstract class ContentFiles {
  protected readonly storageDir: string;
  private readonly contentPaths = new WeakMap<DocumentVersion, string>();

  constructor(
    dataDir: string,
    /** Temporary files, on the storage's file system so that a rename moves them into place. */
    protected readonly tempDir: string,
  ) {
    this.storageDir = path.join(dataDir, 'storage');
  }

  tempPath(): string {
    return path.join(this.tempDir, newId());
  }

  contentFileName(): string {
    return contentFileName();
  }

  protected documentDir(sessionId: string, documentId: string): string {
    return documentDir(this.storageDir, sessionId, documentId);
  }

  protected filePath(record: DocumentRecord, file: string): string {
    return contentPath(this.storageDir, record, file);
  }

  /** The content file of a version of `record` (default: the active one), without another read of the index. */
  contentOf(record: DocumentRecord, versionId?: number): ContentFile | undefined {
    const version = record.versions.find((v) => v.id === (versionId ?? record.activeVersion));
    if (!version) return undefined;
    // The checked path of a version, made once: `GET info` asks for it on every call. A record
    // (with its versions) is replaced, never changed, when a document changes.
    let file = this.contentPaths.get(version);
    if (file === undefined) {
      file = this.filePath(record, version.file);
      this.contentPaths.set(version, file);
    }
    return { path: file, size: version.size, lastModified: version.createdAt };
  }
}

/** Moves a finished temporary file into place as a new record's active content file; returns the document's directory. */
export async function moveIntoPlace(storageDir: string, record: DocumentRecord, tempFile: string): Promise<string> {
  const dir = documentDir(storageDir, record.sessionId, record.id);
  await mkdir(dir, { recursive: true });
  await rename(tempFile, contentPath(storageDir, record, activeVersion(record).file));
  return dir;
}

/** Deletes a session's storage area: renamed into `tempDir` first so that its documents vanish at once, then the slow recursive delete. */
export async function removeSessionDir(storageDir: string, tempDir: string, sessionId: string): Promise<void> {
  if (!isId(sessionId)) return;
  const doomed = path.join(tempDir, `deleted-${sessionId}-${newId()}`);
  try {
    await rename(path.join(storageDir, sessionId), doomed);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await rm(doomed, { recursive: true, force: true });
}
