import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { bearer, json, login } from '../../helpers/client.js';
import { opensslSelfSigned } from '../../helpers/certificates.js';
import { useTestServer } from '../../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';

/**
 * Issue 13, item 5: what the official clients write to the configuration administration comes back
 * on read (they ignore error.code and compare what they read): host.name, cluster mode, the portal
 * member, keystore.type and the trust store with its content.
 */

type Json = Record<string, unknown>;
const TRUST_PASSWORD = 'trust-pw-4711';
const code = (result: Json) => (result.error as Json).code;
const at = (object: Json, dotted: string): Json => dotted.split('.').reduce<Json>((node, key) => node[key] as Json, object);

/** A CA certificate (openssl) in a JKS and a PKCS#12 trust store (keytool), as an administrator makes them. */
function makeTrustStores(dir: string): { jks: Buffer; p12: Buffer; der: Buffer } {
  opensslSelfSigned(path.join(dir, 'ca.pem'), path.join(dir, 'ca.key'), '/CN=Quire Trust Test CA');
  for (const [file, type] of [
    ['trust.jks', 'JKS'],
    ['trust.p12', 'PKCS12'],
  ] as const) {
    execFileSync(
      'keytool',
      ['-importcert', '-noprompt', '-alias', 'quire-ca', '-file', path.join(dir, 'ca.pem'), '-keystore', path.join(dir, file), '-storetype', type, '-storepass', TRUST_PASSWORD],
      { stdio: 'ignore' },
    );
  }
  const der = execFileSync('openssl', ['x509', '-in', path.join(dir, 'ca.pem'), '-outform', 'DER']);
  return { jks: readFileSync(path.join(dir, 'trust.jks')), p12: readFileSync(path.join(dir, 'trust.p12')), der };
}

