/** One upload's claim on its session's quota while its bytes arrive. */
export interface Reservation {
  readonly bytes: number;
  add(bytes: number): void;
  /** Bytes of every upload of the session still in progress, this one included. */
  sessionTotal(): number;
  release(): void;
}

/**
 * Bytes and file slots claimed by uploads still in progress, per session. Concurrent uploads of one
 * session see each other's bytes, so together they cannot overrun the disk space limit.
 */
export class QuotaReservations {
  private readonly sessions = new Map<string, { files: number; bytes: number; transfers: number }>();

  pendingFiles(sessionId: string): number {
    return this.sessions.get(sessionId)?.files ?? 0;
  }

  reservedBytes(sessionId: string): number {
    return this.sessions.get(sessionId)?.bytes ?? 0;
  }

  /** A claim for one transfer; `newFile` false for content that replaces a document's (it needs no file slot). */
  reserve(sessionId: string, newFile = true): Reservation {
    let totals = this.sessions.get(sessionId);
    if (!totals) {
      totals = { files: 0, bytes: 0, transfers: 0 };
      this.sessions.set(sessionId, totals);
    }
    const session = totals;
    const slot = newFile ? 1 : 0;
    session.files += slot;
    session.transfers++;
    let bytes = 0;
    let released = false;
    const sessions = this.sessions;
    return {
      get bytes() {
        return bytes;
      },
      add(count: number) {
        bytes += count;
        session.bytes += count;
      },
      sessionTotal: () => session.bytes,
      release() {
        if (released) return;
        released = true;
        session.files -= slot;
        session.transfers--;
        session.bytes -= bytes;
        if (session.transfers === 0) sessions.delete(sessionId);
      },
    };
  }
}
