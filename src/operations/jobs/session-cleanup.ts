import type { DocumentStore } from '../../storage/document-store.js';
import type { QueueHandler } from '../queue/work-queue.js';
import { SESSION_CLEANUP } from './payloads.js';

export interface SessionCleanupPayload {
  sessionId: string;
}

/**
 * Kind "session-cleanup": deletes the storage of an expired session in the background. Deleting is
 * idempotent, so an attempt interrupted by a crash simply runs again; a failing one (a file system
 * error) is retried with backoff and ends in the replay queue rather than leaving files forever.
 */
export function sessionCleanupHandler(documents: DocumentStore): QueueHandler<SessionCleanupPayload> {
  return {
    kind: SESSION_CLEANUP,
    concurrency: 1,
    maxAttempts: 5,
    backoff: { baseMs: 1000, maxMs: 60_000 },
    keepDoneMs: 0,
    recover: () => ({ retry: true }),
    run: async (entry) => {
      await documents.deleteSession(entry.payload.sessionId);
      return undefined;
    },
  };
}