describe('admin configuration round trips', () => {
  // trace: request payloads are logged, so the log shows whether the trust store password leaks.
  const { server } = useTestServer({ session: false, env: { QUIRE_LOG__LEVEL: 'trace' } });
  let headers: Record<string, string>;
  let work: string;
  let stores: ReturnType<typeof makeTrustStores>;

  const read = async (type: string): Promise<Json> => json(await fetch(`${server.rest}/admin/configuration/${type}`, { headers }));
  const submit = async (envelope: Json): Promise<Json> => {
    const response = await fetch(`${server.rest}/admin/configuration/`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(envelope) });
    expect(response.status).toBe(200);
    return json(response);
  };
  /** The envelope as read, changed, posted in write mode (what the clients' update*Configuration do). */
  const write = async (type: string, change: (envelope: Json) => void): Promise<Json> => {
    const envelope = { ...(await read(type)), configurationMode: 'write' };
    change(envelope);
    return submit(envelope);
  };
  const fileYaml = () => YAML.parse(readFileSync(path.join(server.dataDir, 'quire.yaml'), 'utf8')) as Json;
  const trustFile = () => path.join(server.dataDir, 'keys', 'truststore');

  beforeAll(async () => {
    headers = { ...bearer((await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token), accept: 'application/json' };
    work = mkdtempSync(path.join(os.tmpdir(), 'quire-truststore-'));
    stores = makeTrustStores(work);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('stores host.name and reads it back; a URL is not a host name', async () => {
    expect(at((await read('server')).configuration as Json, 'host').name).toBe('localhost');
    const result = await write('server', (e) => (at(e.configuration as Json, 'host').name = 'custom'));
    expect(code(result), JSON.stringify(result)).toBe(0);
    expect(at((await read('server')).configuration as Json, 'host').name).toBe('custom');
    expect(at(fileYaml(), 'server').hostName).toBe('custom');

    const bad = await write('server', (e) => (at(e.configuration as Json, 'host').name = 'https://pdf.example.com/x'));
    expect(code(bad)).toBe(-130);
    expect(bad.problems).toEqual([expect.objectContaining({ field: 'configuration.host.name', key: 'server.hostName' })]);
    expect(code(await write('server', (e) => (at(e.configuration as Json, 'host').name = 'localhost')))).toBe(0);
  });

  it('stores cluster mode "cluster" and shows it, while the cluster status says the node runs alone', async () => {
    const result = await write('cluster', (e) => ((e.configuration as Json).mode = 'cluster'));
    expect(code(result), JSON.stringify(result)).toBe(0);
    expect(((await read('cluster')).configuration as Json).mode).toBe('cluster');
    expect(at(fileYaml(), 'cluster').mode).toBe('cluster');
    const status = await json(await fetch(`${server.rest}/admin/cluster/status`, { headers }));
    expect(status).toMatchObject({ maximumAllowedNodes: 1, settings: { mode: 'single', role: 'coordinator' } });
    expect(status.nodes as Json[]).toHaveLength(1);
    expect(code(await write('cluster', (e) => ((e.configuration as Json).mode = 'single')))).toBe(0);
  });

  it('keeps the whole portal member: userInterface.limits.displayDiskSpace comes back, and so does everything else', async () => {
    const before = at((await read('application')).configuration as Json, 'portal');
    expect(before.userInterface).toEqual({ limits: { displayDiskSpace: false, displayMaxFiles: false }, tooltips: { showDelay: 5 } });
    expect(at(before, 'functions').compress).toBe(true);

    const result = await write('application', (e) => {
      const portal = at(e.configuration as Json, 'portal');
      at(portal, 'userInterface.limits').displayDiskSpace = true;
      at(portal, 'functions').compress = false;
      at(portal, 'newsPanel').entry = [{ url: 'https://news.example.com/feed' }];
    });
    expect(code(result), JSON.stringify(result)).toBe(0);
    const after = at((await read('application')).configuration as Json, 'portal');
    expect(at(after, 'userInterface.limits').displayDiskSpace).toBe(true);
    expect(at(after, 'functions').compress).toBe(false);
    expect(at(after, 'newsPanel').entry).toEqual([{ url: 'https://news.example.com/feed' }]);
    expect(at(fileYaml(), 'portal.userInterface.limits').displayDiskSpace).toBe(true);

    // The client's reset: limits left out of the member get their defaults again.
    expect(code(await write('application', (e) => delete at(e.configuration as Json, 'portal.userInterface').limits))).toBe(0);
    expect(at((await read('application')).configuration as Json, 'portal.userInterface.limits').displayDiskSpace).toBe(false);

    const unknown = await write('application', (e) => (at(e.configuration as Json, 'portal.userInterface').colour = 'red'));
    expect(code(unknown)).toBe(-130);
    expect(JSON.stringify(unknown.problems)).toMatch(/portal\.userInterface\.colour.*unknown key/);
  });

  it('stores keystore.type JKS and reads it back; a Windows store cannot exist here', async () => {
    expect(at((await read('application')).configuration as Json, 'keystore').type).toBe('NONE');
    expect(code(await write('application', (e) => (at(e.configuration as Json, 'keystore').type = 'JKS')))).toBe(0);
    expect(at((await read('application')).configuration as Json, 'keystore').type).toBe('JKS');
    expect(code(await write('application', (e) => (at(e.configuration as Json, 'keystore').type = 'WINDOWS_USER')))).toBe(-130);
    expect(code(await write('application', (e) => (at(e.configuration as Json, 'keystore').type = 'NONE')))).toBe(0);
  });

  it('stores a JKS trust store under its own name in the data dir, shows it with its certificates, and removes it', async () => {
    const initial = await read('server');
    expect((initial.configuration as Json).truststore).toBeUndefined();
    expect(initial.trustStoreKeyStore).toEqual({ keyStoreContent: '', certificates: [] });

    const result = await write('server', (e) => {
      (e.configuration as Json).truststore = { file: '../../myTrustStore.jks', password: TRUST_PASSWORD };
      e.trustStoreKeyStore = { keyStoreContent: stores.jks.toString('base64') };
    });
    expect(code(result), JSON.stringify(result)).toBe(0);
    // The content is the file under the fixed name, private; the client's name is only a label.
    expect(readFileSync(trustFile())).toEqual(stores.jks);
    expect(statSync(trustFile()).mode & 0o777).toBe(0o600);
    expect(existsSync(path.join(server.dataDir, '..', 'myTrustStore.jks'))).toBe(false);
    expect(readdirSync(path.join(server.dataDir, 'keys')).filter((name) => name.includes('truststore'))).toEqual(['truststore']);

    const text = await (await fetch(`${server.rest}/admin/configuration/server`, { headers })).text();
    expect(text).not.toContain(TRUST_PASSWORD);
    const after = JSON.parse(text) as Json;
    expect((after.configuration as Json).truststore).toEqual({ file: '../../myTrustStore.jks', password: '[redacted]' });
    const keyStore = after.trustStoreKeyStore as { keyStoreContent: string; certificates: Json[] };
    expect(Buffer.from(keyStore.keyStoreContent, 'base64')).toEqual(stores.jks);
    expect(keyStore.certificates).toEqual([expect.objectContaining({ aliasName: 'quire-ca', hasPrivateKey: false, keyStoreName: '../../myTrustStore.jks' })]);
    // The certificate shown is the one imported, as openssl reads it.
    const der = Buffer.from(keyStore.certificates[0]!.certificate as string, 'base64');
    expect(der).toEqual(stores.der);
    const subject = spawnSync('openssl', ['x509', '-inform', 'DER', '-noout', '-subject'], { input: der, encoding: 'utf8' });
    expect(subject.stdout).toMatch(/CN\s*=\s*Quire Trust Test CA/);

    // Posted back as read: nothing changes.
    const again = await submit({ ...after, configurationMode: 'write' });
    expect((again.error as Json).description).toMatch(/Nothing changed/);

    // Without the truststore member (the clients' reset), the trust store goes.
    const removed = await write('server', (e) => {
      delete (e.configuration as Json).truststore;
      e.trustStoreKeyStore = { keyStoreContent: '' };
    });
    expect(code(removed), JSON.stringify(removed)).toBe(0);
    expect(existsSync(trustFile())).toBe(false);
    const gone = await read('server');
    expect((gone.configuration as Json).truststore).toBeUndefined();
    expect(gone.trustStoreKeyStore).toEqual({ keyStoreContent: '', certificates: [] });
    expect(fileYaml().truststore).toBeUndefined();
  });

  it('reads a PKCS#12 trust store too', async () => {
    const result = await write('server', (e) => {
      (e.configuration as Json).truststore = { file: 'trust.p12', password: TRUST_PASSWORD };
      e.trustStoreKeyStore = { keyStoreContent: stores.p12.toString('base64') };
    });
    expect(code(result), JSON.stringify(result)).toBe(0);
    const keyStore = (await read('server')).trustStoreKeyStore as { certificates: Json[] };
    expect(Buffer.from(keyStore.certificates[0]!.certificate as string, 'base64')).toEqual(stores.der);
    expect(code(await write('server', (e) => delete (e.configuration as Json).truststore))).toBe(0);
  });

  it('refuses a wrong password, content that is no trust store and a missing content, and writes nothing', async () => {
    const post = (truststore: Json, content?: string) =>
      write('server', (e) => {
        (e.configuration as Json).truststore = truststore;
        if (content !== undefined) e.trustStoreKeyStore = { keyStoreContent: content };
      });
    const wrong = await post({ file: 'trust.jks', password: 'not-the-password' }, stores.jks.toString('base64'));
    expect(code(wrong)).toBe(-130);
    expect(wrong.problems).toEqual([expect.objectContaining({ field: 'configuration.truststore.password', key: 'truststore.password' })]);

    const notAStore = await post({ file: 'trust.jks', password: TRUST_PASSWORD }, Buffer.from('%PDF-1.7 not a key store').toString('base64'));
    expect(code(notAStore)).toBe(-130);
    expect(notAStore.problems).toEqual([expect.objectContaining({ field: 'trustStoreKeyStore.keyStoreContent', message: expect.stringMatching(/not a JKS or PKCS#12/) })]);

    const cut = await post({ file: 'trust.jks', password: TRUST_PASSWORD }, stores.jks.subarray(0, 80).toString('base64'));
    expect(code(cut)).toBe(-130);
    expect(JSON.stringify(cut.problems)).toMatch(/damaged or cut/);

    const none = await post({ file: 'trust.jks', password: TRUST_PASSWORD });
    expect(code(none)).toBe(-130);
    expect(JSON.stringify(none.problems)).toMatch(/needs its content/);
    expect(existsSync(trustFile())).toBe(false);
  });

  it('runs the truststore check on the trust store the envelope would leave (-131 when it does not open)', async () => {
    const validate = async (truststore: Json | undefined, content?: string) => {
      const envelope: Json = { ...(await read('server')), configurationMode: 'validate', configurationChecks: [{ checkType: 'truststore' }] };
      if (truststore) (envelope.configuration as Json).truststore = truststore;
      if (content !== undefined) envelope.trustStoreKeyStore = { keyStoreContent: content };
      return submit(envelope);
    };
    expect(code(await validate({ file: 'trust.jks', password: TRUST_PASSWORD }, stores.jks.toString('base64')))).toBe(0);
    const none = await validate(undefined);
    expect(code(none)).toBe(-131);
    expect(JSON.stringify(none.problems)).toMatch(/no trust store is configured/);
    const wrong = await validate({ file: 'trust.jks', password: 'nope' }, stores.jks.toString('base64'));
    // The posted trust store itself is a problem of the envelope (-130), which comes before the checks.
    expect(code(wrong)).toBe(-130);
    expect(existsSync(trustFile())).toBe(false);
  });

  it('never writes the trust store password to the log or into the support package', async () => {
    const result = await write('server', (e) => {
      (e.configuration as Json).truststore = { file: 'trust.jks', password: TRUST_PASSWORD };
      e.trustStoreKeyStore = { keyStoreContent: stores.jks.toString('base64') };
    });
    expect(code(result)).toBe(0);
    await server.restart(); // the support package shows the running configuration, which has it after a restart
    headers = { ...bearer((await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token), accept: 'application/json' };
    expect(((await read('server')).configuration as Json).truststore).toEqual({ file: 'trust.jks', password: '[redacted]' });

    const response = await fetch(`${server.rest}/admin/server/support?group=config&group=logs`, { headers: { ...headers, accept: 'application/octet-stream' } });
    expect(response.status).toBe(200);
    const zip = path.join(work, 'support.zip');
    writeFileSync(zip, Buffer.from(await response.arrayBuffer()));
    const out = path.join(work, 'support');
    execFileSync('unzip', ['-q', zip, '-d', out]);
    const grep = spawnSync('grep', ['-r', '-l', TRUST_PASSWORD, out], { encoding: 'utf8' });
    expect(grep.stdout).toBe('');
    expect(grep.status).toBe(1); // grep: no match (2 would be an error)
    const configuration = JSON.parse(readFileSync(path.join(out, 'config', 'configuration.json'), 'utf8')) as Json;
    expect(configuration.truststore).toEqual({ file: 'trust.jks', password: '[redacted]' });

    const logs = path.join(server.dataDir, 'logs');
    const logged = readdirSync(logs).map((name) => readFileSync(path.join(logs, name), 'utf8'));
    expect(logged.join('\n')).toContain('configuration written');
    expect(logged.join('\n')).not.toContain(TRUST_PASSWORD);
  });
});
