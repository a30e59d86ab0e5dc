/** Key material that opened a certificate-encrypted PDF. */
export interface KeyPairCredentials {
  /** PEM text or DER bytes. */
  certificate: string | Buffer;
  privateKey: string | Buffer;
  privateKeyPassword?: string;
}

/** What opens a protected document: a password (user or owner), or a certificate's key pair. */
export interface DocumentCredentials {
  password?: string;
  keyPair?: KeyPairCredentials;
}

/**
 * Credentials that opened a document, remembered for the session's later operations on it
 * (`PUT documents/{id}/security/password`). Kept in memory only, never written to disk: after a
 * restart the client supplies them again. Forgotten with the document or its session.
 */
export class RememberedCredentials {
  private readonly sessions = new Map<string, Map<string, DocumentCredentials>>();

  get(sessionId: string, documentId: string): DocumentCredentials | undefined {
    return this.sessions.get(sessionId)?.get(documentId);
  }

  set(sessionId: string, documentId: string, credentials: DocumentCredentials): void {
    let documents = this.sessions.get(sessionId);
    if (!documents) {
      documents = new Map();
      this.sessions.set(sessionId, documents);
    }
    documents.set(documentId, { ...this.get(sessionId, documentId), ...credentials });
  }

  forget(sessionId: string, documentId: string): void {
    this.sessions.get(sessionId)?.delete(documentId);
  }

  forgetSession(sessionId: string): void {
    this.sessions.delete(sessionId);
  }
}
