/**
 * Issue 19: the portal's login with an OpenID Connect provider — what the browser does, played by the
 * test against the loopback provider (test/helpers/oidc-provider.ts): GET portal/providers (the
 * endpoints discovered by the server), the authorization request with PKCE, the code exchange, and
 * the provider's token used as Quire's bearer token (the existing external-token login).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PortalProvider } from '../../src/operations/portal/providers.js';
import { bearer, expectError } from '../helpers/client.js';
import { newVerifier, s256, startOidcProvider, type OidcProvider, type TokenAnswer } from '../helpers/oidc-provider.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let idp: OidcProvider;
let server: TestServer;
/** A provider without clientId (API tokens only) and one whose issuer does not answer: neither is offered. */
const HIDDEN = [
  '    - id: apionly',
  '      issuer: http://127.0.0.1:9/apionly',
  '      jwksUri: http://127.0.0.1:9/jwks',
  '      audience: quire-api',
  '    - id: unreachable',
  '      issuer: http://127.0.0.1:9/down',
  '      jwksUri: http://127.0.0.1:9/jwks',
  '      audience: quire-api',
  '      clientId: portal',
].join('\n');

beforeAll(async () => {
  idp = await startOidcProvider();
  server = await startTestServer({ yaml: `oauth:\n  providers:\n${idp.providerYaml({ scope: '"openid profile offline_access"' })}${HIDDEN}\n` });
});

afterAll(async () => {
  await server?.stop();
  await idp?.stop();
});

const origin = () => new URL(server.rest).origin;
const redirectUri = () => `${origin()}/webPDF/login/callback`;

async function providers(): Promise<PortalProvider[]> {
  const response = await fetch(`${server.rest}/portal/providers`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  return (await response.json()) as PortalProvider[];
}

/** The browser's part: to the authorization endpoint and back with a code; then the code exchange. */
async function signIn(provider: PortalProvider, verifier = newVerifier(), exchangeVerifier = verifier): Promise<Response> {
  return exchange(provider, await authorizationCode(provider, verifier), exchangeVerifier);
}

async function authorizationCode(provider: PortalProvider, verifier: string): Promise<string> {
  const state = newVerifier();
  const authorize = new URL(provider.authorizationEndpoint);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: provider.clientId,
    redirect_uri: redirectUri(),
    scope: provider.scope,
    state,
    nonce: 'n-1',
    code_challenge: s256(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const redirect = await fetch(authorize, { redirect: 'manual' });
  expect(redirect.status).toBe(302);
  const back = new URL(redirect.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(redirectUri());
  expect(back.searchParams.get('state')).toBe(state);
  const code = back.searchParams.get('code');
  expect(code).toBeTruthy();
  return code!;
}

function exchange(provider: PortalProvider, code: string, verifier: string): Promise<Response> {
  return fetch(provider.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: origin() },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri(), client_id: provider.clientId, code_verifier: verifier }).toString(),
  });
}

describe('the portal login with an OIDC provider', () => {
  it('offers the providers with a clientId whose endpoints are known, discovered by the server', async () => {
    const list = await providers();
    expect(list).toEqual([
      {
        id: 'oidc',
        name: 'Test OIDC',
        issuer: idp.issuer,
        authorizationEndpoint: `${idp.issuer}/authorize`,
        tokenEndpoint: `${idp.issuer}/token`,
        clientId: 'quire-portal',
        scope: 'openid profile offline_access',
        token: 'access_token',
      },
    ]);
    // Discovered once, then kept.
    await providers();
    expect(idp.counts.discovery).toBe(1);
  });

  it("allows the provider's origin in the portal's Content-Security-Policy", async () => {
    await providers();
    const page = await fetch(`${origin()}/webPDF/`);
    const directives = (page.headers.get('content-security-policy') ?? '').split(/;\s*/).map((d) => d.split(' '));
    for (const name of ['connect-src', 'form-action']) {
      const sources = directives.find((d) => d[0] === name) ?? [];
      expect(sources, name).toContain("'self'");
      expect(sources, name).toContain(idp.issuer);
    }
    expect(directives.find((d) => d[0] === 'script-src')).toEqual(['script-src', "'self'"]);
  });

  it('logs in to Quire with the token of an authorization code exchange with PKCE', async () => {
    const [provider] = await providers();
    const exchange = await signIn(provider!);
    expect(exchange.status).toBe(200);
    expect(exchange.headers.get('access-control-allow-origin')).toBe(origin());
    const tokens = (await exchange.json()) as TokenAnswer;
    const info = await fetch(`${server.rest}/authentication/user/info`, { headers: bearer(tokens[provider!.token]) });
    const body = (await info.json()) as Record<string, unknown>;
    expect(info.status, JSON.stringify(body)).toBe(200);
    expect(JSON.stringify(body)).toContain('olivia');
    // The id_token is for the portal (audience = its client id), not a Quire credential.
    await expectError(await fetch(`${server.rest}/authentication/user/info`, { headers: bearer(tokens.id_token) }), 401, -62);
  });

  it('refuses a wrong code_verifier and a code used twice (the provider checks PKCE)', async () => {
    const [provider] = await providers();
    const wrong = await signIn(provider!, newVerifier(), newVerifier());
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_grant');
    const verifier = newVerifier();
    const code = await authorizationCode(provider!, verifier);
    expect((await exchange(provider!, code, verifier)).status).toBe(200);
    const again = await exchange(provider!, code, verifier);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('renews with the refresh token, and the new access token is accepted', async () => {
    const [provider] = await providers();
    const first = (await (await signIn(provider!)).json()) as TokenAnswer;
    const renewed = await fetch(provider!.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: provider!.clientId }).toString(),
    });
    expect(renewed.status).toBe(200);
    const second = (await renewed.json()) as TokenAnswer;
    expect(second.access_token).not.toBe(first.access_token);
    expect((await fetch(`${server.rest}/authentication/user/info`, { headers: bearer(second.access_token) })).status).toBe(200);
  });

  it('sends the user back with error=access_denied when the provider refuses', async () => {
    const [provider] = await providers();
    idp.deny();
    try {
      const url = new URL(provider!.authorizationEndpoint);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: provider!.clientId,
        redirect_uri: redirectUri(),
        state: 's',
        code_challenge: s256(newVerifier()),
        code_challenge_method: 'S256',
      }).toString();
      const redirect = await fetch(url, { redirect: 'manual' });
      expect(new URL(redirect.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    } finally {
      idp.approve();
    }
  });
});
