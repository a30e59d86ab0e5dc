import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { postWebService } from '../helpers/converter.js';
import { realPdf, sha256 } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { scratchDir } from '../helpers/pdf-tools.js';
import { MM, renderPage, zbar } from '../engines/barcode/readers.js';

/**
 * POST barcode/{documentId} on a password-protected PDF: opened with the call's password, stamped,
 * stored with its protection again (checked and decrypted with qpdf, read with zbarimg); without the
 * password refused, the document as it was.
 */

const { server, session, upload, download } = useTestServer();
const scratch = scratchDir('barcode-protected');
afterAll(() => scratch.remove());

const body = (password?: string) => ({
  barcode: { add: { qrcode: [{ value: 'protected page', pages: '*', position: { x: 10, y: 10, width: 30, height: 30 } }] } },
  ...(password === undefined ? {} : { password: { open: password } }),
});

async function protectedUpload(): Promise<string> {
  const plain = scratch.file('plain.pdf');
  writeFileSync(plain, await realPdf(2));
  execFileSync('qpdf', ['--encrypt', 'user-pw', 'owner-pw', '256', '--', plain, `${plain}.enc`]);
  return (await upload(readFileSync(`${plain}.enc`), 'protected.pdf')).documentId;
}

describe('barcode add on a protected PDF', () => {
  it('stamps it with the call password and stores it protected as before', async () => {
    const documentId = await protectedUpload();
    const outcome = await postWebService(`${server.rest}/barcode/${documentId}`, session.token, body('user-pw'));
    expect(outcome.status).toBe(303);
    const stored = await download(documentId);
    // qpdf --is-encrypted: exit 0 when encrypted.
    expect(spawnSync('qpdf', ['--is-encrypted', stored]).status).toBe(0);
    const decrypted = scratch.file('decrypted.pdf');
    execFileSync('qpdf', ['--password=user-pw', '--decrypt', stored, decrypted]);
    const box = { x: 10 * MM, y: 10 * MM, width: 30 * MM, height: 30 * MM };
    for (const page of [1, 2]) expect(zbar(renderPage(decrypted, page, scratch.file(`page-${page}`), { box, pad: 2 * MM }))).toEqual(['QR-Code:protected page']);
  });

  it('refuses it without a password; the document stays as it was', async () => {
    const documentId = await protectedUpload();
    const before = sha256(readFileSync(await download(documentId)));
    const outcome = await postWebService(`${server.rest}/barcode/${documentId}`, session.token, body());
    expect(outcome.status).toBe(400);
    expect(outcome.error?.errorCode).toBe(-5009);
    expect(sha256(readFileSync(await download(documentId)))).toBe(before);
  });
});
