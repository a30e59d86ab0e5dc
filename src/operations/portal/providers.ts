import type { OAuthProviderConfig } from '../../config/schema.js';
import { AddressPolicy, type AddressPolicyOptions } from '../../engines/net/address-policy.js';
import { fetchSmall } from '../../engines/net/fetch-small.js';

/** What the portal's login page needs to sign in with one provider (authorization code with PKCE). */
export interface PortalProvider {
  id: string;
  name: string;
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  clientId: string;
  scope: string;
  /** Which token of the provider's token answer the portal sends to Quire as its bearer token. */
  token: 'access_token' | 'id_token';
}

interface Logger {
  warn(object: object, message: string): void;
}

/** A discovery document is a few kilobytes; a provider that sends more is not one. */
const MAX_DISCOVERY_BYTES = 256 * 1024;
const DISCOVERY_TIMEOUT_MS = 5_000;
/** A discovered provider is asked again after an hour, a failed discovery after a minute. */
const KEEP_DISCOVERED_MS = 3_600_000;
const RETRY_FAILED_MS = 60_000;

interface Discovered {
  endpoints?: { authorizationEndpoint: string; tokenEndpoint: string };
  until: number;
}

/**
 * The configured OAuth 2.0/OIDC providers as the portal's login page offers them: those with a
 * `clientId`, with their endpoints as configured or, where left empty, from the issuer's
 * `/.well-known/openid-configuration`. Discovery is fetched by the server (the browser may not reach
 * it cross-origin) through the outbound-request guard (engines/net): http(s) only, the connection
 * pinned to the addresses checked, no redirects, a size and time limit. The issuer is the
 * administrator's own setting, so its host is allowed even when internal (a company's Keycloak);
 * the `network` policy applies to nothing else here. A provider whose discovery fails is left out
 * (and logged) until a later call discovers it.
 *
 * `origins()` are the providers' origins for the portal's Content-Security-Policy (the browser posts
 * the code to the token endpoint and navigates to the authorization endpoint).
 */
export class PortalProviders {
  private readonly discovered = new Map<string, Discovered>();
  private knownOrigins: readonly string[];

  constructor(
    private readonly providers: readonly OAuthProviderConfig[],
    private readonly network: AddressPolicyOptions,
    private readonly log: Logger,
  ) {
    this.knownOrigins = this.collectOrigins();
  }

  /** The providers the login page offers, in configuration order. */
  async list(): Promise<PortalProvider[]> {
    const offered = this.providers.filter((p) => p.clientId !== '');
    const resolved = await Promise.all(offered.map((p) => this.resolve(p)));
    this.knownOrigins = this.collectOrigins();
    return resolved.filter((p): p is PortalProvider => p !== undefined);
  }

  /** Origins of issuers and known endpoints; the same array until one is added, so the policy string is rebuilt only then. */
  origins(): readonly string[] {
    return this.knownOrigins;
  }

  private async resolve(config: OAuthProviderConfig): Promise<PortalProvider | undefined> {
    let { authorizationEndpoint, tokenEndpoint } = config;
    if (authorizationEndpoint === '' || tokenEndpoint === '') {
      const endpoints = await this.discover(config);
      if (!endpoints) return undefined;
      authorizationEndpoint ||= endpoints.authorizationEndpoint;
      tokenEndpoint ||= endpoints.tokenEndpoint;
    }
    return {
      id: config.id,
      name: config.name || config.id,
      issuer: config.issuer,
      authorizationEndpoint,
      tokenEndpoint,
      clientId: config.clientId,
      scope: config.scope,
      token: config.portalToken,
    };
  }

  private async discover(config: OAuthProviderConfig): Promise<Discovered['endpoints']> {
    const known = this.discovered.get(config.id);
    if (known && known.until > Date.now()) return known.endpoints;
    const url = `${config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let endpoints: Discovered['endpoints'];
    try {
      const host = new URL(url).hostname;
      const policy = new AddressPolicy({ ...this.network, allowHosts: [...(this.network.allowHosts ?? []), host.replace(/^\[|\]$/g, '')] });
      const document = JSON.parse((await fetchSmall({ url, policy, maxBytes: MAX_DISCOVERY_BYTES, timeoutMs: DISCOVERY_TIMEOUT_MS })).toString('utf8')) as Record<string, unknown>;
      endpoints = endpointsOf(document, config.issuer);
    } catch (error) {
      this.log.warn({ provider: config.id, url, err: error }, 'OpenID discovery failed: the provider is not offered on the portal login page');
    }
    this.discovered.set(config.id, { ...(endpoints ? { endpoints } : {}), until: Date.now() + (endpoints ? KEEP_DISCOVERED_MS : RETRY_FAILED_MS) });
    return endpoints;
  }

  private collectOrigins(): readonly string[] {
    const urls = this.providers.flatMap((p) => {
      const found = this.discovered.get(p.id)?.endpoints;
      return [p.issuer, p.authorizationEndpoint, p.tokenEndpoint, found?.authorizationEndpoint ?? '', found?.tokenEndpoint ?? ''];
    });
    const origins = [...new Set(urls.flatMap((u) => originOf(u) ?? []))].sort();
    const previous = this.knownOrigins as readonly string[] | undefined;
    return previous && previous.length === origins.length && previous.every((o, i) => o === origins[i]) ? previous : origins;
  }
}

/** The two endpoints of a discovery document, when it is one for this issuer (OIDC Discovery §4.3). */
function endpointsOf(document: Record<string, unknown>, issuer: string): Discovered['endpoints'] {
  const { authorization_endpoint: authorization, token_endpoint: token } = document;
  if (document.issuer !== issuer) throw new Error(`the discovery document names the issuer ${JSON.stringify(document.issuer)}, not ${issuer}`);
  if (typeof authorization !== 'string' || originOf(authorization) === undefined) throw new Error('the discovery document has no http(s) authorization_endpoint');
  if (typeof token !== 'string' || originOf(token) === undefined) throw new Error('the discovery document has no http(s) token_endpoint');
  return { authorizationEndpoint: authorization, tokenEndpoint: token };
}

function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}
