import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { QuireError } from '../../core/errors.js';
import { isUnderPath } from '../plugins/security-headers.js';
import { sendStatic } from '../static-file.js';
import { apiDocsRoutes } from './api-docs.js';

/** Where `npm run build` puts the portal (vite, base /webPDF/): next to the compiled server, from src/ and dist/ alike. */
export const BUILT_PORTAL = fileURLToPath(new URL('../../../dist/portal', import.meta.url));

export interface PortalRouteOptions {
  contextPath: string;
  restBase: string;
  /** The built portal; '' = BUILT_PORTAL. */
  directory: string;
}

/** A year: the names under assets/ carry a hash of their content, so a changed file is a new URL. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const tags = ['portal'];

/**
 * The web portal, a single-page application built into static files, at `{contextPath}/`:
 * - a file that exists is sent (ETag and Last-Modified by @fastify/send); `assets/*` as immutable,
 *   everything else `no-cache` (revalidated, so a new build shows at the next load);
 * - any other GET below the context path is the application's own route (/webPDF/documents,
 *   /webPDF/admin/logs, ...): index.html, which routes in the browser;
 * - the REST base, health and metrics keep their own routes; an unknown REST path stays a JSON 404.
 * Without a build (a checkout that ran only tsc, most tests) every page is a JSON 404 that says so.
 * Swagger UI lives below it too (api-docs.ts). The Content-Security-Policy of these answers is set by
 * plugins/security-headers.ts.
 */
export const portalRoutes: FastifyPluginAsync<PortalRouteOptions> = async (app, options) => {
  const root = options.directory || BUILT_PORTAL;
  const { contextPath, restBase } = options;
  await app.register(apiDocsRoutes, { contextPath, restBase });

  app.get(
    contextPath || '/',
    { config: { auth: 'none' }, schema: { tags, summary: 'The web portal: its start page (with a trailing slash), or a redirect there', operationId: 'portalRedirect' } },
    async (request, reply) => {
      // The router's ignoreTrailingSlash brings `{contextPath}/` here too: that one is the portal itself.
      const query = request.url.indexOf('?');
      const pathname = query >= 0 ? request.url.slice(0, query) : request.url;
      if (pathname.endsWith('/')) return sendIndex(request, reply, root);
      return reply.redirect(`${contextPath}/${query >= 0 ? request.url.slice(query) : ''}`, 301);
    },
  );

  app.get(
    `${contextPath}/*`,
    {
      config: { auth: 'none', wildcardName: 'portalPath' },
      schema: {
        tags,
        summary: 'The web portal: its files, and index.html for any page of the application',
        operationId: 'portalFile',
        params: Type.Object({ '*': Type.String({ description: 'a file of the built portal or a page of the application' }) }),
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      if (isUnderPath(request.url, restBase)) return reply.callNotFound();
      const relative = fileWithin((request.params as { '*': string })['*']);
      if (relative !== undefined && (await isFile(path.join(root, relative)))) return sendPortalFile(request, reply, root, relative);
      // A missing asset is a stale page asking for an old build's file: HTML in its place would only confuse the browser.
      if (relative?.startsWith('assets/')) return reply.callNotFound();
      return sendIndex(request, reply, root);
    },
  );
};

async function sendIndex(request: FastifyRequest, reply: FastifyReply, root: string): Promise<FastifyReply> {
  if (!(await isFile(path.join(root, 'index.html')))) {
    throw new QuireError('PORTAL_NOT_BUILT', `The portal is not built: ${request.url.split('?')[0]} needs ${path.join(root, 'index.html')} (run npm run build).`);
  }
  return sendPortalFile(request, reply, root, 'index.html');
}

function sendPortalFile(request: FastifyRequest, reply: FastifyReply, root: string, relative: string): Promise<FastifyReply> {
  return sendStatic(request, reply, root, relative, relative.startsWith('assets/') ? IMMUTABLE : 'no-cache');
}

/** The wildcard as a relative path inside the portal, or undefined for anything that could leave it. */
function fileWithin(wildcard: string): string | undefined {
  const decoded = wildcard.split('?')[0]!;
  if (decoded === '' || decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const normalized = path.posix.normalize(decoded);
  if (normalized.startsWith('..') || normalized.startsWith('/') || normalized.split('/').some((part) => part.startsWith('.'))) return undefined;
  return normalized;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
