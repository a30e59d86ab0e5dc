/**
 * Every answer that carries a file: `X-Content-Type-Options: nosniff` and a Content-Disposition
 * that no name (a client's, a ZIP entry's) can break: no CR/LF, no quote or backslash inside the
 * quoted fallback, no path in either form, the UTF-8 name percent-encoded (RFC 6266 / RFC 8187).
 */
import { validateHeaderValue } from 'node:http';
import yazl from 'yazl';
import { describe, expect, it } from 'vitest';
import { attachment } from '../../src/http/replies.js';
import { bearer, login } from '../helpers/client.js';
import { info, rawMultipart, realPdf, sha256 } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../helpers/server.js';

/** Quotes, CR LF with a header after it, a path climbing up, a backslash path, non-ASCII, a bidi override, percent signs; 1,000 characters. */
const HOSTILE = `../../etc/"quoted" name\r\nX-Injected: yes\\..\\win ü €😀 \u202Efdp.exe %41%0d;x=1 ${'n'.repeat(1000)}`.slice(0, 1000);

/** The RFC 6266 shape: a quoted ASCII fallback, then filename* of RFC 8187 attr-chars and pct-encodings. */
const DISPOSITION = /^(attachment|inline); filename="([\x20\x21\x23-\x5b\x5d-\x7e]*)"; filename\*=UTF-8''((?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-F]{2})+)$/;

/** Checks a Content-Disposition value; returns the decoded UTF-8 name and the fallback. */
function expectSafeDisposition(value: string | null): { name: string; fallback: string } {
  expect(value).not.toBeNull();
  expect(() => validateHeaderValue('content-disposition', value!)).not.toThrow();
  expect(value).not.toMatch(/[\r\n\0]/);
  const match = DISPOSITION.exec(value!);
  expect(match, value!).not.toBeNull();
  const fallback = match![2]!;
  const name = decodeURIComponent(match![3]!);
  for (const form of [fallback, name]) {
    expect(form).not.toMatch(/[/\\]/);
    expect(form).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(form).not.toMatch(/^\.*$/);
    expect(Array.from(form).length).toBeLessThanOrEqual(255);
  }
  expect(fallback).not.toMatch(/%/);
  return { name, fallback };
}

function expectNoSniff(response: Response): void {
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
}

describe('Content-Disposition for hostile names', () => {
  it.each([
    ['the hostile name', HOSTILE],
    ['a name of dots', '..'],
    ['an empty name', ''],
    ['a name that is a path', '/etc/passwd'],
    ['a Windows path', 'C:\\Users\\x\\report.pdf'],
    ['a long name with an extension', `${'ü'.repeat(400)}.pdf`],
  ])('is one safe header value for %s', (_label, name) => {
    const { name: decoded } = expectSafeDisposition(attachment(name));
    if (name.endsWith('.pdf')) expect(decoded.endsWith('.pdf')).toBe(true);
  });

  it('keeps an ordinary name as it is', () => {
    expect(attachment('Grüße (v2).pdf')).toBe(`attachment; filename="Gr__e (v2).pdf"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%28v2%29.pdf`);
  });
});

