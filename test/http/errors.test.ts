import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectError, json, login } from '../helpers/client.js';
import { useTestServer } from '../helpers/fixture.js';

/** An error answer without a stack trace (server.debug is off). */
async function expectPlainError(response: Response, status: number, errorCode: number): Promise<Record<string, unknown>> {
  const body = await expectError(response, status, errorCode);
  expect(body.stackTrace).toBe('');
  return body;
}

describe('error responses', () => {
  const { server } = useTestServer({ env: { QUIRE_SERVER__JSON_BODY_LIMIT: '1KB' }, session: false });
  let token: string;
  beforeAll(async () => {
    token = (await login(server.rest)).token;
  });

  const post = (path: string, body: string, contentType = 'application/json') => fetch(`${server.rest}${path}`, { method: 'POST', headers: { 'content-type': contentType, ...bearer(token) }, body });

  it('reports malformed JSON as a parameter error', async () => {
    const body = await expectPlainError(await post('/authentication/user/login', '{"createRefreshToken":'), 400, -14);
    expect(body.errorMessage).toMatch(/not valid JSON/);
  });

  it('names the offending field of a wrong type', async () => {
    const body = await expectPlainError(await post('/authentication/user/login', '{"createRefreshToken":"yes please"}'), 400, -14);
    expect(body.errorMessage).toMatch(/body\.createRefreshToken: must be boolean/);
  });

  it('refuses a body of another content type with 415, an HTTP error for the clients (problem details, issue 13 item 2)', async () => {
    const response = await post('/authentication/user/login', 'hello', 'text/plain');
    expect(response.status).toBe(415);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 415, errorCode: -81, stackTrace: '' });
  });

  it('refuses a JSON body above the configured limit with 413', async () => {
    await expectPlainError(await post('/authentication/user/login', JSON.stringify({ createRefreshToken: true, pad: 'x'.repeat(4096) })), 413, -82);
  });

  it('answers unknown endpoints with 404 and the error structure', async () => {
    await expectPlainError(await fetch(`${server.rest}/no/such/endpoint`, { headers: bearer(token) }), 404, -80);
    await expectPlainError(await fetch(`${server.url}/elsewhere`), 404, -80);
  });

  it('answers a prototype-pollution body as bad input', async () => {
    await expectPlainError(await post('/authentication/user/login', '{"__proto__":{"admin":true}}'), 400, -14);
  });

  it('accepts paths with and without trailing slash and ignores unknown query parameters', async () => {
    for (const path of ['/authentication/user/info', '/authentication/user/info/', '/authentication/user/info?history=true&foo=bar']) {
      const response = await fetch(`${server.rest}${path}`, { headers: bearer(token) });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
    }
  });

  it('never answers hostile requests with a 5xx, and keeps serving', async () => {
    const hostile: Array<[string, RequestInit]> = [
      ['/documents/%00%ff/info', { headers: bearer(token) }],
      [`/documents/${'a'.repeat(5000)}/info`, { headers: bearer(token) }],
      // Encoded, so that the client does not resolve the dots: a document id that climbs out of the storage.
      ['/documents/..%2F..%2Fetc%2Fpasswd/info', { headers: bearer(token) }],
      ['/authentication/user/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1,2,3]' }],
      ['/authentication/user/login', { method: 'POST', headers: { authorization: 'Basic %%%' } }],
      ['/authentication/user/login', { method: 'POST', headers: { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` } }],
      ['/documents', { method: 'POST', headers: { ...bearer(token), 'content-type': 'multipart/form-data' }, body: 'garbage' }],
      ['/documents', { method: 'POST', headers: { ...bearer(token), 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nbroken' }],
      ['/authentication/user/info', { headers: { authorization: 'Bearer ' + 'A'.repeat(8000) } }],
      ['/authentication/user/info', { headers: { authorization: 'Bearer a.b.c' } }],
      ['/documents/list', { method: 'DELETE', headers: bearer(token) }],
    ];
    for (const [path, init] of hostile) {
      const response = await fetch(`${server.rest}${path}`, init);
      expect(response.status, `${init.method ?? 'GET'} ${path.slice(0, 60)}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${init.method ?? 'GET'} ${path.slice(0, 60)}`).toBeLessThan(500);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect((await json(response)).errorCode).not.toBe(0);
    }
    // Resolved by the client, the same dots leave the REST base: under the context path that is the
    // portal's page (its fallback for client-side routes), never a file of the machine.
    const climbed = await fetch(`${server.rest}/documents/../../etc/passwd`, { headers: bearer(token) });
    expect(climbed.status).toBeLessThan(500);
    expect(await climbed.text()).not.toMatch(/root:/);
    // A raw request line the HTTP parser rejects must not take the server down either.
    await new Promise<void>((resolve) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => socket.end('GARBAGE / HTTP/9.9\r\n\r\n'));
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
      socket.resume();
    });
    expect((await fetch(`${server.url}/webPDF/health`)).status).toBe(200);
  });
});

describe('debug mode', () => {
  const { server } = useTestServer({ env: { QUIRE_SERVER__DEBUG: 'true' }, session: false });

  it('adds the stack trace to error responses', async () => {
    const response = await fetch(`${server.rest}/authentication/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{oops',
    });
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(String(body.stackTrace)).toMatch(/at /);
  });
});
