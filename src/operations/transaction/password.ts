import type { RememberedCredentials } from '../documents/credentials.js';

/** The `password` member of a web-service call (`Operation_PdfPassword`). */
export interface CallPassword {
  open?: string;
  permission?: string;
}

/**
 * The password a call works with on a stored document: the call's own (`open`, else `permission`),
 * else the one remembered for the document's state `versionId` (`PUT documents/{id}/security/password`,
 * or set by the session's own toolbox `security.encrypt`). Empty strings count as absent, as the
 * clients send them for "none".
 */
export function resolvePassword(credentials: Pick<RememberedCredentials, 'get'>, sessionId: string, documentId: string, versionId: number, call: CallPassword | undefined): string | undefined {
  return call?.open || call?.permission || credentials.get(sessionId, documentId, versionId)?.password;
}
