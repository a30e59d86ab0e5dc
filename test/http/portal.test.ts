/**
 * Issue 19: the portal served by the server — its files with caching headers, the single-page
 * fallback, the strict Content-Security-Policy, a clear answer when it is not built, and downloads
 * of hostile documents that cannot script the portal's origin.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';

const PORTAL_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'";

/** A stand-in for `npm run build`'s output: the server only serves files, whatever they hold. */
function fakeBuild(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-portal-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Quire portal</title><script type="module" src="/webPDF/assets/index-Ab12Cd34.js"></script>');
  writeFileSync(path.join(dir, 'assets', 'index-Ab12Cd34.js'), 'console.log("portal");');
  writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(path.join(dir, '.env'), 'SECRET=1');
  return dir;
}

const build = fakeBuild();
afterAll(() => rmSync(build, { recursive: true, force: true }));

/** The status of a plain GET with exactly these headers. */
function statusOf(url: string, headers: Record<string, string>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        response.resume();
        resolve(response.statusCode);
      })
      .on('error', reject);
  });
}

function origin(rest: string): string {
  return new URL(rest).origin;
}

describe('the built portal', () => {
  const { server, session, upload } = useTestServer({ env: { QUIRE_SERVER__PORTAL__DIRECTORY: build } });
  const get = (pathname: string, init?: RequestInit) => fetch(`${origin(server.rest)}${pathname}`, { redirect: 'manual', ...init });

  it('redirects the context path to the portal with a trailing slash, keeping the query', async () => {
    const response = await get('/webPDF?lang=de');
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('/webPDF/?lang=de');
  });

  it('serves index.html revalidated, with the strict policy and no referrer', async () => {
    const response = await get('/webPDF/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('content-security-policy')).toBe(PORTAL_POLICY);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await response.text()).toContain('<title>Quire portal</title>');
    const etag = response.headers.get('etag');
    expect(etag).toBeTruthy();
    // fetch() would add Cache-Control: no-cache to a conditional request (the Fetch standard), which forbids a 304.
    expect(await statusOf(`${origin(server.rest)}/webPDF/`, { 'if-none-match': etag! })).toBe(304);
  });

  it('serves hashed assets as immutable for a year', async () => {
    const response = await get('/webPDF/assets/index-Ab12Cd34.js');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await response.text()).toBe('console.log("portal");');
    const other = await get('/webPDF/favicon.svg');
    expect(other.status).toBe(200);
    expect(other.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers every page of the application with index.html, but not a missing asset', async () => {
    for (const page of ['/webPDF/documents', '/webPDF/admin/logs?day=2026-11-25', '/webPDF/login/callback?code=x&state=y']) {
      const response = await get(page);
      expect(response.status, page).toBe(200);
      expect(await response.text(), page).toContain('<title>Quire portal</title>');
      expect(response.headers.get('cache-control')).toBe('no-cache');
    }
    const missing = await get('/webPDF/assets/index-gone.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/json');
  });

  it('never serves a dot file or a file outside the build', async () => {
    for (const page of ['/webPDF/.env', '/webPDF/%2e%2e/%2e%2e/etc/passwd', '/webPDF/..%2f..%2fetc%2fpasswd', '/webPDF/assets/..%5c..%5cindex.html']) {
      const response = await get(page);
      const body = await response.text();
      expect(body, page).not.toContain('SECRET');
      expect(body, page).not.toContain('root:');
    }
  });

  it('leaves the REST base, health and the API alone', async () => {
    const unknown = await get('/webPDF/rest/no-such-endpoint');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('application/json');
    expect(((await unknown.json()) as { errorCode: number }).errorCode).toBe(-80);
    expect(unknown.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
    const health = await get('/webPDF/health');
    expect(((await health.json()) as { status: string }).status).toMatch(/UP|DEGRADED/);
    const documents = await get('/webPDF/rest/documents/list', { headers: { authorization: `Bearer ${session.token}` } });
    expect(documents.status).toBe(200);
    expect(documents.headers.get('content-security-policy')).toMatch(/^sandbox;/);
  });

  it.each([
    ['an HTML page', 'evil.html', '<html><body><script>fetch("/webPDF/rest/documents/list")</script></body></html>'],
    ['an SVG image', 'evil.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>'],
  ])('downloads %s as a sandboxed attachment that cannot script the portal', async (_what, fileName, content) => {
    const document = await upload(Buffer.from(content), fileName);
    const response = await get(`/webPDF/rest/documents/${document.documentId}`, { headers: { authorization: `Bearer ${session.token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const policy = response.headers.get('content-security-policy')!.split(/;\s*/);
    expect(policy).toContain('sandbox');
    expect(policy).toContain("default-src 'none'");
    expect(await response.text()).toBe(content);
  });
});

describe('a server without a built portal', () => {
  const { server } = useTestServer({ session: false, env: { QUIRE_SERVER__PORTAL__DIRECTORY: path.join(build, 'not-built') } });

  it('answers the portal with a JSON 404 that says so, and the API as usual', async () => {
    for (const page of ['/webPDF/', '/webPDF/documents']) {
      const response = await fetch(`${origin(server.rest)}${page}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json');
      const body = (await response.json()) as { errorCode: number; errorMessage: string };
      expect(body.errorCode).toBe(-210);
      expect(body.errorMessage).toMatch(/not built/);
    }
    expect((await fetch(`${origin(server.rest)}/webPDF/health`)).status).toBe(200);
  });
});

describe('a server with the portal switched off', () => {
  const { server } = useTestServer({ session: false, env: { QUIRE_SERVER__PORTAL__ENABLED: 'false', QUIRE_SERVER__PORTAL__DIRECTORY: build } });

  it('has no portal routes', async () => {
    const response = await fetch(`${origin(server.rest)}/webPDF/`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { errorCode: number }).errorCode).toBe(-80);
  });
});
