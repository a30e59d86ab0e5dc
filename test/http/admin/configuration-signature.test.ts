import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { keytool, keytoolKeyPair } from '../../helpers/certificates.js';
import { bearer, json, login } from '../../helpers/client.js';
import { realPdf } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';

/**
 * Issue 15: the signature settings of the application envelope (`ApplicationConfig_Keystore`,
 * `globalKeyStore`, `ApplicationConfig_Tsa`) written through the configuration administration take
 * effect at once (the next signature uses them), read back, and never show a password or the store.
 */

type Json = Record<string, unknown>;
const code = (result: Json) => (result.error as Json).code;
const STORE_PASSWORD = 'store-pw-8813';
const OTHER_KEY_PASSWORD = 'other-key-pw-2291';
const TSA_PASSWORD = 'tsa-secret-5170';

function pdfsig(file: string): string {
  const result = spawnSync('pdfsig', ['-nocert', file], { encoding: 'utf8' });
  return `${result.stdout}${result.stderr}`;
}

describe('signature settings through the configuration administration', () => {
  const { server, session, upload, download } = useTestServer({ yaml: `network:\n  allowHosts: ['127.0.0.1']\nsignature:\n  tsa:\n    timeout: 3\n` });
  let admin: Record<string, string>;
  let work: string;
  let jks: Buffer;

  const read = async (): Promise<Json> => json(await fetch(`${server.rest}/admin/configuration/application`, { headers: admin }));
  const write = async (change: (envelope: Json & { configuration: Json }) => void): Promise<Json> => {
    const envelope = { ...(await read()), configurationMode: 'write' } as unknown as Json & { configuration: Json };
    change(envelope);
    const response = await fetch(`${server.rest}/admin/configuration/`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify(envelope) });
    expect(response.status).toBe(200);
    return json(response);
  };
  const sign = async (keyName: string): Promise<{ status: number; body: string; documentId: string }> => {
    const document = await upload(await realPdf(1), 'to-sign.pdf');
    const response = await fetch(`${server.rest}/signature/${document.documentId}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify({ signature: { add: { keyName, certificationLevel: 'none' } } }),
    });
    return { status: response.status, body: await response.text(), documentId: document.documentId };
  };
  const listed = async () =>
    (await (await fetch(`${server.rest}/authentication/user/certificates`, { headers: bearer(session.token) })).json()) as { certificates: { aliasName: string; isPrivateKeyReadable: boolean }[] };
  const signatureYaml = () => (YAML.parse(readFileSync(path.join(server.dataDir, 'quire.yaml'), 'utf8')) as { signature: Json }).signature;

  beforeAll(async () => {
    admin = { ...bearer((await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token), accept: 'application/json' };
    work = mkdtempSync(path.join(os.tmpdir(), 'quire-sign-admin-'));
    const store = path.join(work, 'signing.jks');
    keytoolKeyPair(store, { alias: 'company seal', keyalg: 'RSA', keysize: 2048, dname: 'CN=Company Seal, O=Quire Tests', password: STORE_PASSWORD });
    keytoolKeyPair(store, { alias: 'other key', keyalg: 'RSA', keysize: 2048, dname: 'CN=Other Key, O=Quire Tests', password: STORE_PASSWORD });
    keytool('-keypasswd', '-keystore', store, '-storepass', STORE_PASSWORD, '-alias', 'other key', '-keypass', STORE_PASSWORD, '-new', OTHER_KEY_PASSWORD);
    jks = readFileSync(store);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('reads the defaults: the generated store, no authority, passwords redacted', async () => {
    const view = await read();
    const configuration = view.configuration as Json;
    expect(configuration.keystore).toEqual({ type: 'NONE', password: '[redacted]', entry: [], filter: [] });
    expect(configuration.tsa).toEqual({ url: '', hashAlgorithm: 'SHA-256', user: '', password: '[redacted]' });
    expect((view.globalKeyStore as Json).keyStoreContent).toBe('');
  });

  it('stores a posted JKS with its password, key passwords and filter; the next signature uses them; nothing secret reads back', async () => {
    const result = await write((e) => {
      e.configuration.keystore = { type: 'JKS', password: STORE_PASSWORD, entry: [{ alias: 'other key', password: OTHER_KEY_PASSWORD }], filter: [{ pattern: 'company.*' }] };
      e.globalKeyStore = { keyStoreContent: jks.toString('base64') };
    });
    expect(code(result), JSON.stringify(result)).toBe(0);
    expect(result.restartRequired).toBe(false);

    const view = await read();
    const text = JSON.stringify(view);
    for (const secret of [STORE_PASSWORD, OTHER_KEY_PASSWORD, jks.toString('base64').slice(0, 40)]) expect(text).not.toContain(secret);
    expect((view.configuration as Json).keystore).toEqual({ type: 'JKS', password: '[redacted]', entry: [{ alias: 'other key', password: '[redacted]' }], filter: [{ pattern: 'company.*' }] });
    const global = view.globalKeyStore as { keyStoreContent: string; certificates: { aliasName: string; hasPrivateKey: boolean }[] };
    expect(global.keyStoreContent).toBe('');
    expect(global.certificates.map((c) => c.aliasName).sort()).toEqual(['company seal', 'other key']);
    const keyStore = signatureYaml().keyStore as Json;
    expect(keyStore).toMatchObject({ type: 'JKS', password: STORE_PASSWORD, file: 'signature-global.jks', filter: ['company.*'] });
    const file = path.join(server.dataDir, 'keystore', 'signature-global.jks');
    expect(readFileSync(file).equals(jks)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // In effect: the filter offers the company seal only; it signs.
    expect((await listed()).certificates.map((c) => c.aliasName)).toEqual(['company seal']);
    const sealed = await sign('company seal');
    expect(sealed.status, sealed.body).toBe(303);
    const report = pdfsig(await download(sealed.documentId, 'pdf'));
    expect(report).toContain('Signature is Valid.');
    expect(report).toContain('Signer Certificate Common Name: Company Seal');
    expect((await sign('other key')).status).toBe(400);

    // Posting the envelope back as read keeps every password (redacted values mean "unchanged").
    expect(code(await write(() => undefined))).toBe(0);
    expect(signatureYaml().keyStore).toMatchObject({ password: STORE_PASSWORD, entries: [{ alias: 'other key', password: OTHER_KEY_PASSWORD }] });

    // Without the filter, the other key signs with its own password from `entry`.
    expect(code(await write((e) => ((e.configuration.keystore as Json).filter = [])))).toBe(0);
    expect((await listed()).certificates).toEqual(expect.arrayContaining([expect.objectContaining({ aliasName: 'other key', isPrivateKeyReadable: true })]));
    const other = await sign('other key');
    expect(other.status, other.body).toBe(303);
    expect(pdfsig(await download(other.documentId, 'pdf'))).toContain('Signer Certificate Common Name: Other Key');
  });

  it('refuses a key store its password does not open, a Windows store and an invalid filter, changing nothing', async () => {
    const wrong = await write((e) => {
      (e.configuration.keystore as Json).password = 'not-the-password';
      e.globalKeyStore = { keyStoreContent: jks.toString('base64') };
    });
    expect(code(wrong)).toBe(-130);
    expect(wrong.problems).toEqual([expect.objectContaining({ field: 'configuration.keystore.password', key: 'signature.keyStore.password' })]);
    expect(code(await write((e) => ((e.configuration.keystore as Json).type = 'WINDOWS_USER')))).toBe(-130);
    const filter = await write((e) => ((e.configuration.keystore as Json).filter = [{ pattern: '(' }]));
    expect(code(filter)).toBe(-130);
    expect(signatureYaml().keyStore).toMatchObject({ type: 'JKS', password: STORE_PASSWORD, filter: [] });
  });

  it('writes the time-stamp authority, which the next signature uses; SHA-1 is refused; the password never reads back', async () => {
    const result = await write((e) => {
      e.configuration.tsa = { url: 'http://127.0.0.1:9/tsa', hashAlgorithm: 'SHA-512', user: 'stamper', password: TSA_PASSWORD };
    });
    expect(code(result), JSON.stringify(result)).toBe(0);
    const view = await read();
    expect((view.configuration as Json).tsa).toEqual({ url: 'http://127.0.0.1:9/tsa', hashAlgorithm: 'SHA-512', user: 'stamper', password: '[redacted]' });
    expect(JSON.stringify(view)).not.toContain(TSA_PASSWORD);
    expect(signatureYaml().tsa).toMatchObject({ url: 'http://127.0.0.1:9/tsa', hashAlgorithm: 'SHA-512', user: 'stamper', password: TSA_PASSWORD });
    // In effect: nothing answers at port 9, so the signature (now B-T) fails with -182.
    const failed = await sign('company seal');
    expect(failed.status).toBe(502);
    expect((JSON.parse(failed.body) as { errorCode: number }).errorCode).toBe(-182);

    expect(code(await write((e) => ((e.configuration.tsa as Json).hashAlgorithm = 'SHA-1')))).toBe(-130);
    expect(code(await write((e) => ((e.configuration.tsa as Json).url = '')))).toBe(0);
    expect((await sign('company seal')).status).toBe(303);
  });
});
