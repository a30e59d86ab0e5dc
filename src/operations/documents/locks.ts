import { QuireError } from '../../core/errors.js';

/**
 * Documents in use. An operation holds its document's lock from reading the content to storing the
 * result; a second operation, a content replacement or a delete meanwhile is refused with a clear
 * error instead of racing it (webPDF's `isFileLocked`).
 */
export class DocumentLocks {
  private readonly held = new Set<string>();

  isLocked(sessionId: string, documentId: string): boolean {
    return this.held.has(key(sessionId, documentId));
  }

  async with<T>(sessionId: string, documentId: string, task: () => Promise<T>): Promise<T> {
    const k = key(sessionId, documentId);
    if (this.held.has(k)) {
      throw new QuireError('DOCUMENT_LOCKED', `The document "${documentId}" is in use by another operation; try again when it has finished.`);
    }
    this.held.add(k);
    try {
      return await task();
    } finally {
      this.held.delete(k);
    }
  }
}

function key(sessionId: string, documentId: string): string {
  return `${sessionId}/${documentId}`;
}
