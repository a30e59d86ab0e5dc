import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { QuireError } from '../../core/errors.js';
import { isAdmin, type Session } from '../../sessions/session.js';
import type { SessionService } from '../../sessions/session-service.js';

/**
 * Who may call a route, declared in its `config.auth`:
 * - `none`: anyone (health, the OpenAPI document);
 * - `login`: Basic credentials or nothing (the login routes check them);
 * - `refresh`: a refresh token as bearer (the refresh route checks it);
 * - `session` (default): a valid access token;
 * - `admin`: a valid access token of an administrator;
 * - `admin-or-basic`: like `admin`, or an administrator's Basic credentials checked on every call
 *   (the metrics: Prometheus scrapers send `basic_auth`, and a session per scrape would pile up).
 * The same declaration produces the route's security requirement in the OpenAPI document.
 */
export type AuthLevel = 'none' | 'login' | 'refresh' | 'session' | 'admin' | 'admin-or-basic';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthLevel;
  }
  interface FastifyRequest {
    /** The caller's session on routes that need one. */
    session: Session | null;
  }
}

export function registerAuth(app: FastifyInstance, sessions: SessionService): void {
  app.decorateRequest('session', null);

  app.addHook('onRoute', (route: RouteOptions) => {
    const level: AuthLevel = route.config?.auth ?? 'session';
    route.schema = { ...route.schema, security: securityFor(level) } as RouteOptions['schema'];
  });

  app.addHook('onRequest', async (request) => {
    if (request.is404) return;
    if (request.session && (request.routeOptions.config.auth ?? 'session') === 'session') return;
    const level: AuthLevel = request.routeOptions.config.auth ?? 'session';
    if (level !== 'session' && level !== 'admin' && level !== 'admin-or-basic') return;
    if (level === 'admin-or-basic' && /^Basic\s/i.test(request.headers.authorization ?? '')) {
      await checkAdminCredentials(request, sessions);
      return;
    }
    const token = bearerToken(request);
    if (!token) {
      const accepted = level === 'admin-or-basic' ? "an administrator's access token (Authorization: Bearer <token>) or Basic credentials" : 'an access token: Authorization: Bearer <token>';
      throw new QuireError('TOKEN_MISSING', `This call needs ${accepted}.`);
    }
    const session = await sessions.authenticate(token);
    if (level !== 'session' && !isAdmin(session)) {
      throw new QuireError('FORBIDDEN', 'This call needs administrative rights.');
    }
    request.session = session;
  });
}

/** The token of the call: `Authorization: Bearer`, the `Authorization` query parameter, or the legacy `Token` header. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  const query = (request.query as Record<string, unknown> | undefined)?.Authorization;
  if (typeof query === 'string' && query !== '') return query.replace(/^Bearer\s+/i, '').trim();
  const legacy = request.headers.token;
  return typeof legacy === 'string' && legacy !== '' ? legacy : undefined;
}

/** Basic credentials of a login call, or undefined when none were sent; malformed ones are refused. */
export function basicCredentials(request: FastifyRequest): { name: string; password: string } | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) throw new QuireError('LOGIN_FAILED', 'Login takes Basic credentials (Authorization: Basic base64(user:password)) or none.');
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw new QuireError('LOGIN_FAILED', 'The Basic credentials are not of the form user:password.');
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Basic credentials of an administrator, checked against the user source; no session is opened. */
async function checkAdminCredentials(request: FastifyRequest, sessions: SessionService): Promise<void> {
  const credentials = basicCredentials(request)!;
  // Throttled per address and name like a login: a scraper endpoint must not become a password oracle.
  const user = await sessions.verifyCredentials(credentials.name, credentials.password, request.ip);
  if (!user) throw new QuireError('LOGIN_FAILED', 'Login failed: unknown user or wrong password.');
  if (!user.roles.includes('admin')) throw new QuireError('FORBIDDEN', 'This call needs administrative rights.');
}

function securityFor(level: AuthLevel): Array<Record<string, string[]>> {
  switch (level) {
    case 'none':
      return [];
    case 'login':
      return [{ BasicAuth: [] }, {}];
    case 'admin-or-basic':
      return [{ BearerAuth: [] }, { BasicAuth: [] }];
    default:
      return [{ BearerAuth: [] }];
  }
}
