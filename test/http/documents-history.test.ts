import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, json, login, multipartBody, rawRequest, uploadDocument } from '../helpers/client.js';
import { useTestServer } from '../helpers/fixture.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const pdf = (marker: string) => Buffer.from(`%PDF-1.4\n% ${marker}\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n`);

describe('rename, replace, history', () => {
  const { server } = useTestServer({ env: { QUIRE_LIMITS__ANONYMOUS__DISK_SPACE_LIMIT: '64KB' }, session: false });
  let token: string;
  beforeAll(async () => {
    token = (await login(server.rest)).token;
  });

  const info = async (id: string) => json(await fetch(`${server.rest}/documents/${id}/info`, { headers: bearer(token) }));
  const download = async (id: string) => Buffer.from(await (await fetch(`${server.rest}/documents/${id}`, { headers: bearer(token) })).arrayBuffer());
  const history = async (id: string) => (await (await fetch(`${server.rest}/documents/${id}/history`, { headers: bearer(token) })).json()) as Array<Record<string, unknown>>;
  const replace = async (id: string, content: Buffer, name: string) => {
    const { body, contentType } = multipartBody(content, name);
    return rawRequest(`${server.rest}/documents/${id}`, {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': contentType, 'content-length': body.length },
      body,
    });
  };
  const rename = (id: string, body: unknown) =>
    fetch(`${server.rest}/documents/${id}/update`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('renames with the TypeScript client shape and with the Java client shape; only fileName changes', async () => {
    const document = await uploadDocument(server.rest, token, pdf('rename'), 'old.pdf');
    const ts = await rename(String(document.documentId), { fileName: 'new name', parentDocumentId: '' });
    expect(ts.status).toBe(200);
    expect(await json(ts)).toMatchObject({ documentId: document.documentId, fileName: 'new name', fileExtension: 'pdf', mimeType: 'application/pdf' });

    const java = await rename(String(document.documentId), { ...document, fileName: 'from java', fileSize: 1, mimeType: 'text/plain', documentId: 'x' });
    expect(java.status).toBe(200);
    const after = await info(String(document.documentId));
    expect(after).toMatchObject({ fileName: 'from java', fileSize: document.fileSize, mimeType: 'application/pdf', fileExtension: 'pdf' });
    expect((await download(String(document.documentId))).equals(pdf('rename'))).toBe(true);
  });

  it('cleans a rename like an upload name and refuses an empty one', async () => {
    const document = await uploadDocument(server.rest, token, pdf('clean'), 'a.pdf');
    expect(await json(await rename(String(document.documentId), { fileName: '../../etc/passwd' }))).toMatchObject({ fileName: 'passwd' });
    const empty = await rename(String(document.documentId), { fileName: '' });
    expect(empty.status).toBe(400);
    expect((await json(empty)).errorCode).toBe(-14);
    const missing = await rename(String(document.documentId), { parentDocumentId: '' });
    expect(missing.status).toBe(400);
    expect(String((await json(missing)).errorMessage)).toMatch(/fileName/);
  });

  it('replaces content under the same id without history, keeping no old content', async () => {
    const document = await uploadDocument(server.rest, token, PNG, 'logo.png');
    const id = String(document.documentId);
    const response = await replace(id, pdf('replaced'), 'logo.png');
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe(`/webPDF/rest/documents/${id}/info`);
    const after = await info(id);
    expect(after).toMatchObject({ documentId: id, fileName: 'logo', mimeType: 'application/pdf', fileExtension: 'pdf', historyId: 0 });
    expect((await download(id)).equals(pdf('replaced'))).toBe(true);
    expect(await history(id)).toEqual([]);
    const dir = path.join(server.dataDir, 'storage', decodeJwt(token).sub!, id);
    expect(readdirSync(dir).filter((n) => n.startsWith('c-'))).toHaveLength(1);
  });

  it('keeps every state in history mode and reverts content and type', async () => {
    const document = await uploadDocument(server.rest, token, PNG, 'image.png', '?history=true');
    const id = String(document.documentId);
    expect(document.historyId).toBe(1);
    expect(await history(id)).toEqual([expect.objectContaining({ id: 1, operation: '', fileName: 'image.png', active: true })]);

    expect((await replace(id, pdf('second'), 'image.pdf')).status).toBe(303);
    expect((await replace(id, pdf('third'), 'image.pdf')).status).toBe(303);
    const entries = await history(id);
    expect(entries.map((e) => [e.id, e.active, e.fileName])).toEqual([
      [1, false, 'image.png'],
      [2, false, 'image.pdf'],
      [3, true, 'image.pdf'],
    ]);
    expect(entries[1]!.operation).toBe('documents:update');
    expect(new Date(String(entries[0]!.dateTime)).toISOString()).toBe(entries[0]!.dateTime);
    expect(await info(id)).toMatchObject({ historyId: 3, mimeType: 'application/pdf' });

    const entry = await fetch(`${server.rest}/documents/${id}/history/2`, { headers: bearer(token) });
    expect(await json(entry)).toMatchObject({ id: 2, active: false });

    // The clients send the whole entry back with active: true.
    const revert = await fetch(`${server.rest}/documents/${id}/history/1`, {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ ...entries[0], active: true }),
    });
    expect(revert.status).toBe(200);
    expect(await json(revert)).toMatchObject({ id: 1, active: true });
    expect(await info(id)).toMatchObject({ historyId: 1, mimeType: 'image/png', fileExtension: 'png' });
    expect((await download(id)).equals(PNG)).toBe(true);

    // Relabel without reverting; a change after a revert becomes a new entry.
    const relabel = await fetch(`${server.rest}/documents/${id}/history/2`, {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'my label' }),
    });
    expect(await json(relabel)).toMatchObject({ id: 2, operation: 'my label', active: false });
    expect((await replace(id, pdf('fourth'), 'x.pdf')).status).toBe(303);
    expect((await history(id)).map((e) => [e.id, e.active])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, true],
    ]);
    expect((await download(id)).equals(pdf('fourth'))).toBe(true);
  });

  it('counts old states toward the disk space limit', async () => {
    const session = await login(server.rest);
    const big = Buffer.concat([pdf('big'), Buffer.alloc(20 * 1024, 0x20)]);
    const document = await uploadDocument(server.rest, session.token, big, 'big.pdf', '?history=true');
    const { body, contentType } = multipartBody(big, 'big.pdf');
    const put = () =>
      rawRequest(`${server.rest}/documents/${String(document.documentId)}`, {
        method: 'PUT',
        headers: { ...bearer(session.token), 'content-type': contentType, 'content-length': body.length },
        body,
      });
    expect((await put()).status).toBe(303);
    expect((await put()).status).toBe(303);
    const refused = await put(); // a fourth 20 KB state would pass the 64 KB limit
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body.toString()).errorCode).toBe(-73);
    const kept = (await (await fetch(`${server.rest}/documents/${String(document.documentId)}/history`, { headers: bearer(session.token) })).json()) as unknown[];
    expect(kept).toHaveLength(3);
  });

  it('answers unknown history entries and documents without history with 404 (-77)', async () => {
    const plain = await uploadDocument(server.rest, token, pdf('plain'), 'plain.pdf');
    const none = await fetch(`${server.rest}/documents/${String(plain.documentId)}/history/1`, { headers: bearer(token) });
    expect(none.status).toBe(404);
    expect((await json(none)).errorCode).toBe(-77);
    const kept = await uploadDocument(server.rest, token, pdf('kept'), 'kept.pdf', '?history=true');
    const missing = await fetch(`${server.rest}/documents/${String(kept.documentId)}/history/9`, { headers: bearer(token) });
    expect((await json(missing)).errorCode).toBe(-77);
    const bad = await fetch(`${server.rest}/documents/${String(kept.documentId)}/history/abc`, { headers: bearer(token) });
    expect(bad.status).toBe(400);
  });
});

