import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keytoolKeyPair } from '../helpers/certificates.js';
import { bearer } from '../helpers/client.js';
import { openSession, realPdf } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';

// A JKS store like the official clients' fixtures (store password "webpdf"), configured without its
// password: locked until a session unlocks it.
const storeDir = mkdtempSync(path.join(os.tmpdir(), 'quire-sign-jks-'));
const store = path.join(storeDir, 'signing.jks');
keytoolKeyPair(store, { alias: 'company seal', keyalg: 'RSA', keysize: 2048, dname: 'CN=Company Seal, O=Quire Tests, C=DE', password: 'webpdf' });

function pdfsig(file: string): string {
  const result = spawnSync('pdfsig', ['-nocert', file], { encoding: 'utf8' });
  return `${result.stdout}${result.stderr}`;
}

describe('a configured JKS signing key store without its password', () => {
  const { server, session, upload, download } = useTestServer({
    yaml: `signature:\n  keyStore:\n    type: JKS\n    file: ${store}\n    name: company\n`,
  });

  const certificates = async (token: string) =>
    (await (await fetch(`${server.rest}/authentication/user/certificates`, { headers: bearer(token) })).json()) as {
      certificates: { aliasName: string; hasPrivateKey: boolean; isPrivateKeyReadable: boolean }[];
      keyStores: { isKeyStoreAccessible: boolean; keyStoreName: string }[];
    };
  const unlock = (token: string, password: string) =>
    fetch(`${server.rest}/authentication/user/certificates/passwords/company`, {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ keyStorePassword: password, aliases: {} }),
    });
  const sign = (token: string, documentId: string) =>
    fetch(`${server.rest}/signature/${documentId}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ signature: { add: { keyName: 'Company Seal', certificationLevel: 'none', reason: 'Seal' } } }),
    });

  it('lists the store as locked, refuses to sign with it, and rejects a wrong password with -5057', async () => {
    expect(await certificates(session.token)).toEqual({ certificates: [], keyStores: [{ isKeyStoreAccessible: false, keyStoreName: 'company', keyStoreOrigin: 'global' }] });
    const document = await upload(await realPdf(1), 'locked.pdf');
    const refused = await sign(session.token, document.documentId);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errorCode: number }).errorCode).toBe(-5057);
    const wrong = await unlock(session.token, 'not-webpdf');
    expect(((await wrong.json()) as { errorCode: number }).errorCode).toBe(-5057);
  });

  it('unlocks the store for the session that sent the password only, which then signs with its key', async () => {
    const unlocked = await unlock(session.token, 'webpdf');
    expect(unlocked.status).toBe(200);
    const listed = (await unlocked.json()) as Awaited<ReturnType<typeof certificates>>;
    expect(listed.keyStores[0]!.isKeyStoreAccessible).toBe(true);
    expect(listed.certificates).toEqual([expect.objectContaining({ aliasName: 'company seal', hasPrivateKey: true, isPrivateKeyReadable: true, keyStoreName: 'company' })]);

    const document = await upload(await realPdf(1), 'sealed.pdf');
    expect((await sign(session.token, document.documentId)).status).toBe(303);
    const report = pdfsig(await download(document.documentId, 'pdf'));
    expect(report).toContain('Signature is Valid.');
    expect(report).toContain('Signer Certificate Common Name: Company Seal');

    const other = await openSession(server.rest);
    expect((await certificates(other.token)).keyStores[0]!.isKeyStoreAccessible).toBe(false);
  });
});
