import { QuireError } from '../core/errors.js';

/**
 * Documents in use. An operation holds its document's lock from reading the content to storing the
 * result; a second operation, a content replacement or a delete meanwhile is refused with
 * DOCUMENT_LOCKED (409) instead of racing it (webPDF's `isFileLocked`). The embedded implementation
 * (operations/documents/locks.ts) is a set in this process; the cluster's (storage/redis-document-locks.ts)
 * is a lease in Redis with an expiry and a fencing token, so that a dead node's lock ends on its own and
 * a node whose lease ran out cannot commit over the next holder.
 */
export interface DocumentLocks {
  /** Runs `task` holding the document's lock; DOCUMENT_LOCKED at once when another operation holds it. */
  with<T>(sessionId: string, documentId: string, task: (lease: DocumentLease) => Promise<T>): Promise<T>;
  /** Whether an operation of this server (this node, in a cluster) holds the document's lock now. */
  isLocked(sessionId: string, documentId: string): boolean;
}

/** A held lock. */
export interface DocumentLease {
  /** Grows with every acquisition of any document's lock (monotonic; 0 for the embedded locks, which need none). */
  readonly token: number;
}

/** The refusal of a document another operation holds. */
export function documentLocked(documentId: string): QuireError {
  return new QuireError('DOCUMENT_LOCKED', `The document "${documentId}" is in use by another operation; try again when it has finished.`);
}
