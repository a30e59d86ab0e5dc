import { beforeAll, describe, expect, it } from 'vitest';
import { Errors } from '../../src/core/errors.js';
import { errorAnswer } from '../../src/http/plugins/error-answer.js';
import { bearer, expectError, login, rawRequest } from '../helpers/client.js';
import { useTestServer } from '../helpers/fixture.js';

type ClientVerdict = { kind: 'server exception'; errorCode: number } | { kind: 'HTTP_CUSTOM_ERROR'; status: number };

/**
 * How both official clients read a non-2xx answer (webpdf-rest-interface.md §1.4; the TypeScript
 * client's HttpRestRequest.checkResponse): a webPDF server exception only when the Content-Type is
 * exactly application/json and errorCode is not 0, else the generic -34 with the HTTP status.
 */
function officialClientVerdict(status: number, contentType: string | undefined, body: string): ClientVerdict {
  if (contentType === 'application/json') {
    const errorCode = (JSON.parse(body) as { errorCode?: number }).errorCode ?? 0;
    if (errorCode !== 0) return { kind: 'server exception', errorCode };
  }
  return { kind: 'HTTP_CUSTOM_ERROR', status };
}

/** Issue 13 item 2: 415 is a transport error for the clients, with a reason a human can read. */
describe('415 as an RFC 9457 problem', () => {
  const { server, session } = useTestServer();

  it('answers POST documents/ with an empty urlencoded body (the client testNullEntity) so that the client raises HTTP_CUSTOM_ERROR 415', async () => {
    const answer = await rawRequest(`${server.rest}/documents/`, {
      method: 'POST',
      headers: { ...bearer(session.token), 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' },
    });
    const text = answer.body.toString('utf8');
    expect(officialClientVerdict(answer.status, answer.headers['content-type'], text)).toEqual({ kind: 'HTTP_CUSTOM_ERROR', status: 415 });
    expect(answer.headers['content-type']).toBe('application/problem+json');
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['detail', 'errorCode', 'errorMessage', 'stackTrace', 'status', 'title', 'type']);
    expect(body).toMatchObject({ type: 'about:blank', title: 'Unsupported Media Type', status: 415, errorCode: -81, stackTrace: '' });
    expect(body.detail).toMatch(/content type/);
    expect(body.errorMessage).toBe(body.detail);
  });

  it('answers a JSON endpoint sent another type of body the same way', async () => {
    const answer = await fetch(`${server.rest}/authentication/user/login`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(answer.status).toBe(415);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(officialClientVerdict(415, answer.headers.get('content-type') ?? undefined, await answer.text())).toEqual({ kind: 'HTTP_CUSTOM_ERROR', status: 415 });
  });

  it('keeps every other error a webPDF exception the clients read (application/json exactly)', async () => {
    const badJson = await fetch(`${server.rest}/authentication/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"createRefreshToken":' });
    const text = await badJson.clone().text();
    expect(officialClientVerdict(badJson.status, badJson.headers.get('content-type') ?? undefined, text)).toEqual({ kind: 'server exception', errorCode: -14 });
    await expectError(badJson, 400, -14);
    await expectError(await fetch(`${server.rest}/no/such/endpoint`, { headers: bearer(session.token) }), 404, -80);
    await expectError(await fetch(`${server.rest}/documents/${'0'.repeat(32)}/info`, { headers: bearer(session.token) }), 404, -70);
  });
});

describe('the rule over the whole catalogue', () => {
  it('answers a problem only for 415; every other catalogue entry is the exception structure as application/json', () => {
    for (const [name, definition] of Object.entries(Errors)) {
      const { contentType, body } = errorAnswer(definition, 'why', '');
      expect({ name, contentType }).toEqual({ name, contentType: definition.status === 415 ? 'application/problem+json' : 'application/json' });
      expect(body).toMatchObject({ errorCode: definition.errorCode, errorMessage: 'why', stackTrace: '' });
      if (definition.status !== 415) expect(Object.keys(body).sort(), name).toEqual(['errorCode', 'errorMessage', 'stackTrace']);
    }
  });
});

describe('415 in debug mode', () => {
  const { server } = useTestServer({ env: { QUIRE_SERVER__DEBUG: 'true' }, session: false });
  let token: string;
  beforeAll(async () => {
    token = (await login(server.rest)).token;
  });

  it('still carries the stack trace for support', async () => {
    const answer = await fetch(`${server.rest}/documents`, { method: 'POST', headers: { ...bearer(token), 'content-type': 'text/plain' }, body: 'x' });
    expect(answer.status).toBe(415);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(String(((await answer.json()) as { stackTrace: unknown }).stackTrace)).toMatch(/at /);
  });
});