describe('download answers', () => {
  const { server, session } = useTestServer();

  async function upload(content: Buffer, partHeader: string): Promise<string> {
    const { body, contentType } = rawMultipart([{ headers: [partHeader, 'Content-Type: application/octet-stream'], content }]);
    const response = await fetch(`${server.rest}/documents`, { method: 'POST', headers: { ...session.headers, 'content-type': contentType }, body, redirect: 'manual' });
    expect(response.status).toBe(303);
    return /documents\/([0-9a-f]{32})\/info/.exec(response.headers.get('location') ?? '')![1]!;
  }

  it('documents: a file name sent as filename* (RFC 5987) with quotes, paths, non-ASCII and 1,000 characters', async () => {
    const pdf = await realPdf();
    // (busboy refuses CR and LF in a part's file name: those arrive by rename and archiveFileName below.)
    const sent = `${HOSTILE.replace(/[\r\n]/g, '')}.pdf`;
    const id = await upload(pdf, `Content-Disposition: form-data; name="filedata"; filename*=UTF-8''${encodeURIComponent(sent)}`);
    const response = await fetch(`${server.rest}/documents/${id}`, { headers: session.headers });
    expect(response.status).toBe(200);
    expectNoSniff(response);
    const { name } = expectSafeDisposition(response.headers.get('content-disposition'));
    expect(name.endsWith('.pdf')).toBe(true);
    expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(sha256(pdf));
  });

  it('documents: a name given by rename, and a 206 range answer', async () => {
    const id = await upload(await realPdf(), 'Content-Disposition: form-data; name="filedata"; filename="plain.pdf"');
    const renamed = await fetch(`${server.rest}/documents/${id}/update`, {
      method: 'POST',
      headers: { ...session.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: HOSTILE }),
    });
    expect(renamed.status).toBe(200);
    for (const headers of [session.headers, { ...session.headers, range: 'bytes=0-9' }]) {
      const response = await fetch(`${server.rest}/documents/${id}`, { headers });
      expect([200, 206]).toContain(response.status);
      expectNoSniff(response);
      expectSafeDisposition(response.headers.get('content-disposition'));
      await response.arrayBuffer();
    }
  });

  it('an archive streamed by documents/compress under a hostile archiveFileName', async () => {
    const id = await upload(await realPdf(), 'Content-Disposition: form-data; name="filedata"; filename="in.pdf"');
    const response = await fetch(`${server.rest}/documents/compress`, {
      method: 'POST',
      headers: { ...session.headers, 'content-type': 'application/json', accept: 'application/octet-stream' },
      body: JSON.stringify({ documentIdList: [id], archiveFileName: HOSTILE }),
    });
    expect(response.status).toBe(200);
    expectNoSniff(response);
    const { name } = expectSafeDisposition(response.headers.get('content-disposition'));
    expect(name.endsWith('.zip')).toBe(true);
    await response.arrayBuffer();
  });

  it('an archive member whose ZIP entry name has quotes, percent signs, a bidi override and 900 characters', async () => {
    const memberName = `dir/${'m'.repeat(880)} "q" %41;x ü\u202Etxt.exe`;
    const zipFile = new yazl.ZipFile();
    zipFile.addBuffer(Buffer.from('member content'), memberName);
    zipFile.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zipFile.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
    const id = await upload(Buffer.concat(chunks), 'Content-Disposition: form-data; name="filedata"; filename="members.zip"');
    expect((await info(server.rest, session.token, id)).mimeType).toBe('application/zip');
    const url = `${server.rest}/documents/${id}/archive/${memberName.split('/').map(encodeURIComponent).join('/')}`;
    const response = await fetch(url, { headers: session.headers });
    expect(response.status).toBe(200);
    expectNoSniff(response);
    const { name } = expectSafeDisposition(response.headers.get('content-disposition'));
    expect(name.startsWith('mmm')).toBe(true);
    expect(await response.text()).toBe('member content');
  });

  it('JSON answers that echo stored names: info, history', async () => {
    const id = await upload(await realPdf(), 'Content-Disposition: form-data; name="filedata"; filename="x.pdf"');
    for (const path of [`/documents/${id}/info`, `/documents/${id}/history`]) {
      const response = await fetch(`${server.rest}${path}`, { headers: session.headers });
      expect(response.status).toBe(200);
      expectNoSniff(response);
      await response.arrayBuffer();
    }
  });

  it('administration: the log, the support package and the data store', async () => {
    const admin = (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token;
    const log = await fetch(`${server.rest}/admin/server/log`, { headers: bearer(admin) });
    expect(log.status).toBe(200);
    expectNoSniff(log);
    expect(log.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(expectSafeDisposition(log.headers.get('content-disposition')).name).toMatch(/^quire-\d{4}-\d{2}-\d{2}\.log$/);
    await log.arrayBuffer();

    const support = await fetch(`${server.rest}/admin/server/support`, { headers: { ...bearer(admin), accept: 'application/octet-stream' } });
    expect(support.status).toBe(200);
    expectNoSniff(support);
    expectSafeDisposition(support.headers.get('content-disposition'));
    await support.arrayBuffer();

    const logo = await fetch(`${server.rest}/admin/datastore/logo`, { headers: bearer(admin) });
    expect(logo.status).toBe(200);
    expectNoSniff(logo);
    await logo.arrayBuffer();
  });

  it('error answers too', async () => {
    const response = await fetch(`${server.rest}/documents/${'0'.repeat(32)}`, { headers: session.headers });
    expect(response.status).toBe(404);
    expectNoSniff(response);
  });
});
