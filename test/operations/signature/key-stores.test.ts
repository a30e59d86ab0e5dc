import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { SigningKeyStores } from '../../../src/operations/signature/key-stores.js';
import { keytoolKeyPair } from '../../helpers/certificates.js';
import { yamlFile } from '../../config/fixtures.js';

// The store of Quire's own user "alice" (principal), configured with its password.
const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-principal-store-'));
const aliceStore = path.join(dir, 'alice.p12');
keytoolKeyPair(aliceStore, { alias: 'alice key', keyalg: 'RSA', keysize: 2048, dname: 'CN=Alice Liddell, C=DE', storetype: 'PKCS12', password: 'rabbit' });

const config = loadConfig(
  {
    QUIRE_DATA_DIR: dir,
    QUIRE_CONFIG: yamlFile(`signature:\n  userKeyStores:\n    - name: alice-own\n      user: alice\n      type: PKCS12\n      file: ${aliceStore}\n      password: rabbit\n`),
  },
  dir,
);

describe('SigningKeyStores: principal stores', () => {
  const stores = new SigningKeyStores(config);

  it("gives alice's store to Quire's own alice only, not to an external provider's user of the same name", async () => {
    const local = await stores.list({ id: 's1', userName: 'alice', roles: ['user'], providerId: '' });
    expect(local.keyStores.map((s) => [s.keyStoreName, s.keyStoreOrigin])).toEqual([
      ['alice-own', 'principal'],
      ['global', 'global'],
    ]);

    const external = { id: 's2', userName: 'alice', roles: ['user'] as const, providerId: 'idp' };
    expect((await stores.list(external)).keyStores.map((s) => s.keyStoreName)).toEqual(['global']);
    await expect(stores.signingKey(external, 'alice key', '')).rejects.toMatchObject({ definition: { errorCode: -180 } });
    await expect(stores.unlock(external, 'alice-own', { keyStorePassword: 'rabbit' })).rejects.toMatchObject({ definition: { errorCode: -35 } });
  });

  it('opens the principal key for its user', async () => {
    const key = await stores.signingKey({ id: 's3', userName: 'alice', roles: ['user'], providerId: '' }, 'ALICE KEY', '');
    expect(key.key.asymmetricKeyType).toBe('rsa');
    expect(key.chain).toHaveLength(1);
  });
});
