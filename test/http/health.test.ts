import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The liveness probe answers at once and says when an engine is down (issue 11, supervision). */
describe('GET /webPDF/health', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  async function settledHealth(url: string): Promise<{ status: string; engines?: Record<string, string>; checkedAt?: string }> {
    // The first probe starts the engine check in the background; later probes read its result.
    for (let attempt = 0; attempt < 100; attempt++) {
      const response = await fetch(`${url}/webPDF/health`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      const body = (await response.json()) as { status: string; engines?: Record<string, string>; checkedAt?: string };
      if (body.engines) return body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('no engine check finished');
  }

  it('is UP with every enabled engine checked ok, and names the disabled ones', async () => {
    server = await startTestServer();
    const body = await settledHealth(server.url);
    expect(body.status).toBe('UP');
    expect(body.engines).toMatchObject({ qpdf: 'ok', poppler: 'ok', ghostscript: 'ok', images: 'ok', libreoffice: 'disabled', chromium: 'disabled' });
    expect(Number.isNaN(Date.parse(body.checkedAt!))).toBe(false);
  });

  it('is DEGRADED, still 200, when an engine fails its check', async () => {
    server = await startTestServer({ env: { QUIRE_ENGINES__GHOSTSCRIPT: '/nonexistent/gs' } });
    const body = await settledHealth(server.url);
    expect(body).toMatchObject({ status: 'DEGRADED', engines: { ghostscript: 'error', qpdf: 'ok' } });
  });
});
