import Type from 'typebox';
import { component, ref } from './shared.js';

export const SessionTableEntry = component(
  Type.Object(
    {
      sessionId: Type.String(),
      userName: Type.String({ description: 'empty for anonymous sessions' }),
      providerId: Type.String({ description: 'empty for the local provider' }),
      admin: Type.Boolean(),
      isAdmin: Type.Boolean(),
      fileCount: Type.Integer({ format: 'int64' }),
      fileSize: Type.Integer({ format: 'int64', description: 'bytes of the current documents' }),
      fileSizeHistory: Type.Integer({ format: 'int64', description: 'bytes of inactive history states' }),
      lastAccess: Type.Integer({ format: 'int64', description: 'epoch milliseconds (UTC)' }),
      sessionExpiration: Type.Integer({ format: 'int64', description: 'seconds until the session expires' }),
      sessionState: Type.Enum(['unknown', 'ok', 'expired']),
    },
    { $id: 'Session_TableEntry' },
  ),
);

export const SessionTable = component(
  Type.Object(
    {
      activeSessions: Type.Integer({ format: 'int64' }),
      expiredSessions: Type.Integer({ format: 'int64', description: 'sessions that expired since the server started' }),
      sessionCount: Type.Integer({ format: 'int64' }),
      sessionDiskUsage: Type.Integer({ format: 'int64', description: 'bytes stored by all sessions' }),
      sessionId: Type.String({ description: "the caller's own session" }),
      sessionList: Type.Array(ref(SessionTableEntry)),
      timestamp: Type.Integer({ format: 'int64', description: 'epoch milliseconds (UTC) of the query' }),
      unstableSessions: Type.Integer({ format: 'int64' }),
    },
    { $id: 'Session_Table' },
  ),
);
