import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectError, login, rawRequest, type LoginResult, type RawResponse } from '../helpers/client.js';
import { PNG_1X1 } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { exchange } from '../helpers/raw-http.js';
import { ADMIN_PASSWORD } from '../helpers/server.js';

/** What axios sends for a POST without data: the form type, and a body of zero bytes. */
const EMPTY_FORM = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' };

/** Issue 13 item 1: a route that takes no body ignores the Content-Type of an empty body. */
describe('an empty body on a route that takes none', () => {
  const { server, session, upload } = useTestServer();
  let admin: LoginResult;
  beforeAll(async () => {
    admin = await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD });
  });

  const call = (method: string, path: string, token: string, headers: Record<string, string> = {}, body?: Buffer): Promise<RawResponse> =>
    rawRequest(`${server.rest}${path}`, { method, headers: { ...bearer(token), ...headers }, ...(body ? { body } : {}) });

  it('closes a session on POST admin/session/{id}/close with an empty form body (what the TypeScript client sends)', async () => {
    const victim = await login(server.rest);
    const closed = await call('POST', `/admin/session/${decodeJwt(victim.token).sub!}/close`, admin.token, EMPTY_FORM);
    expect(closed.status, closed.body.toString()).toBe(200);
    // Really closed: the session's token opens nothing any more.
    await expectError(await fetch(`${server.rest}/authentication/user/info`, { headers: bearer(victim.token) }), 401, -60);
  });

  it('ignores the type of a request that declares no body at all (no Content-Length, no Transfer-Encoding)', async () => {
    const victim = await login(server.rest);
    // Over a bare socket: node:http would add Content-Length: 0.
    const path = `${new URL(server.rest).pathname}/admin/session/${decodeJwt(victim.token).sub!}/close`;
    const head = `POST ${path} HTTP/1.1\r\nHost: quire\r\nAuthorization: Bearer ${admin.token}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n`;
    const closed = (await exchange(Number(new URL(server.url).port), head)).answer;
    expect(closed?.status, closed?.body.toString()).toBe(200);
    await expectError(await fetch(`${server.rest}/authentication/user/info`, { headers: bearer(victim.token) }), 401, -60);
  });

  it('ignores any type, even one that is not a valid media type, of an empty body (DELETE documents/{id})', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain; charset=utf-8', 'application/xml', 'not a media type']) {
      const document = await upload(PNG_1X1, 'tiny.png');
      const deleted = await call('DELETE', `/documents/${document.documentId}`, session.token, { 'content-type': type, 'content-length': '0' });
      expect(deleted.status, `${type}: ${deleted.body.toString()}`).toBe(200);
      await expectError(await fetch(`${server.rest}/documents/${document.documentId}/info`, { headers: bearer(session.token) }), 404, -70);
    }
  });

  it('answers every route without a body the same with and without the type of an empty body', async () => {
    // The routes without a request body, from the interface document; ids that name nothing keep the calls harmless.
    const document = (await (await fetch(`${server.rest}/openapi.json`)).json()) as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    const bodiless = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([method, operation]) => !['get', 'head'].includes(method) && operation.requestBody === undefined)
        .map(([method]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'ffffffffffffffffffffffffffffffff') })),
    );
    // admin/session/{id}/close, documents/{id} and jobs/{id} (DELETE), the replay queue's DELETE and requeue...
    expect(bodiless.length).toBeGreaterThanOrEqual(6);
    for (const { method, path } of bodiless) {
      const plain = await call(method, path, admin.token);
      const typed = await call(method, path, admin.token, EMPTY_FORM);
      expect(plain.status, `${method} ${path}`).not.toBe(415);
      expect({ status: typed.status, type: typed.headers['content-type'] }, `${method} ${path}: ${typed.body.toString()}`).toEqual({
        status: plain.status,
        type: plain.headers['content-type'],
      });
    }
  });

  it('still refuses a body of a type no parser reads on such a route (the body is not empty)', async () => {
    const refused = await call('POST', `/admin/session/${'0'.repeat(32)}/close`, admin.token, { 'content-type': 'text/plain' }, Buffer.from('hello'));
    expect(refused.status).toBe(415);
    expect(refused.headers['content-type']).toBe('application/problem+json');
  });
});

/** The other side of the rule: a route that takes a body keeps judging the type of an empty one (item 2's 415). */
describe('an empty body on a route that takes one', () => {
  const { server, session } = useTestServer();

  it('answers POST documents/ with an empty form body with the HTTP-level 415 and stores nothing', async () => {
    const answer = await rawRequest(`${server.rest}/documents`, { method: 'POST', headers: { ...bearer(session.token), ...EMPTY_FORM } });
    expect(answer.status).toBe(415);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(answer.body.toString())).toMatchObject({ status: 415, errorCode: -81 });
    const list = (await (await fetch(`${server.rest}/documents/list`, { headers: bearer(session.token) })).json()) as unknown[];
    expect(list).toEqual([]);
  });

  it('takes an empty JSON body on a JSON route as no body (login)', async () => {
    const answer = await rawRequest(`${server.rest}/authentication/user/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '0' } });
    expect(answer.status, answer.body.toString()).toBe(200);
    expect(JSON.parse(answer.body.toString())).toHaveProperty('token');
  });
});
