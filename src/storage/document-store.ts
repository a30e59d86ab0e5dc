/** A stored document as the storage layer knows it; DocumentFile (the wire shape) is derived from it. */
export interface DocumentRecord {
  id: string;
  sessionId: string;
  /** Display name without extension; never used as a path. */
  fileName: string;
  fileExtension: string;
  fileTypeId: number;
  mimeType: string;
  fileTypeGroups: string[];
  size: number;
  /** Epoch milliseconds of the last content change. */
  lastModified: number;
  createdAt: number;
  /** '' when the document has no parent. */
  parentId: string;
  history: boolean;
  historyId: number;
}

export interface StorageUsage {
  files: number;
  bytes: number;
}

export interface ContentFile {
  path: string;
  size: number;
  lastModified: number;
}

/**
 * The documents of all sessions. Content is a file on a (possibly shared) file system; uploads are
 * written to a temporary file first and become visible only by `add`, which moves them into place.
 */
export interface DocumentStore {
  /** Loads the index and removes the debris of interrupted writes; called once at start. */
  open(): Promise<void>;
  /** A fresh path for a temporary file on the same file system as the storage (so rename works). */
  tempPath(): string;
  /** Moves the finished temporary file into the storage under record.id and records it durably. */
  add(record: DocumentRecord, tempFile: string): Promise<void>;
  /** Replaces the metadata of an existing document (rename and the like). */
  update(record: DocumentRecord): Promise<void>;
  get(sessionId: string, documentId: string): Promise<DocumentRecord | undefined>;
  list(sessionId: string): Promise<DocumentRecord[]>;
  content(sessionId: string, documentId: string): Promise<ContentFile | undefined>;
  delete(sessionId: string, documentId: string): Promise<boolean>;
  deleteSession(sessionId: string): Promise<void>;
  usage(sessionId: string): Promise<StorageUsage>;
  /** Sessions that have a storage area (to find the orphans of sessions that ended during a crash). */
  sessionIds(): Promise<string[]>;
}
