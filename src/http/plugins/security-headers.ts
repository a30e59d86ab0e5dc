import type { FastifyInstance } from 'fastify';

export interface SecurityHeaderOptions {
  contextPath: string;
  restBase: string;
  /**
   * Origins of the OAuth 2.0/OIDC providers the portal's login talks to (token endpoint: connect-src;
   * authorization endpoint: form-action). Asked per answer: discovery may learn them after start.
   */
  providerOrigins?: () => readonly string[];
}

/**
 * Headers of every answer:
 * - `X-Content-Type-Options: nosniff`. Downloads carry whatever a client uploaded (an "image" that is
 *   really HTML, a log line with markup): a browser must render them as the declared type or save them,
 *   never sniff them into a page of this origin. JSON answers get it too, since they echo client input
 *   (file names, error messages).
 * - `Referrer-Policy: no-referrer`: portal URLs carry document ids, login redirects carry codes.
 * - `Content-Security-Policy`: the portal's pages (everything under the context path outside the REST
 *   base) get the strict policy below; every other answer — downloads above all — gets `sandbox` and no
 *   sources at all, so an uploaded HTML or SVG document opened from its URL runs in an opaque origin
 *   and cannot script the portal or reach the API with the user's cookies or storage.
 */
export function registerSecurityHeaders(app: FastifyInstance, options: SecurityHeaderOptions): void {
  const portal = portalPolicy(options.providerOrigins ?? (() => []));
  const { contextPath, restBase } = options;
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('content-security-policy', isPortalPath(request.url, contextPath, restBase) ? portal() : DOCUMENT_POLICY);
    done(null, payload);
  });
}

/** Answers that are data, not pages: nothing may load, run, frame or submit, in a unique opaque origin. */
export const DOCUMENT_POLICY = "sandbox; default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Under the context path and not under the REST base: a portal page, its assets or Swagger UI. */
function isPortalPath(url: string, contextPath: string, restBase: string): boolean {
  return isUnderPath(url, contextPath) && !isUnderPath(url, restBase);
}

/** The URL is the path `base` itself (with or without a query) or a path below it. */
export function isUnderPath(url: string, base: string): boolean {
  return url.startsWith(base) && (url.length === base.length || '/?'.includes(url[base.length]!));
}

/**
 * The portal's policy: its own scripts and styles only (no inline script or style, no eval), images
 * also from blob:/data: (thumbnails, pdf.js), workers from blob: (pdf.js), and the providers' origins for
 * the login's token request and redirect. Rebuilt only when the list of origins changes.
 */
function portalPolicy(origins: () => readonly string[]): () => string {
  let seen: readonly string[] | undefined;
  let policy = '';
  return () => {
    const current = origins();
    if (current !== seen) {
      seen = current;
      const extra = current.length > 0 ? ` ${current.join(' ')}` : '';
      policy = [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' blob: data:",
        "worker-src 'self' blob:",
        `connect-src 'self'${extra}`,
        "frame-ancestors 'none'",
        "base-uri 'self'",
        `form-action 'self'${extra}`,
        "object-src 'none'",
      ].join('; ');
    }
    return policy;
  };
}
