import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, json, login, uploadDocument } from '../helpers/client.js';
import { useTestServer } from '../helpers/fixture.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'quire-archives-'));
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

/** Builds a ZIP with python's zipfile (an independent writer); `members` maps names to base64 content. */
function pythonZip(name: string, members: Record<string, Buffer>, script = ''): Buffer {
  const file = path.join(work, name);
  const spec = JSON.stringify(Object.fromEntries(Object.entries(members).map(([k, v]) => [k, v.toString('base64')])));
  execFileSync('python3', [
    '-c',
    `import base64,json,sys,zipfile\nz=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED)\nfor k,v in json.loads(sys.argv[2]).items(): z.writestr(k, base64.b64decode(v))\n${script}\nz.close()`,
    file,
    spec,
  ]);
  return readFileSync(file);
}

describe('archives', () => {
  const { server } = useTestServer({ env: { QUIRE_LIMITS__ANONYMOUS__MAX_FILES: '20', QUIRE_LIMITS__ANONYMOUS__DISK_SPACE_LIMIT: '20MB' }, session: false });
  let token: string;
  beforeAll(async () => {
    token = (await login(server.rest)).token;
  });

  const post = (url: string, body: unknown, accept = 'application/json') =>
    fetch(`${server.rest}${url}`, { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json', accept }, body: JSON.stringify(body) });

  it('zips documents as bytes (Accept: application/octet-stream), named fileName.fileExtension', async () => {
    const a = await uploadDocument(server.rest, token, PDF, 'report.pdf');
    const b = await uploadDocument(server.rest, token, PNG, 'logo.png');
    const c = await uploadDocument(server.rest, token, PDF, 'report.pdf');
    const response = await post('/documents/compress', { documentIdList: [a.documentId, b.documentId, c.documentId], storeArchive: false, archiveFileName: 'files' }, 'application/octet-stream');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    const zip = path.join(work, 'download.zip');
    writeFileSync(zip, Buffer.from(await response.arrayBuffer()));
    expect(execFileSync('unzip', ['-t', zip]).toString()).toMatch(/No errors detected/);
    const names = execFileSync('unzip', ['-Z1', zip]).toString().trim().split('\n').sort();
    expect(names).toEqual(['logo.png', 'report (2).pdf', 'report.pdf']);
    expect(execFileSync('unzip', ['-p', zip, 'logo.png']).equals(PNG)).toBe(true);
  });

  it('stores the archive as a document (Accept: application/json), selecting by filter too', async () => {
    const response = await post('/documents/compress', { fileFilter: { includeRules: [{ rulePattern: '*.png', ruleType: 'glob' }] }, storeArchive: true, archiveFileName: 'images.zip' });
    expect(response.status).toBe(200); // the 303 to the info was followed
    const stored = await json(response);
    expect(stored).toMatchObject({ mimeType: 'application/zip', fileName: 'images', fileExtension: 'zip' });
    expect(stored.metadata).toMatchObject({ metadataType: 'archive', files: [expect.objectContaining({ path: 'logo.png', size: PNG.length })] });
  });

  it('extracts selected members into new documents with the archive as parent', async () => {
    const archive = await uploadDocument(server.rest, token, pythonZip('three.zip', { 'logo.png': PNG, 'form.pdf': PDF, 'docs/readme.txt': Buffer.from('hi') }), 'three.zip');
    const response = await post(`/documents/${String(archive.documentId)}/extract`, { fileFilter: { includeRules: [{ rulePattern: '{logo.png,form.pdf}', ruleType: 'glob' }] } });
    expect(response.status).toBe(200);
    const created = (await response.json()) as Array<Record<string, unknown>>;
    expect(created.map((d) => `${String(d.fileName)}.${String(d.fileExtension)}`).sort()).toEqual(['form.pdf', 'logo.png']);
    for (const document of created) expect(document.parentDocumentId).toBe(archive.documentId);
    const children = (await (await fetch(`${server.rest}/documents/list/${String(archive.documentId)}`, { headers: bearer(token) })).json()) as unknown[];
    expect(children).toHaveLength(2);

    const all = await post(`/documents/${String(archive.documentId)}/extract`, {});
    expect(((await all.json()) as unknown[]).length).toBe(3);
  });

  it('reads one member by its path, which may contain /', async () => {
    const archive = await uploadDocument(server.rest, token, pythonZip('nested-path.zip', { 'docs/sub/readme.txt': Buffer.from('inner text') }), 'p.zip');
    const member = await fetch(`${server.rest}/documents/${String(archive.documentId)}/archive/docs/sub/readme.txt`, { headers: { ...bearer(token), accept: 'application/octet-stream' } });
    expect(member.status).toBe(200);
    expect(await member.text()).toBe('inner text');
    const missing = await fetch(`${server.rest}/documents/${String(archive.documentId)}/archive/nope.txt`, { headers: bearer(token) });
    expect(missing.status).toBe(404);
    expect((await json(missing)).errorCode).toBe(-79);
  });

  it('refuses hostile archives with a clear error and leaves nothing behind', async () => {
    const sessionDir = path.join(server.dataDir, 'storage', decodeJwt(token).sub!);
    const hostile: Array<[string, Buffer, RegExp]> = [
      ['slip.zip', pythonZip('slip.zip', { '../evil.txt': Buffer.from('x') }), /evil|unsafe|\.\./i],
      ['bomb.zip', pythonZip('bomb.zip', {}, "z.writestr('zeros.bin', b'\\0' * (64*1024*1024))"), /ratio|bomb|too large|limit/i],
      ['many.zip', pythonZip('many.zip', {}, "[z.writestr('f%d.txt' % i, b'x') for i in range(10050)]"), /entries/i],
      ['nested.zip', pythonZip('nested.zip', { 'inner.zip': pythonZip('inner.zip', { 'a.txt': Buffer.from('a') }) }), /nested|archive/i],
    ];
    for (const [name, content, reason] of hostile) {
      const before = readdirSync(sessionDir).length;
      const archive = await uploadDocument(server.rest, token, content, name);
      const response = await post(`/documents/${String(archive.documentId)}/extract`, {});
      expect(response.status, name).toBe(400);
      const body = await json(response);
      expect(body.errorCode, name).toBe(-78);
      expect(String(body.errorMessage), name).toMatch(reason);
      expect(readdirSync(sessionDir).length, name).toBe(before + 1); // only the uploaded archive itself
      await fetch(`${server.rest}/documents/${String(archive.documentId)}`, { method: 'DELETE', headers: bearer(token) });
    }
    expect(readdirSync(path.join(server.dataDir, 'tmp')).filter((n) => !n.startsWith('deleted-'))).toEqual([]);
  });

  it("refuses an extraction past the session's file limit before extracting anything", async () => {
    const members = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, Buffer.from(`file ${i}`)]));
    const session = await login(server.rest);
    const archive = await uploadDocument(server.rest, session.token, pythonZip('thirty.zip', members), 'thirty.zip');
    const response = await fetch(`${server.rest}/documents/${String(archive.documentId)}/extract`, {
      method: 'POST',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(409);
    expect((await json(response)).errorCode).toBe(-72);
    const list = (await (await fetch(`${server.rest}/documents/list`, { headers: bearer(session.token) })).json()) as unknown[];
    expect(list).toHaveLength(1);
  });

  it('refuses to extract what is no ZIP, and bad filters', async () => {
    const pdf = await uploadDocument(server.rest, token, PDF, 'x.pdf');
    const notZip = await post(`/documents/${String(pdf.documentId)}/extract`, {});
    expect((await json(notZip)).errorCode).toBe(-78);
    const archive = await uploadDocument(server.rest, token, pythonZip('ok.zip', { 'a.txt': Buffer.from('a') }), 'ok.zip');
    const redos = await post(`/documents/${String(archive.documentId)}/extract`, { fileFilter: { includeRules: [{ rulePattern: '(a+)+$', ruleType: 'regex' }] } });
    expect(redos.status).toBe(400);
    expect((await json(redos)).errorCode).toBe(-14);
    const badType = await post(`/documents/${String(archive.documentId)}/extract`, { fileFilter: { includeRules: [{ rulePattern: 'x', ruleType: 'wildcard' }] } });
    expect(badType.status).toBe(400);
    expect(String((await json(badType)).errorMessage)).toMatch(/ruleType/);
  });
});
