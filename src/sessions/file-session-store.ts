import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { isId } from '../core/ids.js';
import { KeyedSerializer } from '../core/serial.js';
import { writeFileAtomic } from '../storage/atomic.js';
import type { Session } from './session.js';
import type { SessionStore } from './session-store.js';

const REVOCATIONS_FILE = 'external-revocations.json';

/**
 * The embedded session store: every session is a small JSON file in `<dataDir>/sessions/`, written
 * atomically, and mirrored in memory so that authenticating a call costs a map lookup.
 */
export class FileSessionStore implements SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly external = new Map<string, string>();
  /** Client address → ids of the anonymous sessions opened from it. */
  private readonly anonymous = new Map<string, Set<string>>();
  private readonly revocations = new Map<string, { notBefore: number; until: number }>();
  private readonly touched = new Set<string>();
  private readonly writes = new KeyedSerializer();

  constructor(private readonly dir: string) {}

  async open(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    for (const name of await readdir(this.dir)) {
      const id = name.replace(/\.json$/, '');
      if (name.startsWith('.') && name.endsWith('.tmp')) {
        await rm(path.join(this.dir, name), { force: true }); // an interrupted atomic write
        continue;
      }
      if (!name.endsWith('.json') || !isId(id)) continue;
      try {
        const session = JSON.parse(await readFile(path.join(this.dir, name), 'utf8')) as Session;
        if (session.id !== id) throw new Error('id mismatch');
        this.remember(session);
      } catch {
        await rm(path.join(this.dir, name), { force: true }); // unreadable: cannot be resumed by anyone
      }
    }
    try {
      const stored = JSON.parse(await readFile(path.join(this.dir, REVOCATIONS_FILE), 'utf8')) as Record<string, { notBefore: number; until: number }>;
      for (const [key, value] of Object.entries(stored)) this.revocations.set(key, value);
    } catch {
      // none yet
    }
  }

  async get(id: string): Promise<Session | undefined> {
    return this.sessions.get(id);
  }

  async put(session: Session): Promise<void> {
    const copy = { ...session, roles: [...session.roles] };
    this.remember(copy);
    await this.writes.run(session.id, () => writeFileAtomic(this.file(session.id), JSON.stringify(copy), 0o600));
  }

  async rotate(renewed: Session, previousRefreshTokenId: string): Promise<boolean> {
    const current = this.sessions.get(renewed.id);
    if (!current || current.refreshTokenId !== previousRefreshTokenId) return false;
    await this.put(renewed);
    return true;
  }

  async delete(id: string): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    this.touched.delete(id);
    if (session.providerId) this.external.delete(externalKey(session.providerId, session.subject));
    this.unindexAnonymous(session);
    await this.writes.run(id, () => rm(this.file(id), { force: true }));
    return true;
  }

  async list(): Promise<Session[]> {
    return [...this.sessions.values()];
  }

  async count(): Promise<number> {
    return this.sessions.size;
  }

  async findExternal(providerId: string, subject: string): Promise<Session | undefined> {
    const id = this.external.get(externalKey(providerId, subject));
    return id === undefined ? undefined : this.sessions.get(id);
  }

  async anonymousFrom(clientAddress: string): Promise<Session[]> {
    const ids = this.anonymous.get(clientAddress) ?? new Set<string>();
    return [...ids].map((id) => this.sessions.get(id)).filter((s): s is Session => s !== undefined);
  }

  touch(id: string, at: number): void {
    const session = this.sessions.get(id);
    if (!session) return;
    session.lastAccess = at;
    this.touched.add(id);
  }

  async revokeExternal(providerId: string, subject: string, notBefore: number, until: number): Promise<void> {
    const now = Date.now() / 1000;
    for (const [key, value] of this.revocations) if (value.until < now) this.revocations.delete(key);
    this.revocations.set(externalKey(providerId, subject), { notBefore, until });
    const snapshot = JSON.stringify(Object.fromEntries(this.revocations));
    await this.writes.run(REVOCATIONS_FILE, () => writeFileAtomic(path.join(this.dir, REVOCATIONS_FILE), snapshot, 0o600));
  }

  async externalRevocation(providerId: string, subject: string): Promise<number | undefined> {
    const entry = this.revocations.get(externalKey(providerId, subject));
    return entry && entry.until >= Date.now() / 1000 ? entry.notBefore : undefined;
  }

  async close(): Promise<void> {
    const ids = [...this.touched];
    this.touched.clear();
    await Promise.all(
      ids.map((id) => {
        const session = this.sessions.get(id);
        return session ? this.put(session) : Promise.resolve();
      }),
    );
  }

  private remember(session: Session): void {
    const previous = this.sessions.get(session.id);
    if (previous) this.unindexAnonymous(previous);
    this.sessions.set(session.id, session);
    if (session.providerId) this.external.set(externalKey(session.providerId, session.subject), session.id);
    if (session.kind === 'anonymous' && session.clientAddress) {
      const ids = this.anonymous.get(session.clientAddress) ?? new Set<string>();
      ids.add(session.id);
      this.anonymous.set(session.clientAddress, ids);
    }
  }

  private unindexAnonymous(session: Session): void {
    if (!session.clientAddress) return;
    const ids = this.anonymous.get(session.clientAddress);
    ids?.delete(session.id);
    if (ids?.size === 0) this.anonymous.delete(session.clientAddress);
  }

  private file(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }
}

function externalKey(providerId: string, subject: string): string {
  return `${providerId}\u0000${subject}`;
}
