import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * A loopback OpenID Connect provider for the tests of the portal's login (issue 19): the
 * authorization code flow with PKCE (S256 only) as a browser runs it against Keycloak or Entra ID.
 *
 * - `GET /.well-known/openid-configuration`: the discovery document.
 * - `GET /authorize`: checks client_id, redirect_uri (must start with one of `redirectUris`, default
 *   any http://127.0.0.1 / http://localhost URL), response_type=code, code_challenge with method S256;
 *   approves `user` at once (no login form) and redirects to redirect_uri with code and state. With
 *   `deny()` it redirects with error=access_denied instead.
 * - `POST /token` (application/x-www-form-urlencoded, CORS open like a provider's web-origin setting):
 *   grant_type=authorization_code checks the code (once, 60 s), client_id, redirect_uri and the
 *   code_verifier against the challenge; grant_type=refresh_token rotates the refresh token. Answers
 *   access_token (aud = `audience`), id_token (aud = clientId, with the nonce), refresh_token,
 *   token_type Bearer and expires_in; both tokens are RS256 JWTs.
 * - `GET /jwks`: the public key.
 *
 *   const idp = await startOidcProvider();
 *   startTestServer({ yaml: `oauth:\n  providers:\n${idp.providerYaml()}` });
 */
export interface OidcUser {
  sub: string;
  preferred_username: string;
  roles: string[];
  [claim: string]: unknown;
}

export interface OidcProviderOptions {
  clientId?: string;
  /** The access token's audience: Quire's `oauth.providers[].audience`. Default quire-api. */
  audience?: string;
  /** Seconds the tokens live. Default 300. */
  tokenLifetime?: number;
  user?: Partial<OidcUser>;
  /** Allowed redirect URI prefixes; default any loopback http URL. */
  redirectUris?: string[];
}

export interface OidcProvider {
  /** http://127.0.0.1:<port> (no trailing slash, as Keycloak's realms). */
  issuer: string;
  clientId: string;
  audience: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  /** The user the provider approves; change it between logins. */
  user: OidcUser;
  /** Calls so far, for tests that count them. */
  counts: { discovery: number; authorize: number; token: number; refresh: number; jwks: number };
  /** The next authorizations are refused (error=access_denied) until `approve()`. */
  deny(): void;
  approve(): void;
  /** Tokens for `user` without the browser flow (as the token endpoint would answer). */
  issueTokens(nonce?: string): Promise<TokenAnswer>;
  /** The provider entry of Quire's configuration (YAML list item, indented for `oauth.providers`). */
  providerYaml(extra?: Record<string, string>, id?: string): string;
  stop(): Promise<void>;
}

export interface TokenAnswer {
  access_token: string;
  id_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce: string | undefined;
  scope: string;
  expiresAt: number;
}

const CODE_LIFETIME_MS = 60_000;

/** The S256 code challenge of a verifier (RFC 7636 §4.2); exported for tests that play the browser. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** A fresh PKCE verifier (43 to 128 characters of the unreserved set). */
export function newVerifier(): string {
  return randomBytes(32).toString('base64url');
}

export async function startOidcProvider(options: OidcProviderOptions = {}): Promise<OidcProvider> {
  const clientId = options.clientId ?? 'quire-portal';
  const audience = options.audience ?? 'quire-api';
  const lifetime = options.tokenLifetime ?? 300;
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `oidc-${randomBytes(4).toString('hex')}`;
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const codes = new Map<string, PendingCode>();
  const refreshTokens = new Map<string, { scope: string }>();
  let denying = false;
  let issuer = '';

  const provider: OidcProvider = {
    issuer: '',
    clientId,
    audience,
    authorizationEndpoint: '',
    tokenEndpoint: '',
    jwksUri: '',
    user: { sub: 'oidc-user-1', preferred_username: 'olivia', roles: ['quire-user'], ...options.user } as OidcUser,
    counts: { discovery: 0, authorize: 0, token: 0, refresh: 0, jwks: 0 },
    deny: () => {
      denying = true;
    },
    approve: () => {
      denying = false;
    },
    issueTokens: (nonce) => issue(privateKey, kid, provider, lifetime, 'openid profile', nonce, refreshTokens),
    providerYaml: (extra = {}, id = 'oidc') =>
      `${[
        `    - id: ${id}`,
        `      name: Test OIDC`,
        `      issuer: ${provider.issuer}`,
        `      jwksUri: ${provider.jwksUri}`,
        `      audience: ${audience}`,
        '      algorithms: [RS256]',
        '      userNameClaim: preferred_username',
        '      rolesClaim: roles',
        '      adminRoles: [quire-admin]',
        `      clientId: ${clientId}`,
        ...Object.entries(extra).map(([key, value]) => `      ${key}: ${value}`),
      ].join('\n')}\n`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const redirectAllowed = (uri: string) => {
    if (options.redirectUris) return options.redirectUris.some((prefix) => uri.startsWith(prefix));
    try {
      const url = new URL(uri);
      return url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === 'localhost');
    } catch {
      return false;
    }
  };

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: 'server_error', error_description: String(error) });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', issuer);
    // A provider's "web origins": the portal posts to the token endpoint from its own origin.
    response.setHeader('access-control-allow-origin', request.headers.origin ?? '*');
    response.setHeader('vary', 'Origin');
    if (request.method === 'OPTIONS') {
      response.writeHead(204, { 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': 'content-type, authorization', 'access-control-max-age': '600' }).end();
      return;
    }
    if (request.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      provider.counts.discovery++;
      sendJson(response, 200, {
        issuer,
        authorization_endpoint: provider.authorizationEndpoint,
        token_endpoint: provider.tokenEndpoint,
        jwks_uri: provider.jwksUri,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['openid', 'profile', 'offline_access'],
      });
      return;
    }
    if (request.method === 'GET' && url.pathname === '/jwks') {
      provider.counts.jwks++;
      sendJson(response, 200, { keys: [publicJwk] });
      return;
    }
    if (request.method === 'GET' && url.pathname === '/authorize') {
      provider.counts.authorize++;
      authorize(url.searchParams, response);
      return;
    }
    if (request.method === 'POST' && url.pathname === '/token') {
      provider.counts.token++;
      const form = new URLSearchParams(await readBody(request));
      await token(form, request.headers['content-type'] ?? '', response);
      return;
    }
    sendJson(response, 404, { error: 'not_found' });
  }

  function authorize(query: URLSearchParams, response: ServerResponse): void {
    const redirectUri = query.get('redirect_uri') ?? '';
    // Errors about the client or the redirect URI are shown, never redirected (RFC 6749 §4.1.2.1).
    if (query.get('client_id') !== clientId) return sendJson(response, 400, { error: 'unauthorized_client', error_description: 'unknown client_id' });
    if (!redirectAllowed(redirectUri)) return sendJson(response, 400, { error: 'invalid_request', error_description: 'redirect_uri not registered' });
    const back = new URL(redirectUri);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const fail = (error: string, description: string) => {
      back.searchParams.set('error', error);
      back.searchParams.set('error_description', description);
      response.writeHead(302, { location: back.href }).end();
    };
    if (query.get('response_type') !== 'code') return fail('unsupported_response_type', 'only response_type=code');
    const challenge = query.get('code_challenge') ?? '';
    if (query.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) return fail('invalid_request', 'PKCE with code_challenge_method=S256 is required');
    if (denying) return fail('access_denied', 'the user declined');
    const code = randomBytes(24).toString('base64url');
    codes.set(code, { clientId, redirectUri, challenge, nonce: query.get('nonce') ?? undefined, scope: query.get('scope') ?? 'openid', expiresAt: Date.now() + CODE_LIFETIME_MS });
    back.searchParams.set('code', code);
    back.searchParams.set('iss', issuer);
    response.writeHead(302, { location: back.href }).end();
  }

  async function token(form: URLSearchParams, contentType: string, response: ServerResponse): Promise<void> {
    if (!contentType.startsWith('application/x-www-form-urlencoded')) return sendJson(response, 400, { error: 'invalid_request', error_description: 'form-encoded body expected' });
    if (form.get('client_id') !== clientId) return sendJson(response, 401, { error: 'invalid_client' });
    const grant = form.get('grant_type');
    if (grant === 'authorization_code') {
      const code = form.get('code') ?? '';
      const pending = codes.get(code);
      codes.delete(code); // one use, whatever happens next
      if (!pending || pending.expiresAt < Date.now()) return sendJson(response, 400, { error: 'invalid_grant', error_description: 'unknown, used or expired code' });
      if (form.get('redirect_uri') !== pending.redirectUri) return sendJson(response, 400, { error: 'invalid_grant', error_description: 'redirect_uri differs from the authorization request' });
      if (s256(form.get('code_verifier') ?? '') !== pending.challenge) return sendJson(response, 400, { error: 'invalid_grant', error_description: 'code_verifier does not match the code_challenge' });
      return sendJson(response, 200, await issue(privateKey, kid, provider, lifetime, pending.scope, pending.nonce, refreshTokens));
    }
    if (grant === 'refresh_token') {
      provider.counts.refresh++;
      const presented = form.get('refresh_token') ?? '';
      const known = refreshTokens.get(presented);
      refreshTokens.delete(presented); // rotated
      if (!known) return sendJson(response, 400, { error: 'invalid_grant', error_description: 'unknown or used refresh token' });
      return sendJson(response, 200, await issue(privateKey, kid, provider, lifetime, known.scope, undefined, refreshTokens));
    }
    return sendJson(response, 400, { error: 'unsupported_grant_type' });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  issuer = `http://127.0.0.1:${port}`;
  Object.assign(provider, { issuer, authorizationEndpoint: `${issuer}/authorize`, tokenEndpoint: `${issuer}/token`, jwksUri: `${issuer}/jwks` });
  return provider;
}

async function issue(
  privateKey: CryptoKey,
  kid: string,
  provider: OidcProvider,
  lifetime: number,
  scope: string,
  nonce: string | undefined,
  refreshTokens: Map<string, { scope: string }>,
): Promise<TokenAnswer> {
  const now = Math.floor(Date.now() / 1000);
  const { sub, ...claims } = provider.user;
  const sign = (payload: Record<string, unknown>, audience: string) =>
    new SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(provider.issuer)
      .setSubject(sub)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + lifetime)
      .setJti(randomBytes(8).toString('hex'))
      .sign(privateKey);
  const refresh = randomBytes(24).toString('base64url');
  refreshTokens.set(refresh, { scope });
  return {
    access_token: await sign({ ...claims, scope, azp: provider.clientId }, provider.audience),
    id_token: await sign({ ...claims, ...(nonce ? { nonce } : {}), azp: provider.clientId }, provider.clientId),
    refresh_token: refresh,
    token_type: 'Bearer',
    expires_in: lifetime,
    scope,
  };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 64 * 1024) throw new Error('token request too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
