import type { Role } from '../config/schema.js';

/** Which limits apply: webPDF's `Auth_Limits.type`. */
export type SessionKind = 'user' | 'anonymous';

/** A session: who it belongs to, until when it lives, and which tokens currently open it. */
export interface Session {
  id: string;
  kind: SessionKind;
  /** '' for anonymous sessions. */
  userName: string;
  roles: Role[];
  /** '' for the local provider, else the id of the external OAuth provider. */
  providerId: string;
  /** Subject of the external provider's tokens; '' for local sessions. */
  subject: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds; the session ends at this moment unless renewed. */
  expiresAt: number;
  /** jti of the only access token that opens the session (local provider). */
  accessTokenId: string;
  /** jti of the only refresh token that renews it; '' when none was issued. */
  refreshTokenId: string;
  /** Epoch milliseconds of the last authenticated call. */
  lastAccess: number;
  /**
   * Anonymous sessions: the client address they were opened from (auth/client-address addressKey),
   * counted against security.anonymousSessionsPerAddress. Absent for other sessions and for
   * sessions stored before the limit existed.
   */
  clientAddress?: string;
}

export function isAdmin(session: Pick<Session, 'roles'>): boolean {
  return session.roles.includes('admin');
}
