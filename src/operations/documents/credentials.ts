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
 * Credentials that opened a document, remembered for the session's later operations on it: those a
 * client supplied (`PUT documents/{id}/security/password`) and the passwords the session set itself
 * (toolbox `security.encrypt`). Kept in memory only, never written to disk: after a restart the
 * client supplies them again. Forgotten with the document or its session.
 *
 * They belong to a state of the document (`versionId`: its history id, 0 without history): a new
 * protection applies to the state it made, and an older state of a history-mode document made active
 * again opens with what opened it then.
 */
export class RememberedCredentials {
  private readonly sessions = new Map<string, Map<string, Map<number, DocumentCredentials>>>();

  get(sessionId: string, documentId: string, versionId: number): DocumentCredentials | undefined {
    return this.sessions.get(sessionId)?.get(documentId)?.get(versionId);
  }

  /** Adds `credentials` to what is remembered for that state. */
  set(sessionId: string, documentId: string, versionId: number, credentials: DocumentCredentials): void {
    this.replace(sessionId, documentId, versionId, { ...this.get(sessionId, documentId, versionId), ...credentials });
  }

  /** Remembers exactly `credentials` for that state; undefined: nothing (the state needs none the session knows). */
  replace(sessionId: string, documentId: string, versionId: number, credentials: DocumentCredentials | undefined): void {
    let documents = this.sessions.get(sessionId);
    let versions = documents?.get(documentId);
    if (!credentials) {
      versions?.delete(versionId);
      if (versions?.size === 0) documents!.delete(documentId);
      return;
    }
    if (!documents) {
      documents = new Map();
      this.sessions.set(sessionId, documents);
    }
    if (!versions) {
      versions = new Map();
      documents.set(documentId, versions);
    }
    versions.set(versionId, credentials);
  }

  /** Forgets every state of the document. */
  forget(sessionId: string, documentId: string): void {
    this.sessions.get(sessionId)?.delete(documentId);
  }

  forgetSession(sessionId: string): void {
    this.sessions.delete(sessionId);
  }
}
