/**
 * The session: the access token in memory, mirrored in sessionStorage (this tab only, gone when it
 * closes; never localStorage, where every tab and any later visitor of the profile would find it).
 * The token is renewed with the refresh token before it expires; an expired or revoked session
 * returns to the login page with a notice that says why.
 */
import { errorOf, json } from './http';
import { type Provider, type ProviderTokens, refreshAtProvider } from './oidc';
import { Store } from './store';

const STORAGE_KEY = 'quire.session';
/** Renew this long before expiry (or at 80 % of a short lifetime). */
const RENEW_AHEAD_MS = 60_000;

export interface UserInfo {
  userName: string;
  roles: string[];
  isAdmin: boolean;
  uniqueId: string;
  userLimits: { type: string; uploadLimit: number; maxFiles: number; diskSpaceLimit: number };
}

export interface Credentials {
  token: string;
  /** The server's refresh token (local and anonymous sessions), or the provider's (OIDC). */
  refreshToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** Set for a provider's token: it is renewed at the provider, not at the server. */
  provider?: Provider;
}

export type Notice = { kind: 'expired' | 'loggedOut' | 'error'; detail?: string };

export interface SessionState {
  credentials?: Credentials;
  user?: UserInfo;
  notice?: Notice;
}

interface TokenAnswer {
  token: string;
  refreshToken: string;
  expiresIn: number;
}

class SessionManager {
  readonly state = new Store<SessionState>({});
  private timer: ReturnType<typeof setTimeout> | undefined;
  private renewing: Promise<void> | undefined;

  /** Restores the tab's session after a reload; false when there is none (or it has expired). */
  async restore(): Promise<boolean> {
    const saved = readSaved();
    if (!saved) return false;
    if (saved.expiresAt <= Date.now() && !saved.refreshToken) {
      sessionStorage.removeItem(STORAGE_KEY);
      this.state.set({ notice: { kind: 'expired' } });
      return false;
    }
    try {
      await this.open(saved);
      return true;
    } catch {
      return false;
    }
  }

  /** User and password, or anonymous without: POST authentication/user/login (Basic). */
  async login(user?: string, password?: string): Promise<void> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (user !== undefined) headers.authorization = `Basic ${base64Utf8(`${user}:${password ?? ''}`)}`;
    const response = await fetch(`/webPDF/rest/authentication/user/login`, { method: 'POST', headers, body: JSON.stringify({ createRefreshToken: true }), credentials: 'omit' });
    if (!response.ok) throw await errorOf(response);
    await this.open(credentialsOf((await response.json()) as TokenAnswer));
  }

  /** A provider's JWT, used as the external token of every call (the server verifies it each time). */
  async loginExternal(tokens: ProviderTokens & { provider: Provider }): Promise<void> {
    await this.open({ token: tokens.token, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt, provider: tokens.provider });
  }

  /** Reads the user's information with the credentials and makes them the session's. */
  private async open(credentials: Credentials): Promise<void> {
    this.adopt(credentials);
    try {
      const user = await json<UserInfo>('authentication/user/info');
      this.state.set({ credentials: this.state.get().credentials, user });
    } catch (error) {
      this.clear();
      throw error;
    }
  }

  private adopt(credentials: Credentials): void {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credentials));
    this.state.set({ ...this.state.get(), credentials, notice: undefined });
    this.schedule(credentials);
  }

  private schedule(credentials: Credentials): void {
    clearTimeout(this.timer);
    if (!credentials.refreshToken) {
      // Without a refresh token the session ends at expiry: say so at that moment, not at the next click.
      this.timer = setTimeout(() => this.expired(), Math.max(0, credentials.expiresAt - Date.now()));
      return;
    }
    const lifetime = credentials.expiresAt - Date.now();
    const ahead = Math.min(RENEW_AHEAD_MS, lifetime * 0.2);
    this.timer = setTimeout(() => void this.renew().catch(() => this.expired()), Math.max(0, lifetime - ahead));
  }

  /** The token to send now: renewed first when it is about to expire. */
  async validToken(): Promise<string | undefined> {
    const credentials = this.state.get().credentials;
    if (!credentials) return undefined;
    if (credentials.expiresAt - Date.now() < 5_000 && credentials.refreshToken) await this.renew();
    return this.state.get().credentials?.token;
  }

  /** Renews the tokens once, however many calls ask at the same time. */
  renew(): Promise<void> {
    this.renewing ??= this.renewNow().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private async renewNow(): Promise<void> {
    const credentials = this.state.get().credentials;
    if (!credentials?.refreshToken) throw new Error('no refresh token');
    if (credentials.provider) {
      const renewed = await refreshAtProvider(credentials.provider, credentials.refreshToken);
      this.adopt({ ...renewed, provider: credentials.provider });
      return;
    }
    const response = await fetch('/webPDF/rest/authentication/user/refresh', {
      method: 'POST',
      headers: { authorization: `Bearer ${credentials.refreshToken}`, 'content-type': 'application/json' },
      body: '{}',
      credentials: 'omit',
    });
    if (!response.ok) throw await errorOf(response);
    this.adopt(credentialsOf((await response.json()) as TokenAnswer));
  }

  /** The server refused the token (401) or it ran out: back to the login page, saying so. */
  expired(detail?: string): void {
    if (!this.state.get().credentials) return;
    this.clear();
    this.state.set({ notice: { kind: 'expired', ...(detail ? { detail } : {}) } });
  }

  /** GET authentication/user/logout ends the session on the server (and deletes its documents). */
  async logout(): Promise<void> {
    const token = this.state.get().credentials?.token;
    if (token) await fetch('/webPDF/rest/authentication/user/logout', { headers: { authorization: `Bearer ${token}` }, credentials: 'omit' }).catch(() => undefined);
    this.clear();
    this.state.set({ notice: { kind: 'loggedOut' } });
  }

  private clear(): void {
    clearTimeout(this.timer);
    sessionStorage.removeItem(STORAGE_KEY);
    this.state.set({});
  }
}

function credentialsOf(answer: TokenAnswer): Credentials {
  return { token: answer.token, refreshToken: answer.refreshToken ?? '', expiresAt: Date.now() + answer.expiresIn * 1000 };
}

function readSaved(): Credentials | undefined {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Credentials | null;
    return saved && typeof saved.token === 'string' && typeof saved.expiresAt === 'number' ? saved : undefined;
  } catch {
    return undefined;
  }
}

/** btoa takes Latin-1 only; a user name or password may hold any character. */
function base64Utf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export const session = new SessionManager();