describe('locked documents', () => {
  const { server } = useTestServer({ session: false });

  it('reports a document in use as locked and refuses a second change or a delete meanwhile', async () => {
    const { token } = await login(server.rest);
    const document = await uploadDocument(server.rest, token, pdf('lock'), 'lock.pdf');
    const id = String(document.documentId);
    expect(document.isFileLocked).toBe(false);

    // A content replacement that trickles in holds the document's lock while it runs.
    const body = new PassThrough();
    const boundary = 'lock-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="lock.pdf"\r\n\r\n`;
    const pending = rawRequest(`${server.rest}/documents/${id}`, {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    body.write(head);
    body.write(pdf('new content'));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const during = await json(await fetch(`${server.rest}/documents/${id}/info`, { headers: bearer(token) }));
    expect(during.isFileLocked).toBe(true);
    const listed = (await (await fetch(`${server.rest}/documents/list`, { headers: bearer(token) })).json()) as Array<Record<string, unknown>>;
    expect(listed.find((d) => d.documentId === id)?.isFileLocked).toBe(true);
    const deletion = await fetch(`${server.rest}/documents/${id}`, { method: 'DELETE', headers: bearer(token) });
    expect(deletion.status).toBe(409);
    expect((await json(deletion)).errorCode).toBe(-75);
    const { body: second, contentType } = multipartBody(pdf('second'), 'x.pdf');
    const concurrent = await rawRequest(`${server.rest}/documents/${id}`, {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': contentType, 'content-length': second.length },
      body: second,
    });
    expect(concurrent.status).toBe(409);

    body.end(`\r\n--${boundary}--\r\n`);
    expect((await pending).status).toBe(303);
    const after = await json(await fetch(`${server.rest}/documents/${id}/info`, { headers: bearer(token) }));
    expect(after.isFileLocked).toBe(false);
    expect(Buffer.from(await (await fetch(`${server.rest}/documents/${id}`, { headers: bearer(token) })).arrayBuffer()).equals(pdf('new content'))).toBe(true);
    expect((await fetch(`${server.rest}/documents/${id}`, { method: 'DELETE', headers: bearer(token) })).status).toBe(200);
    expect(existsSync(path.join(server.dataDir, 'storage', decodeJwt(token).sub!, id))).toBe(false);
  });
});
