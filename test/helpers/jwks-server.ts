import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/** One signing key of the test identity provider. */
export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export async function newSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateKey, publicKey, publicJwk };
}

export interface TokenOptions {
  /** Defaults: the provider's issuer and audience `quire-api`. */
  issuer?: string;
  audience?: string | string[];
  subject?: string;
  /** Epoch seconds; default now. */
  issuedAt?: number;
  /** Epoch seconds; default now + 600. */
  expiresAt?: number;
  /** Defaults to the provider's current key. */
  key?: SigningKey;
}

/**
 * A minimal OAuth 2.0 identity provider on 127.0.0.1: serves its JSON Web Key Set at `/jwks.json`
 * (counting the fetches) and signs RS256 tokens. `rotate()` replaces the published key set.
 */
export class JwksServer {
  fetches = 0;
  private published: SigningKey[];

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    readonly jwksUri: string,
    public key: SigningKey,
  ) {
    this.published = [key];
  }

  static async start(): Promise<JwksServer> {
    const key = await newSigningKey('key-1');
    let self: JwksServer | undefined;
    const server = createServer((request, response) => {
      if (request.url === '/jwks.json' && self) {
        self.fetches++;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ keys: self.published.map((k) => k.publicJwk) }));
        return;
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new JwksServer(server, `http://127.0.0.1:${port}/`, `http://127.0.0.1:${port}/jwks.json`, key);
    return self;
  }

  /** The provider entry of the Quire configuration (YAML), indented for `oauth.providers`. */
  providerYaml(extra: Record<string, string> = {}, id = 'testidp'): string {
    const lines = [
      `    - id: ${id}`,
      `      issuer: ${this.issuer}`,
      `      jwksUri: ${this.jwksUri}`,
      '      audience: quire-api',
      '      algorithms: [RS256]',
      '      userNameClaim: preferred_username',
      '      rolesClaim: roles',
      '      adminRoles: [quire-admin]',
      ...Object.entries(extra).map(([k, v]) => `      ${k}: ${v}`),
    ];
    return `${lines.join('\n')}\n`;
  }

  /** Publishes a new key set with a fresh key (new kid); tokens signed by the old key stop verifying after a refetch. */
  async rotate(kid: string): Promise<SigningKey> {
    this.key = await newSigningKey(kid);
    this.published = [this.key];
    return this.key;
  }

  async sign(claims: JWTPayload, options: TokenOptions = {}): Promise<string> {
    const key = options.key ?? this.key;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
      .setIssuer(options.issuer ?? this.issuer)
      .setAudience(options.audience ?? 'quire-api')
      .setSubject(options.subject ?? 'user-1')
      .setIssuedAt(options.issuedAt ?? now)
      .setExpirationTime(options.expiresAt ?? now + 600)
      .sign(key.privateKey);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** base64url of a JSON value, as in a JWS compact serialization. */
export function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
