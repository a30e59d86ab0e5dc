import { isAdmin } from '../../sessions/session.js';
import type { SessionService } from '../../sessions/session-service.js';
import type { DocumentService } from '../documents/document-service.js';

/** The administrator's view of every session (webPDF Session_Table). */
export async function sessionTable(sessions: SessionService, documents: DocumentService, callerSessionId: string) {
  const now = Date.now();
  const list = await sessions.list();
  const entries = await Promise.all(
    list.map(async (session) => {
      const usage = await documents.usage(session.id);
      const expired = session.expiresAt <= now;
      return {
        sessionId: session.id,
        userName: session.userName,
        providerId: session.providerId,
        admin: isAdmin(session),
        isAdmin: isAdmin(session),
        fileCount: usage.files,
        fileSize: usage.bytes - usage.historyBytes,
        fileSizeHistory: usage.historyBytes,
        lastAccess: session.lastAccess,
        sessionExpiration: Math.max(0, Math.round((session.expiresAt - now) / 1000)),
        sessionState: expired ? ('expired' as const) : ('ok' as const),
      };
    }),
  );
  return {
    activeSessions: entries.filter((e) => e.sessionState === 'ok').length,
    expiredSessions: sessions.counters.expired,
    sessionCount: entries.length,
    sessionDiskUsage: entries.reduce((sum, e) => sum + e.fileSize, 0),
    sessionId: callerSessionId,
    sessionList: entries,
    timestamp: now,
    unstableSessions: 0,
  };
}
