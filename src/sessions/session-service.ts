import type { FastifyBaseLogger } from 'fastify';
import type { Config, Limits } from '../config/load.js';
import type { Role } from '../config/schema.js';
import { QuireError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { KeyedSerializer } from '../core/serial.js';
import { addressKey } from '../auth/client-address.js';
import type { ExternalIdentity, ExternalTokenVerifier } from '../auth/external-tokens.js';
import { LoginGuard, type LoginCounters } from '../auth/login-guard.js';
import type { LocalTokenClaims, TokenService } from '../auth/tokens.js';
import type { UserSource } from '../auth/users.js';
import type { DocumentStore } from '../storage/document-store.js';
import type { Session } from './session.js';
import type { SessionStore } from './session-store.js';
import { TokenCache } from './token-cache.js';

/** webPDF `Auth_SessionToken`. */
export interface LoginResult {
  token: string;
  refreshToken: string;
  expiresIn: number;
}

export type SessionEndReason = 'logout' | 'expired' | 'closed';

export interface SessionCounters {
  created: number;
  expired: number;
  loggedOut: number;
  closed: number;
}

interface Deps {
  config: Config;
  store: SessionStore;
  documents: DocumentStore;
  tokens: TokenService;
  external: ExternalTokenVerifier;
  users: UserSource;
  logger: FastifyBaseLogger;
  /** Throttling and the hashing bound of password checks; default: one built from config.security.login. */
  loginGuard?: LoginGuard;
  /**
   * Hands the storage of an expired session to background work (the durable queue) instead of deleting
   * it inline: a sweep that finds many expired sessions with large storage must not stall. Logout and
   * administrative close still delete at once, as their callers expect the documents gone when answered.
   */
  deferDeletion?: (sessionId: string) => Promise<void>;
}

/**
 * The session lifecycle: login (local users, anonymous), external tokens, refresh with rotation,
 * authentication of every call, logout, administrative close and expiry. Ending a session in any
 * of these ways deletes its storage.
 */
export class SessionService {
  readonly counters: SessionCounters = { created: 0, expired: 0, loggedOut: 0, closed: 0 };
  private readonly serial = new KeyedSerializer();
  private readonly verified = new TokenCache<LocalTokenClaims | ExternalIdentity>(20_000);
  private sweeper: NodeJS.Timeout | undefined;
  private readonly endListeners: Array<(sessionId: string) => void> = [];
  private readonly loginGuard: LoginGuard;

  constructor(private readonly deps: Deps) {
    this.loginGuard = deps.loginGuard ?? new LoginGuard(deps.config.security.login);
  }

  /** Password checks by outcome (for the metrics). */
  get logins(): Readonly<LoginCounters> {
    return this.loginGuard.counters;
  }

  /** Password hashes running and waiting for a slot now. */
  get loginHashing(): { running: number; waiting: number } {
    return this.loginGuard.hashing;
  }

  /** Called with the id of every session that ends (logout, expiry, close), after its storage is gone (or queued for deletion). */
  onEnd(listener: (sessionId: string) => void): void {
    this.endListeners.push(listener);
  }

  /** Ends sessions that expired while the server was down and removes storage no session owns. */
  async start(): Promise<void> {
    await this.sweep();
    const live = new Set((await this.deps.store.list()).map((s) => s.id));
    for (const id of await this.deps.documents.sessionIds()) {
      if (!live.has(id)) await this.deps.documents.deleteSession(id);
    }
    this.sweeper = setInterval(() => {
      this.sweep().catch((error: unknown) => this.deps.logger.error({ err: error }, 'session sweep failed'));
    }, this.deps.config.session.sweepIntervalMs);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    await this.deps.store.close();
  }

  /**
   * Local login: Basic credentials, or none for an anonymous session. `clientIp` is the caller's
   * address (request.ip): failed logins are throttled per address and anonymous sessions capped per address.
   */
  async login(credentials: { name: string; password: string } | undefined, createRefreshToken: boolean, clientIp = ''): Promise<LoginResult> {
    if (credentials) {
      const user = await this.verifyCredentials(credentials.name, credentials.password, clientIp);
      if (!user) throw new QuireError('LOGIN_FAILED', 'Login failed: unknown user or wrong password.');
      return this.open({ kind: 'user', userName: user.name, roles: user.roles.includes('admin') ? ['user', 'admin'] : ['user'] }, createRefreshToken);
    }
    if (!this.deps.config.anonymous) {
      throw new QuireError('ANONYMOUS_DISABLED', 'Anonymous sessions are disabled on this server; log in with a user name and password.');
    }
    const perAddress = this.deps.config.security.anonymousSessionsPerAddress;
    const clientAddress = addressKey(clientIp);
    if (perAddress === 0 || clientAddress === '') return this.open({ kind: 'anonymous', userName: '', roles: [] }, createRefreshToken);
    // One address's logins one at a time: concurrent logins cannot all pass the count together.
    return this.serial.run(`anonymous-address:${clientAddress}`, async () => {
      const now = Date.now();
      const open = (await this.deps.store.anonymousFrom(clientAddress)).filter((s) => s.expiresAt > now);
      if (open.length >= perAddress) {
        const soonest = Math.min(...open.map((s) => s.expiresAt));
        throw new QuireError(
          'TOO_MANY_ANONYMOUS_SESSIONS',
          `This address already holds ${open.length} open anonymous sessions, the most allowed (security.anonymousSessionsPerAddress); log out of one or wait for one to expire.`,
          { headers: { 'retry-after': String(Math.max(1, Math.ceil((soonest - now) / 1000))) } },
        );
      }
      return this.open({ kind: 'anonymous', userName: '', roles: [], clientAddress }, createRefreshToken);
    });
  }

  /** Creates a local session (a user's or an anonymous one) and issues its tokens. */
  private async open(who: { kind: Session['kind']; userName: string; roles: Role[]; clientAddress?: string }, createRefreshToken: boolean): Promise<LoginResult> {
    const { kind, userName, roles } = who;
    await this.ensureCapacity();
    const now = Date.now();
    const session: Session = {
      id: newId(),
      kind,
      userName,
      roles,
      providerId: '',
      subject: '',
      createdAt: now,
      expiresAt: now + this.deps.config.session.lifetime * 1000,
      accessTokenId: newId(),
      refreshTokenId: createRefreshToken ? newId() : '',
      lastAccess: now,
      ...(who.clientAddress ? { clientAddress: who.clientAddress } : {}),
    };
    await this.deps.store.put(session);
    this.counters.created++;
    this.deps.logger.info({ sessionId: session.id, userName, kind }, 'session created');
    return this.tokensFor(session);
  }

  /** Exchanges the session's current refresh token for new access and refresh tokens. */
  async refresh(refreshToken: string): Promise<LoginResult> {
    if (this.deps.external.providerFor(refreshToken)) {
      throw new QuireError('REFRESH_REFUSED', 'Tokens of an external provider cannot be refreshed here; renew them at the provider.');
    }
    const claims = await this.deps.tokens.verify(refreshToken);
    if (claims.use !== 'refresh') throw new QuireError('REFRESH_REFUSED', 'This is an access token; refresh needs the refresh token.');
    return this.serial.run(claims.sessionId, async () => {
      const session = await this.liveSession(claims.sessionId);
      if (session.refreshTokenId === '' || session.refreshTokenId !== claims.tokenId) {
        throw refreshTokenReplaced();
      }
      const now = Date.now();
      const renewed: Session = {
        ...session,
        expiresAt: now + this.deps.config.session.lifetime * 1000,
        accessTokenId: newId(),
        refreshTokenId: newId(),
        lastAccess: now,
      };
      // Atomic in the store: two refreshes with the same token on two nodes renew once.
      if (!(await this.deps.store.rotate(renewed, session.refreshTokenId))) {
        throw refreshTokenReplaced();
      }
      return this.tokensFor(renewed);
    });
  }

  /** The session a bearer token opens; throws the 401 that fits otherwise. The hot path of every call. */
  async authenticate(token: string): Promise<Session> {
    let verified = this.verified.get(token);
    if (!verified) {
      const provider = this.deps.external.providerFor(token);
      verified = provider ? await this.deps.external.verify(token, provider) : await this.deps.tokens.verify(token);
      // External tokens are re-verified at least every minute, so that a key the provider withdrew stops working.
      const until = 'providerId' in verified ? Math.min(verified.expiresAt * 1000, Date.now() + 60_000) : verified.expiresAt * 1000;
      this.verified.set(token, verified, until);
    }
    const session = 'providerId' in verified ? await this.externalSession(verified) : await this.localSession(verified);
    this.deps.store.touch(session.id, Date.now());
    return session;
  }

  /**
   * The live session with this id, for the server's own replayed job calls (they carry no token):
   * an expired session is ended and refused exactly as `authenticate` refuses it.
   */
  async byId(sessionId: string): Promise<Session> {
    return this.liveSession(sessionId);
  }

  async logout(session: Session): Promise<void> {
    if (session.providerId) {
      const nowSeconds = Math.floor(Date.now() / 1000);
      await this.deps.store.revokeExternal(session.providerId, session.subject, nowSeconds, Math.ceil(session.expiresAt / 1000) + 300);
    }
    await this.end(session.id, 'logout');
  }

  /**
   * Checks a name and password against the user source, throttled and bounded like a login (see
   * auth/login-guard): the login itself, and callers that send Basic credentials on every call (a
   * Prometheus scraper) without opening a session, where a session per call would pile up.
   */
  verifyCredentials(name: string, password: string, clientIp = ''): ReturnType<UserSource['authenticate']> {
    return this.loginGuard.check(name, clientIp, () => this.deps.users.authenticate(name, password));
  }

  /** Administrative close: the session ends at once, like an expiry. Returns false for an unknown id. */
  async close(sessionId: string): Promise<boolean> {
    return this.end(sessionId, 'closed');
  }

  limitsFor(session: Pick<Session, 'kind'>): Limits {
    return session.kind === 'anonymous' ? this.deps.config.limits.anonymous : this.deps.config.limits.user;
  }

  async list(): Promise<Session[]> {
    return this.deps.store.list();
  }

  /** Ends every session whose time is up. */
  async sweep(): Promise<void> {
    const now = Date.now();
    for (const session of await this.deps.store.list()) {
      if (session.expiresAt <= now) await this.end(session.id, 'expired');
    }
  }

  private async end(sessionId: string, reason: SessionEndReason): Promise<boolean> {
    return this.serial.run(sessionId, async () => {
      const existed = await this.deps.store.delete(sessionId);
      if (!existed) return false;
      if (reason === 'expired' && this.deps.deferDeletion) await this.deps.deferDeletion(sessionId);
      else await this.deps.documents.deleteSession(sessionId);
      for (const listener of this.endListeners) listener(sessionId);
      if (reason === 'expired') this.counters.expired++;
      else if (reason === 'logout') this.counters.loggedOut++;
      else this.counters.closed++;
      this.deps.logger.info({ sessionId, reason }, 'session ended');
      return true;
    });
  }

  private async liveSession(sessionId: string): Promise<Session> {
    const session = await this.deps.store.get(sessionId);
    if (!session) throw new QuireError('SESSION_NOT_FOUND', 'No session exists for this token (logged out, expired or closed).');
    if (session.expiresAt <= Date.now()) {
      // In the background; a store that is down now (cluster: Redis) must not become an unhandled rejection: the sweep ends it later.
      void this.end(sessionId, 'expired').catch((error: unknown) => this.deps.logger.warn({ err: error, sessionId }, 'ending an expired session failed; the sweep retries'));
      throw new QuireError('SESSION_NOT_FOUND', 'The session of this token has expired.');
    }
    return session;
  }

  private async localSession(claims: LocalTokenClaims): Promise<Session> {
    if (claims.use !== 'access') throw new QuireError('TOKEN_INVALID', 'A refresh token cannot be used to call the server; use the access token.');
    const session = await this.liveSession(claims.sessionId);
    if (session.accessTokenId !== claims.tokenId) {
      // -60 (not a code of our own): the clients only know -60 for a token whose session it no longer opens.
      throw new QuireError('SESSION_NOT_FOUND', 'This access token has been replaced by a refresh; use the newest access token.');
    }
    return session;
  }

  /** First use of an external subject's token opens a session; a token that lives longer renews it. */
  private async externalSession(identity: ExternalIdentity): Promise<Session> {
    const { store } = this.deps;
    // Checked on every call: a token from before a logout never opens a session again, not even a newer one.
    const notBefore = await store.externalRevocation(identity.providerId, identity.subject);
    if (notBefore !== undefined && identity.issuedAt <= notBefore) {
      throw new QuireError('SESSION_NOT_FOUND', 'The session of this token was ended by a logout; obtain a new token from the provider.');
    }
    const current = await store.findExternal(identity.providerId, identity.subject);
    const expiresAt = identity.expiresAt * 1000;
    if (current && current.expiresAt > Date.now() && current.expiresAt >= expiresAt) return current;
    return this.serial.run(`external:${identity.providerId}:${identity.subject}`, async () => {
      const existing = await store.findExternal(identity.providerId, identity.subject);
      const now = Date.now();
      if (existing && existing.expiresAt > now) {
        if (existing.expiresAt >= expiresAt) return existing;
        const renewed: Session = { ...existing, expiresAt, userName: identity.userName, roles: identity.roles };
        await store.put(renewed);
        return renewed;
      }
      if (existing) await this.end(existing.id, 'expired');
      await this.ensureCapacity();
      const session: Session = {
        id: newId(),
        kind: 'user',
        userName: identity.userName,
        roles: identity.roles,
        providerId: identity.providerId,
        subject: identity.subject,
        createdAt: now,
        expiresAt,
        accessTokenId: '',
        refreshTokenId: '',
        lastAccess: now,
      };
      await store.put(session);
      this.counters.created++;
      this.deps.logger.info({ sessionId: session.id, providerId: identity.providerId, userName: identity.userName }, 'session created');
      return session;
    });
  }

  private async ensureCapacity(): Promise<void> {
    if ((await this.deps.store.count()) >= this.deps.config.session.maxSessions) {
      throw new QuireError('TOO_MANY_SESSIONS', 'The server holds its maximum number of sessions; try again later.', {
        headers: { 'retry-after': '60' },
      });
    }
  }

  private async tokensFor(session: Session): Promise<LoginResult> {
    const expiresAt = Math.floor(session.expiresAt / 1000);
    const sessionId = session.id;
    const [token, refreshToken] = await Promise.all([
      this.deps.tokens.issue({ sessionId, tokenId: session.accessTokenId, use: 'access', expiresAt }),
      session.refreshTokenId ? this.deps.tokens.issue({ sessionId, tokenId: session.refreshTokenId, use: 'refresh', expiresAt }) : Promise.resolve(''),
    ]);
    return { token, refreshToken, expiresIn: Math.max(1, Math.round((session.expiresAt - Date.now()) / 1000)) };
  }
}

/** -60 rather than a code of our own: the clients know -60 for a token that no longer opens a session. */
function refreshTokenReplaced(): QuireError {
  return new QuireError('SESSION_NOT_FOUND', 'This refresh token has been replaced by a newer one (a refresh took place); use the newest refresh token.');
}
