import { documentLocked, type DocumentLease, type DocumentLocks } from '../../storage/document-locks.js';

const LEASE: DocumentLease = Object.freeze({ token: 0 });

/**
 * The embedded document locks (see storage/document-locks.ts): a set in this process, which is all a
 * single node needs: the lock ends with the operation, or with the process.
 */
export class LocalDocumentLocks implements DocumentLocks {
  private readonly held = new Set<string>();

  isLocked(sessionId: string, documentId: string): boolean {
    return this.held.has(key(sessionId, documentId));
  }

  async with<T>(sessionId: string, documentId: string, task: (lease: DocumentLease) => Promise<T>): Promise<T> {
    const k = key(sessionId, documentId);
    if (this.held.has(k)) throw documentLocked(documentId);
    this.held.add(k);
    try {
      return await task(LEASE);
    } finally {
      this.held.delete(k);
    }
  }
}

function key(sessionId: string, documentId: string): string {
  return `${sessionId}/${documentId}`;
}
