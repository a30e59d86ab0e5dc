import { QuireError } from '../core/errors.js';

/** One state of a document's content: the current one, or an older one kept by history mode. */
export interface DocumentVersion {
  /** History id: 1, 2, ... in history mode; 0 for the only state of a document without history. */
  id: number;
  /** What produced this state: '' for the upload, else the web service (`toolbox`, `documents:update`, ...). */
  operation: string;
  fileName: string;
  fileExtension: string;
  fileTypeId: number;
  mimeType: string;
  fileTypeGroups: string[];
  size: number;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Name of the content file inside the document's directory (server-generated, never from a client). */
  file: string;
}

/** A stored document as the storage layer knows it; DocumentFile (the wire shape) is derived from it. */
export interface DocumentRecord {
  id: string;
  sessionId: string;
  /** Display name without extension; never used as a path. */
  fileName: string;
  /** '' when the document has no parent. */
  parentId: string;
  createdAt: number;
  /** Epoch milliseconds of the last change of content or name. */
  lastModified: number;
  /** History mode: every state is kept and can be made active again. */
  history: boolean;
  /** id of the active version (its content is the document's content). */
  activeVersion: number;
  /** Without history exactly one entry; in history mode every state, oldest first. */
  versions: DocumentVersion[];
}

export interface StorageUsage {
  files: number;
  /** Bytes of every kept content file, history states included (what the disk space limit counts). */
  bytes: number;
  /** Bytes of the history states that are not active. */
  historyBytes: number;
}

/** The session's limits a commit must keep (0 = unlimited); the diskSpaceLimit in bytes. */
export interface CommitLimits {
  maxFiles: number;
  diskSpaceLimit: number;
}

export interface ContentFile {
  path: string;
  size: number;
  lastModified: number;
}

/**
 * The documents of all sessions. Content is a file on a (possibly shared) file system; new content is
 * written to a temporary file first and becomes visible only when the store moves it into place.
 */
export interface DocumentStore {
  /** Loads the index and removes the debris of interrupted writes; called once at start. */
  open(): Promise<void>;
  /** A fresh path for a temporary file on the same file system as the storage (so rename works). */
  tempPath(): string;
  /** A fresh name for a new version's content file (`DocumentVersion.file`). */
  contentFileName(): string;
  /**
   * Moves the finished temporary file into place as the content file of the record's active version and records it.
   * With `limits`, a store shared by several nodes checks them against the session's usage in the same atomic
   * step as the add (MAX_FILES / DISK_SPACE_LIMIT, the content file removed); the embedded store may ignore
   * them, its callers check them serialised per session.
   */
  add(record: DocumentRecord, tempFile: string, limits?: CommitLimits): Promise<void>;
  /**
   * Records new metadata. With `tempFile`, it first becomes the content file of the active version
   * (a new version, or a replacement). Content files no version refers to any longer are deleted.
   * `limits`: as for add (only diskSpaceLimit applies here).
   */
  update(record: DocumentRecord, tempFile?: string, limits?: CommitLimits): Promise<void>;
  get(sessionId: string, documentId: string): Promise<DocumentRecord | undefined>;
  list(sessionId: string): Promise<DocumentRecord[]>;
  /** The content file of a version (default: the active one). */
  content(sessionId: string, documentId: string, versionId?: number): Promise<ContentFile | undefined>;
  /** The content file of a version of a record already read (default: the active one), without reading the index again. */
  contentOf(record: DocumentRecord, versionId?: number): ContentFile | undefined;
  delete(sessionId: string, documentId: string): Promise<boolean>;
  deleteSession(sessionId: string): Promise<void>;
  usage(sessionId: string): Promise<StorageUsage>;
  /** Sessions that have a storage area (to find the orphans of sessions that ended during a crash). */
  sessionIds(): Promise<string[]>;
}

export function activeVersion(record: DocumentRecord): DocumentVersion {
  const version = record.versions.find((v) => v.id === record.activeVersion);
  if (!version) throw new Error(`document ${record.id} has no active version ${record.activeVersion}`);
  return version;
}

/** The errors a refused commit gives, the same from the service's check and from a cluster store's atomic one. */
export function maxFilesError(limit: number): QuireError {
  return new QuireError('MAX_FILES', `The session already holds its limit of ${limit} documents.`);
}

export function diskSpaceError(limit: number): QuireError {
  return new QuireError('DISK_SPACE_LIMIT', `Storing the upload would exceed the session's disk space limit of ${limit} bytes.`);
}
