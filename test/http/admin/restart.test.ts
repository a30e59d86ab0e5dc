import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, login } from '../../helpers/client.js';
import { eventually, info, openSession, realPdf, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';

describe('GET admin/server/restart', () => {
  const { server } = useTestServer({ yaml: 'limits:\n  anonymous:\n    maxFiles: 50\n', session: false });
  let adminToken: string;

  beforeAll(async () => {
    adminToken = (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token;
  });

  it('answers 200, then restarts with the configuration read again; sessions, tokens and documents survive', async () => {
    const user = await openSession(server.rest);
    const uploaded = await uploadFile(server.rest, user.token, await realPdf(2), 'kept.pdf');
    const before = server.app;
    expect(server.config.limits.anonymous.maxFiles).toBe(50);
    const file = path.join(server.dataDir, 'quire.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('maxFiles: 50', 'maxFiles: 7'));

    const response = await fetch(`${server.rest}/admin/server/restart`, { headers: bearer(adminToken) });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');

    // A new instance on the same URL, with the new configuration.
    await eventually(() => expect(server.app).not.toBe(before), 30_000, 50);
    await eventually(async () => expect((await fetch(`${server.rest}/documents/list`, { headers: bearer(user.token) })).status).toBe(200), 30_000, 50);
    expect(server.config.limits.anonymous.maxFiles).toBe(7);
    expect(await info(server.rest, user.token, uploaded.documentId)).toMatchObject({ fileName: 'kept', fileSize: uploaded.fileSize });
    const table = (await (await fetch(`${server.rest}/admin/session/table`, { headers: bearer(adminToken) })).json()) as { sessions?: unknown[] } & Record<string, unknown>;
    expect(JSON.stringify(table)).toContain(user.id);
  });

  it('keeps the previous configuration when the file no longer loads', async () => {
    const file = path.join(server.dataDir, 'quire.yaml');
    writeFileSync(file, 'limits: [this is not a mapping\n');
    const before = server.app;
    expect((await fetch(`${server.rest}/admin/server/restart`, { headers: bearer(adminToken) })).status).toBe(200);
    await eventually(() => expect(server.app).not.toBe(before), 30_000, 50);
    await eventually(async () => expect((await fetch(`${server.rest}/admin/session/table`, { headers: bearer(adminToken) })).status).toBe(200), 30_000, 50);
    expect(server.config.limits.anonymous.maxFiles).toBe(7);
  });

  it('is for administrators only', async () => {
    const user = await openSession(server.rest);
    const refused = await fetch(`${server.rest}/admin/server/restart`, { headers: bearer(user.token) });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('application/json');
    expect(((await refused.json()) as { errorCode: number }).errorCode).toBeLessThan(0);
    const anonymous = await fetch(`${server.rest}/admin/server/restart`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toBe('application/json');
  });
});
