import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from '@cantoo/pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, json, login, uploadDocument } from '../helpers/client.js';
import { useTestServer } from '../helpers/fixture.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/pdf');
const work = mkdtempSync(path.join(os.tmpdir(), 'quire-protected-'));

async function formPdf(): Promise<Buffer> {
  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  const form = document.getForm();
  const name = form.createTextField('customer.name');
  name.setText('Ada Lovelace');
  name.addToPage(page, { x: 50, y: 700, width: 200, height: 20 });
  const agree = form.createCheckBox('agree');
  agree.check();
  agree.addToPage(page, { x: 50, y: 650, width: 15, height: 15 });
  document.setTitle('Form');
  return Buffer.from(await document.save());
}

/** Encrypts with qpdf, as an independent tool would. */
function encrypt(source: Buffer, user: string, owner: string, name: string): Buffer {
  const input = path.join(work, `${name}-in.pdf`);
  const output = path.join(work, `${name}.pdf`);
  writeFileSync(input, source);
  execFileSync('qpdf', ['--encrypt', user, owner, '256', '--', input, output]);
  return readFileSync(output);
}

describe('protected PDFs', () => {
  const { server } = useTestServer({ session: false });
  let token: string;
  let plain: Buffer;
  beforeAll(async () => {
    token = (await login(server.rest)).token;
    plain = await formPdf();
  });

  const info = async (id: unknown) => json(await fetch(`${server.rest}/documents/${String(id)}/info`, { headers: bearer(token) }));
  const supply = async (id: unknown, body: unknown) => {
    const response = await fetch(`${server.rest}/documents/${String(id)}/security/password`, {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return json(response);
  };

  it('describes an unprotected PDF with metadata: pages, sizes, version, information, form', async () => {
    const document = await uploadDocument(server.rest, token, plain, 'form.pdf');
    expect(document.error).toMatchObject({ errorCode: 0 });
    expect(document.password).toEqual({ isOpenSet: false, isPermissionSet: false, isCertificateSet: false, recipients: [] });
    const metadata = document.metadata as Record<string, any>;
    expect(metadata.metadataType).toBe('pdf');
    expect(metadata.information).toMatchObject({ pages: 1, encrypted: false, formType: 'acroForm' });
    expect(metadata.information.description.title).toBe('Form');
    expect(metadata.pages.page[0]).toMatchObject({ number: 1, width: 595, height: 842 });
    expect(metadata.security).toMatchObject({ canPrint: true, canModify: true });
    // Independent check of the page count.
    writeFileSync(path.join(work, 'plain.pdf'), plain);
    expect(
      execFileSync('qpdf', ['--show-npages', path.join(work, 'plain.pdf')])
        .toString()
        .trim(),
    ).toBe('1');
  });

  it('answers -5009 for a PDF that needs its open password, then 0 once the password is supplied', async () => {
    const document = await uploadDocument(server.rest, token, encrypt(plain, 'secret', 'owner', 'user-pw'), 'locked.pdf');
    expect(document.error).toMatchObject({ errorCode: -5009 });
    expect(document.password).toMatchObject({ isOpenSet: true, isPermissionSet: true, isCertificateSet: false });
    expect(document.metadata).toBeUndefined();

    const wrong = await supply(document.documentId, { open: 'guess', permission: '' });
    expect(wrong.error).toMatchObject({ errorCode: -5008 });
    expect((await info(document.documentId)).error).toMatchObject({ errorCode: -5009 });

    const right = await supply(document.documentId, { open: 'secret' });
    expect(right.error).toMatchObject({ errorCode: 0 });
    const after = await info(document.documentId);
    expect(after.error).toMatchObject({ errorCode: 0 });
    expect((after.metadata as Record<string, any>).information).toMatchObject({ pages: 1, encrypted: true });
  });

  it('accepts the owner password as well, and forms can be read with the remembered password', async () => {
    const document = await uploadDocument(server.rest, token, encrypt(plain, 'secret2', 'owner2', 'owner-pw'), 'locked2.pdf');
    const form = await json(await fetch(`${server.rest}/documents/${String(document.documentId)}/info/form`, { headers: bearer(token) }));
    expect(form).toMatchObject({ infoType: 'form', acroFormFields: [], error: { errorCode: -5009 } });
    expect((await supply(document.documentId, { permission: 'owner2' })).error).toMatchObject({ errorCode: 0 });
    const unlocked = await json(await fetch(`${server.rest}/documents/${String(document.documentId)}/info/form`, { headers: bearer(token) }));
    expect(unlocked.error).toMatchObject({ errorCode: 0 });
    expect((unlocked.acroFormFields as Array<{ fullyQualifiedName: string }>).map((f) => f.fullyQualifiedName).sort()).toEqual(['agree', 'customer.name']);
    const xfdf = Buffer.from(String(unlocked.value), 'base64').toString('utf8');
    expect(xfdf).toContain('<xfdf');
    expect(xfdf).toContain('Ada Lovelace');
  });

  it('opens a permission-only PDF without a password', async () => {
    const document = await uploadDocument(server.rest, token, encrypt(plain, '', 'owner3', 'perm-only'), 'perm.pdf');
    expect(document.error).toMatchObject({ errorCode: 0 });
    expect(document.password).toMatchObject({ isOpenSet: false, isPermissionSet: true });
    expect((document.metadata as Record<string, any>).information.encrypted).toBe(true);
  });

  it('answers -5055 for a certificate-encrypted PDF, -5008 for a foreign key pair, 0 for the recipient', async () => {
    const document = await uploadDocument(server.rest, token, readFileSync(path.join(FIXTURES, 'cert-encrypted.pdf')), 'cert.pdf');
    expect(document.error).toMatchObject({ errorCode: -5055 });
    const password = document.password as { isCertificateSet: boolean; recipients: Array<{ issuer: string; serialNumber: string }> };
    expect(password.isCertificateSet).toBe(true);
    expect(password.recipients.length).toBeGreaterThan(0);
    const pair = (name: string) => ({
      certificate: { source: 'value', value: readFileSync(path.join(FIXTURES, `${name}.cert.pem`), 'utf8') },
      privateKey: { source: 'value', value: readFileSync(path.join(FIXTURES, `${name}.key.pem`), 'utf8') },
    });
    expect((await supply(document.documentId, { keyPair: pair('other') })).error).toMatchObject({ errorCode: -5008 });
    expect((await supply(document.documentId, { keyPair: pair('recipient') })).error).toMatchObject({ errorCode: 0 });
    expect((await info(document.documentId)).error).toMatchObject({ errorCode: 0 });
  });

  it('refuses passwords for documents that are no PDF, and key material by URI', async () => {
    const text = await uploadDocument(server.rest, token, Buffer.from('hello'), 'a.txt');
    const response = await fetch(`${server.rest}/documents/${String(text.documentId)}/security/password`, {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ open: 'x' }),
    });
    expect(response.status).toBe(400);
    expect((await json(response)).errorCode).toBe(-14);
    const pdf = await uploadDocument(server.rest, token, plain, 'p.pdf');
    const uri = await fetch(`${server.rest}/documents/${String(pdf.documentId)}/security/password`, {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ keyPair: { certificate: { source: 'uri', uri: 'http://169.254.169.254/' }, privateKey: { source: 'value', value: 'x' } } }),
    });
    expect(uri.status).toBe(400);
    expect(String((await json(uri)).errorMessage)).toMatch(/keyPair\.certificate\.source/);
  });
});

describe('image metadata in DocumentFile', () => {
  const { server } = useTestServer({ session: false });

  it('reports width, height and resolution of an image', async () => {
    const { token } = await login(server.rest);
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const document = await uploadDocument(server.rest, token, png, 'dot.png');
    expect(document.metadata).toMatchObject({ metadataType: 'image', images: [expect.objectContaining({ width: 1, height: 1 })] });
  });
});
