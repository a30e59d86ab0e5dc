/**
 * Login at an OAuth 2.0 / OpenID Connect provider: authorization code with PKCE (RFC 7636, S256) in
 * the browser, no client secret. The provider's JWT then serves as the external token of every call
 * (the server checks its signature, issuer, audience and expiry: src/auth/external-tokens.ts), and
 * the provider's refresh token renews it. The verifier and state wait in sessionStorage during the
 * round trip to the provider (this tab only).
 */
export interface Provider {
  id: string;
  name: string;
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  clientId: string;
  scope: string;
  /** The member of the token answer Quire takes as the bearer token. */
  token?: 'access_token' | 'id_token';
}

const PENDING_KEY = 'quire.oidc';

interface Pending {
  provider: Provider;
  state: string;
  verifier: string;
  redirectUri: string;
}

export interface ProviderTokens {
  token: string;
  refreshToken: string;
  expiresAt: number;
}

export async function listProviders(): Promise<Provider[]> {
  try {
    const response = await fetch('/webPDF/rest/portal/providers', { credentials: 'omit' });
    if (!response.ok) return [];
    const providers = (await response.json()) as unknown;
    return Array.isArray(providers) ? (providers as Provider[]) : [];
  } catch {
    return [];
  }
}

/** The portal's own address without query or fragment: where the provider sends the code back. */
function redirectUri(): string {
  return `${location.origin}/webPDF/`;
}

/** Leaves for the provider's authorization endpoint. */
export async function startLogin(provider: Provider): Promise<void> {
  const verifier = randomToken(48);
  const state = randomToken(24);
  const pending: Pending = { provider, state, verifier, redirectUri: redirectUri() };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(provider.authorizationEndpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', provider.clientId);
  url.searchParams.set('redirect_uri', pending.redirectUri);
  url.searchParams.set('scope', provider.scope || 'openid');
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await challengeOf(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  location.assign(url.toString());
}

/**
 * Back from the provider (?code=&state= or ?error=): exchanges the code for tokens. Undefined when the
 * page was not opened by a provider's redirect. The query is removed from the address bar either way.
 */
export async function finishLogin(): Promise<(ProviderTokens & { provider: Provider }) | undefined> {
  const query = new URLSearchParams(location.search);
  if (!query.has('state') || (!query.has('code') && !query.has('error'))) return undefined;
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
  const pending = readPending();
  sessionStorage.removeItem(PENDING_KEY);
  if (!pending || pending.state !== query.get('state')) throw new Error('The answer of the identity provider does not belong to a login started here (state mismatch).');
  const error = query.get('error');
  if (error) throw new Error(`${pending.provider.name}: ${query.get('error_description') ?? error}`);
  const tokens = await tokenRequest(pending.provider, {
    grant_type: 'authorization_code',
    code: query.get('code') ?? '',
    redirect_uri: pending.redirectUri,
    client_id: pending.provider.clientId,
    code_verifier: pending.verifier,
  });
  return { ...tokens, provider: pending.provider };
}

export function refreshAtProvider(provider: Provider, refreshToken: string): Promise<ProviderTokens> {
  return tokenRequest(provider, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: provider.clientId });
}

async function tokenRequest(provider: Provider, form: Record<string, string>): Promise<ProviderTokens> {
  const response = await fetch(provider.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
    credentials: 'omit',
  });
  if (!response.ok) {
    // OAuth errors are {error, error_description} (RFC 6749 §5.2), not Quire's structure.
    const failure = (await response.json().catch(() => ({}))) as { error?: string; error_description?: string };
    throw new Error(`${provider.name}: ${failure.error_description ?? failure.error ?? `${response.status} ${response.statusText}`}`);
  }
  const answer = (await response.json()) as { access_token?: string; id_token?: string; refresh_token?: string; expires_in?: number };
  // The member the server names for this provider; without one, the access token when it is a JWT, else the ID token.
  const token = provider.token ? answer[provider.token] : isJwt(answer.access_token) ? answer.access_token : answer.id_token;
  if (!token || !isJwt(token)) throw new Error(`${provider.name} answered without a JWT (access_token or id_token).`);
  const expiresIn = typeof answer.expires_in === 'number' ? answer.expires_in : expiryOf(token);
  return { token, refreshToken: answer.refresh_token ?? '', expiresAt: Date.now() + expiresIn * 1000 };
}

function isJwt(value: string | undefined): value is string {
  return typeof value === 'string' && /^[\w-]+\.[\w-]+\.[\w-]+$/.test(value);
}

/** Seconds until the JWT's exp (read only to schedule the renewal: the server verifies the token). */
function expiryOf(token: string): number {
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number };
    return typeof payload.exp === 'number' ? payload.exp - Date.now() / 1000 : 300;
  } catch {
    return 300;
  }
}

function readPending(): Pending | undefined {
  try {
    return (JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as Pending | null) ?? undefined;
  } catch {
    return undefined;
  }
}

function randomToken(bytes: number): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

async function challengeOf(verifier: string): Promise<string> {
  // crypto.subtle exists in secure contexts only (https, or http on localhost / 127.0.0.1).
  if (!crypto.subtle) throw new Error('OIDC login needs a secure context (https, or http on localhost).');
  return base64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
