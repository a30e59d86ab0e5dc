import type { Session } from './session.js';

/**
 * Where sessions live. The embedded store keeps them in memory and in the data dir; a Redis-backed
 * store for the cluster implements the same calls.
 */
export interface SessionStore {
  /** Reads persisted sessions; called once before the server accepts requests. */
  open(): Promise<void>;
  get(id: string): Promise<Session | undefined>;
  /** Creates or replaces the session record durably. */
  put(session: Session): Promise<void>;
  /**
   * Refresh rotation: stores `renewed` only while the stored record still carries `previousRefreshTokenId`;
   * returns false otherwise (another refresh won, on this node or another), so one refresh token renews once.
   */
  rotate(renewed: Session, previousRefreshTokenId: string): Promise<boolean>;
  /** Removes the record; returns false when it did not exist (so that only one caller ends a session). */
  delete(id: string): Promise<boolean>;
  list(): Promise<Session[]>;
  count(): Promise<number>;
  findExternal(providerId: string, subject: string): Promise<Session | undefined>;
  /** The anonymous sessions opened from this client address (addressKey), expired ones not yet swept included. */
  anonymousFrom(clientAddress: string): Promise<Session[]>;
  /** Records the last access without a durable write on every call. */
  touch(id: string, at: number): void;
  /**
   * External tokens cannot be revoked at their provider: after a logout, tokens of that subject
   * issued before `notBefore` (epoch seconds) must not open a new session until `until`.
   */
  revokeExternal(providerId: string, subject: string, notBefore: number, until: number): Promise<void>;
  externalRevocation(providerId: string, subject: string): Promise<number | undefined>;
  /** Flushes what touch() buffered. */
  close(): Promise<void>;
}
