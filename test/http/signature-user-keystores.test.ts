import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keytoolKeyPair } from '../helpers/certificates.js';
import { bearer, login } from '../helpers/client.js';
import { downloadToFile } from '../helpers/converter.js';
import { openSession, realPdf, uploadFile } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { ALICE_AND_ROOT_YAML } from '../helpers/server.js';

// Alice's own store (principal, PKCS#12 with its password configured) and a store of the admin role
// (local, JKS configured without its password: locked until a session unlocks it).
const storeDir = mkdtempSync(path.join(os.tmpdir(), 'quire-sign-user-stores-'));
const aliceStore = path.join(storeDir, 'alice.p12');
const adminStore = path.join(storeDir, 'admins.jks');
keytoolKeyPair(aliceStore, { alias: 'alice key', keyalg: 'RSA', keysize: 2048, dname: 'CN=Alice Liddell, O=Quire Tests, C=DE', storetype: 'PKCS12', password: 'rabbit' });
keytoolKeyPair(adminStore, { alias: 'admin seal', keyalg: 'RSA', keysize: 2048, dname: 'CN=Admin Seal, O=Quire Tests, C=DE', password: 'webpdf' });

const YAML = `${ALICE_AND_ROOT_YAML}
signature:
  userKeyStores:
    - name: alice-own
      user: alice
      type: PKCS12
      file: ${aliceStore}
      password: rabbit
    - name: admins
      roles: [admin]
      type: JKS
      file: ${adminStore}
`;

interface Listed {
  certificates: { aliasName: string; keyStoreName: string; keyStoreOrigin: string; hasPrivateKey: boolean; isPrivateKeyReadable: boolean }[];
  keyStores: { isKeyStoreAccessible: boolean; keyStoreName: string; keyStoreOrigin: string }[];
}

function pdfsig(file: string): string {
  const result = spawnSync('pdfsig', ['-nocert', file], { encoding: 'utf8' });
  return `${result.stdout}${result.stderr}`;
}

describe('signing key stores of a user (principal) and of a role (local)', () => {
  const { server } = useTestServer({ yaml: YAML, session: false });

  const certificates = async (token: string) => (await (await fetch(`${server.rest}/authentication/user/certificates`, { headers: bearer(token) })).json()) as Listed;
  const unlock = (token: string, name: string, password: string) =>
    fetch(`${server.rest}/authentication/user/certificates/passwords/${name}`, {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ keyStorePassword: password, aliases: {} }),
    });
  const sign = (token: string, documentId: string, keyName: string) =>
    fetch(`${server.rest}/signature/${documentId}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ signature: { add: { keyName, certificationLevel: 'none', reason: 'Mine' } } }),
    });
  const errorCode = async (response: Response) => ((await response.json()) as { errorCode: number }).errorCode;

  it("lists each user's own stores and the global one, and only the global one to an anonymous session", async () => {
    const alice = await login(server.rest, { name: 'alice', password: 'wonderland' });
    const root = await login(server.rest, { name: 'root', password: 'toor' });
    const anonymous = await openSession(server.rest);

    const aliceSees = await certificates(alice.token);
    expect(aliceSees.keyStores).toEqual([
      { isKeyStoreAccessible: true, keyStoreName: 'alice-own', keyStoreOrigin: 'principal' },
      { isKeyStoreAccessible: true, keyStoreName: 'global', keyStoreOrigin: 'global' },
    ]);
    expect(aliceSees.certificates).toContainEqual(
      expect.objectContaining({ aliasName: 'alice key', keyStoreName: 'alice-own', keyStoreOrigin: 'principal', hasPrivateKey: true, isPrivateKeyReadable: true }),
    );

    const rootSees = await certificates(root.token);
    expect(rootSees.keyStores).toEqual([
      { isKeyStoreAccessible: false, keyStoreName: 'admins', keyStoreOrigin: 'local' },
      { isKeyStoreAccessible: true, keyStoreName: 'global', keyStoreOrigin: 'global' },
    ]);
    expect(rootSees.certificates.map((c) => c.keyStoreName)).not.toContain('alice-own');

    expect((await certificates(anonymous.token)).keyStores.map((s) => s.keyStoreName)).toEqual(['global']);
  });

  it('signs with the principal store for its user (pdfsig verifies), and never for another user', async () => {
    const alice = await login(server.rest, { name: 'alice', password: 'wonderland' });
    const document = await uploadFile(server.rest, alice.token, await realPdf(1), 'alice.pdf');
    expect((await sign(alice.token, document.documentId, 'Alice Key')).status).toBe(303);
    const report = pdfsig(await downloadToFile(server.rest, alice.token, document.documentId));
    expect(report).toContain('Signature is Valid.');
    expect(report).toContain('Signer Certificate Common Name: Alice Liddell');

    // Root's own stores all open (its role's unlocked): the alias is simply not there for it.
    const root = await login(server.rest, { name: 'root', password: 'toor' });
    expect((await unlock(root.token, 'admins', 'webpdf')).status).toBe(200);
    const rootDocument = await uploadFile(server.rest, root.token, await realPdf(1), 'root.pdf');
    const refused = await sign(root.token, rootDocument.documentId, 'alice key');
    expect(refused.status).toBe(400);
    expect(await errorCode(refused)).toBe(-180);
    expect(await errorCode(await unlock(root.token, 'alice-own', 'rabbit'))).toBe(-35);
  });

  it("keeps a role's store from other roles: alice can neither unlock nor sign with the admins' store", async () => {
    const alice = await login(server.rest, { name: 'alice', password: 'wonderland' });
    expect(await errorCode(await unlock(alice.token, 'admins', 'webpdf'))).toBe(-35);
    const document = await uploadFile(server.rest, alice.token, await realPdf(1), 'seal.pdf');
    const refused = await sign(alice.token, document.documentId, 'admin seal');
    expect(await errorCode(refused)).toBe(-180);

    // The admin role's session unlocks it for itself and signs with its key.
    const root = await login(server.rest, { name: 'root', password: 'toor' });
    expect((await unlock(root.token, 'admins', 'webpdf')).status).toBe(200);
    const sealed = await uploadFile(server.rest, root.token, await realPdf(1), 'sealed.pdf');
    expect((await sign(root.token, sealed.documentId, 'admin seal')).status).toBe(303);
    expect(pdfsig(await downloadToFile(server.rest, root.token, sealed.documentId))).toContain('Signer Certificate Common Name: Admin Seal');
  });
});

describe('two signing key stores with one name', () => {
  const { server, session } = useTestServer({
    yaml: `signature:\n  userKeyStores:\n    - name: global\n      roles: [user]\n      type: PKCS12\n      file: ${aliceStore}\n      password: rabbit\n`,
  });

  it('refuses to list or sign rather than guess which store the name means', async () => {
    const response = await fetch(`${server.rest}/authentication/user/certificates`, { headers: bearer(session.token) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { errorCode: number; errorMessage: string }).errorMessage).toContain('Two signing key stores are named "global"');
  });
});
