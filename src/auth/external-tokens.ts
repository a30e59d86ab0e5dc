import type { JWTPayload, createRemoteJWKSet } from 'jose';
import type { OAuthProviderConfig, Role } from '../config/schema.js';
import { QuireError } from '../core/errors.js';
import { type Jose, loadJose } from './jose.js';
import { describeJoseError } from './tokens.js';

/** Who an external OAuth 2.0 token speaks for, after its signature and claims were checked. */
export interface ExternalIdentity {
  providerId: string;
  subject: string;
  userName: string;
  roles: Role[];
  /** Epoch seconds. */
  issuedAt: number;
  /** Epoch seconds until which the token is accepted: its exp plus the provider's clock tolerance. */
  expiresAt: number;
}

interface Provider {
  config: OAuthProviderConfig;
  keys: ReturnType<typeof createRemoteJWKSet>;
}

/**
 * Validates JWTs of the configured external providers on every call: signature against the
 * provider's JWKS (fetched and cached by jose, refetched when an unknown key id appears), issuer,
 * audience, expiry and the provider's allowed algorithms.
 */
export class ExternalTokenVerifier {
  private readonly byIssuer = new Map<string, Provider>();

  /** jose is loaded only when a provider is configured: without one, no token ever reaches it. */
  static async create(providers: OAuthProviderConfig[]): Promise<ExternalTokenVerifier> {
    return new ExternalTokenVerifier(providers, providers.length > 0 ? await loadJose() : undefined);
  }

  private constructor(
    providers: OAuthProviderConfig[],
    private readonly jose: Jose | undefined,
  ) {
    for (const config of providers) {
      this.byIssuer.set(config.issuer, {
        config,
        keys: jose!.createRemoteJWKSet(new URL(config.jwksUri), {
          timeoutDuration: 5000,
          cooldownDuration: config.jwksCooldown * 1000,
          cacheMaxAge: 600_000,
        }),
      });
    }
  }

  /** The provider whose issuer the (not yet verified) token names, if any. */
  providerFor(token: string): OAuthProviderConfig | undefined {
    if (this.byIssuer.size === 0) return undefined;
    let payload: JWTPayload;
    try {
      payload = this.jose!.decodeJwt(token);
    } catch {
      return undefined;
    }
    return typeof payload.iss === 'string' ? this.byIssuer.get(payload.iss)?.config : undefined;
  }

  async verify(token: string, providerConfig: OAuthProviderConfig): Promise<ExternalIdentity> {
    const provider = this.byIssuer.get(providerConfig.issuer)!;
    const { config } = provider;
    let payload: JWTPayload;
    try {
      ({ payload } = await this.jose!.jwtVerify(token, provider.keys, {
        algorithms: config.algorithms,
        issuer: config.issuer,
        audience: config.audience,
        clockTolerance: config.clockTolerance,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      throw new QuireError('TOKEN_INVALID', `${config.id}: ${describeJoseError(error)}`, { cause: error });
    }
    const claimed = stringsAt(payload, config.rolesClaim);
    const roles: Role[] = [];
    if (config.userRoles.length === 0 || claimed.some((r) => config.userRoles.includes(r))) roles.push('user');
    if (claimed.some((r) => config.adminRoles.includes(r))) roles.push('admin');
    if (roles.length === 0) {
      throw new QuireError('FORBIDDEN', `${config.id}: the token carries none of the roles that grant access to this server.`);
    }
    const nameClaim = claimAt(payload, config.userNameClaim);
    const name = typeof nameClaim === 'string' && nameClaim !== '' ? nameClaim : payload.sub!;
    return {
      providerId: config.id,
      subject: payload.sub!,
      userName: name,
      roles,
      issuedAt: payload.iat ?? 0,
      // jose accepts the token until exp + clockTolerance; the session must not end before the token does.
      expiresAt: payload.exp! + config.clockTolerance,
    };
  }
}

/** The claim a dotted path names (`realm_access.roles`). */
function claimAt(payload: JWTPayload, claimPath: string): unknown {
  let node: unknown = payload;
  for (const key of claimPath.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Role values of a claim: an array is kept, a space-separated string is split (OAuth `scope` style). */
function stringsAt(payload: JWTPayload, claimPath: string): string[] {
  const node = claimAt(payload, claimPath);
  if (Array.isArray(node)) return node.filter((v): v is string => typeof v === 'string');
  if (typeof node === 'string') return node.split(/\s+/).filter(Boolean);
  return [];
}
