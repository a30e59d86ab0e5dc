import { randomBytes, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/load.js';
import { QuireError } from '../../core/errors.js';
import { KeyStoreError } from '../../engines/keystore/errors.js';
import { readKeyStoreFile } from '../../engines/keystore/read.js';
import { GENERATED_SIGNING_ALIAS, generateSigningKeyStore, readSigningKeyStore, type SigningEntry } from '../../engines/keystore/signing-keys.js';
import { keyStorePath } from '../../engines/keystore/spec.js';
import { writeFileAtomic } from '../../storage/atomic.js';

/**
 * The signing key stores a session may use, and what each session unlocked.
 *
 * One server store (origin `global`): the configured one (signature.keyStore), or, when none is, a
 * store generated at the first start in `<dataDir>/keys/signature.p12` holding a self-signed
 * RSA-2048/SHA-256 key under the alias "Generic self-signed certificate", sealed with a generated
 * password kept next to it (`signature.password`, 0600; never logged, never in the configuration, and
 * `keys/` is not part of support packages). A configured store without a password is locked: a
 * session unlocks it (and its keys' aliases) with `PUT authentication/user/certificates/passwords/
 * {name}` for itself only, in memory, like remembered document passwords.
 */

export type KeyStoreOrigin = 'global' | 'local' | 'principal' | 'call';

/** `Certificate_Entry` and `KeyStore_Entry` (reference §9.1). */
export interface CertificateEntry {
  aliasName: string;
  certificate: string;
  hasPrivateKey: boolean;
  isPrivateKeyReadable: boolean;
  keyStoreName: string;
  keyStoreOrigin: KeyStoreOrigin;
}
export interface KeyStoreEntry {
  isKeyStoreAccessible: boolean;
  keyStoreName: string;
  keyStoreOrigin: KeyStoreOrigin;
}
export interface UserCertificates {
  certificates: CertificateEntry[];
  keyStores: KeyStoreEntry[];
}

/** What `PUT …/passwords/{name}` sends (`KeyStore_Password`). */
export interface KeyStorePasswords {
  keyStorePassword?: string;
  aliases?: Record<string, string>;
}

/** The key a signature uses: its chain (signer first) and the opened private key. */
export interface SigningKey {
  chain: Buffer[];
  key: KeyObject;
}

interface ServerStore {
  name: string;
  content: Buffer;
  keyContent: Buffer | undefined;
  type: 'JKS' | 'PKCS12' | 'PEM';
  /** The password of the configuration or the generated one; undefined: locked until a session unlocks it. */
  password: string | undefined;
  /** The alias a call without keyName uses ('' = the first key entry). */
  defaultAlias: string;
  /** Passwords of single keys (signature.keyStore.entries), by alias in lower case. */
  keyPasswords: Map<string, string>;
  /** Whether an alias is offered to sessions (signature.keyStore.filter). */
  offers(alias: string): boolean;
}

interface Unlocked {
  password: string;
  entries: SigningEntry[];
  aliases: Record<string, string>;
}

/** The generated store's files, in the data dir's key folder (not under keystore/, which lists the HTTPS stores). */
export function generatedStoreFiles(dataDir: string): { store: string; password: string } {
  return { store: path.join(dataDir, 'keys', 'signature.p12'), password: path.join(dataDir, 'keys', 'signature.password') };
}

/** Sessions that unlocked something are remembered up to this many (oldest dropped; session end forgets too). */
const MAX_UNLOCKED_SESSIONS = 10_000;

export class SigningKeyStores {
  private store: Promise<ServerStore> | undefined;
  /** The settings the store was read with: the administration replaces them (signature.keyStore is live). */
  private loadedFrom: Config['signature']['keyStore'] | undefined;
  private readonly unlocked = new Map<string, Map<string, Unlocked>>();
  /** The server store opened with its configured or generated password (read once). */
  private serverEntries: SigningEntry[] | undefined;

  constructor(private readonly config: Pick<Config, 'dataDir' | 'signature'>) {}

  /**
   * The server store, read (or generated) by the first call that needs it, not at start: generating
   * loads node-forge (~10 MB that would stay for the life of an otherwise idle server) and takes an
   * RSA key generation. A broken configuration shows at that first call.
   */
  private serverStore(): Promise<ServerStore> {
    if (this.loadedFrom !== this.config.signature.keyStore) {
      // New settings (a configuration write): read the store again; what sessions unlocked was of the old one.
      this.loadedFrom = this.config.signature.keyStore;
      this.store = undefined;
      this.serverEntries = undefined;
      this.unlocked.clear();
    }
    this.store ??= this.load();
    return this.store;
  }

  /** Resolves once the server store is read (or generated); rejects with why it cannot be. */
  async ready(): Promise<void> {
    await this.serverStore();
  }

  private async load(): Promise<ServerStore> {
    const { keyStore, defaultKeyName } = this.config.signature;
    const settings = { keyPasswords: new Map(keyStore.entries.map((e) => [e.alias.toLowerCase(), e.password])), offers: aliasFilter(keyStore.filter) };
    if (keyStore.type === 'NONE') {
      const files = generatedStoreFiles(this.config.dataDir);
      let password: string;
      let content: Buffer;
      try {
        [password, content] = [(await readFile(files.password, 'utf8')).trim(), await readFile(files.store)];
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        password = randomBytes(24).toString('base64url');
        content = await generateSigningKeyStore(GENERATED_SIGNING_ALIAS, password, 'Quire signature (self-signed)');
        // The password first: a store without its password would be useless.
        await writeFileAtomic(files.password, password, 0o600, { durable: true, dirMode: 0o700 });
        await writeFileAtomic(files.store, content, 0o600, { durable: true, dirMode: 0o700 });
      }
      return { name: keyStore.name, content, keyContent: undefined, type: 'PKCS12', password, defaultAlias: defaultKeyName || GENERATED_SIGNING_ALIAS, ...settings };
    }
    const content = await readKeyStoreFile(keyStorePath(this.config.dataDir, keyStore.file));
    const keyContent = keyStore.type === 'PEM' && keyStore.keyFile ? await readKeyStoreFile(keyStorePath(this.config.dataDir, keyStore.keyFile)) : undefined;
    return { name: keyStore.name, content, keyContent, type: keyStore.type, password: keyStore.password || undefined, defaultAlias: defaultKeyName, ...settings };
  }

  private async server(): Promise<ServerStore> {
    try {
      return await this.serverStore();
    } catch (error) {
      throw new QuireError('SIGNATURE_KEY', `The signing key store cannot be read (signature.keyStore): ${error instanceof KeyStoreError ? error.message : 'see the server log'}.`, { cause: error });
    }
  }

  /** The entries of the server store as this session can open them; undefined: locked for it. */
  private async entriesFor(sessionId: string): Promise<{ store: ServerStore; entries: SigningEntry[] | undefined; aliases: Record<string, string> }> {
    const store = await this.server();
    const own = this.unlocked.get(sessionId)?.get(store.name);
    if (own) return { store, entries: own.entries.filter((e) => store.offers(e.alias)), aliases: own.aliases };
    if (store.password === undefined) return { store, entries: undefined, aliases: {} };
    this.serverEntries ??= readSigningKeyStore(store.content, store.type, store.password, store.name, store.keyContent);
    return { store, entries: this.serverEntries.filter((e) => store.offers(e.alias)), aliases: {} };
  }

  /** `GET authentication/user/certificates`. */
  async list(sessionId: string): Promise<UserCertificates> {
    const { store, entries, aliases } = await this.entriesFor(sessionId);
    const keyStores: KeyStoreEntry[] = [{ isKeyStoreAccessible: entries !== undefined, keyStoreName: store.name, keyStoreOrigin: 'global' }];
    const certificates = (entries ?? []).map(
      (entry): CertificateEntry => ({
        aliasName: entry.alias,
        certificate: entry.chain[0]!.toString('base64'),
        hasPrivateKey: entry.hasPrivateKey,
        isPrivateKeyReadable: entry.hasPrivateKey && opens(entry, aliases[entry.alias] ?? store.keyPasswords.get(entry.alias.toLowerCase())),
        keyStoreName: store.name,
        keyStoreOrigin: 'global',
      }),
    );
    return { certificates, keyStores };
  }

  /** `PUT authentication/user/certificates/passwords/{keyStoreName}`: for this session only. */
  async unlock(sessionId: string, keyStoreName: string, passwords: KeyStorePasswords): Promise<UserCertificates> {
    const store = await this.server();
    if (keyStoreName !== store.name) throw new QuireError('KEYSTORE_NOT_FOUND', `No key store named "${keyStoreName}" is available to this session.`);
    const password = passwords.keyStorePassword ?? store.password ?? '';
    let entries: SigningEntry[];
    try {
      entries = readSigningKeyStore(store.content, store.type, password, store.name, store.keyContent);
    } catch (error) {
      if (error instanceof KeyStoreError && error.kind === 'password') throw new QuireError('KEYSTORE_PASSWORD', `The password does not open the key store "${keyStoreName}".`);
      throw error;
    }
    const aliases = { ...(passwords.aliases ?? {}) };
    for (const [alias, aliasPassword] of Object.entries(aliases)) {
      const entry = entries.find((e) => e.alias.toLowerCase() === alias.toLowerCase());
      if (!entry) throw new QuireError('SIGNATURE_KEY', `The key store "${keyStoreName}" has no entry "${alias}".`);
      if (entry.hasPrivateKey && !opens(entry, aliasPassword)) throw new QuireError('KEYSTORE_PASSWORD', `The password does not open the key "${alias}" of "${keyStoreName}".`);
    }
    let own = this.unlocked.get(sessionId);
    if (!own) {
      if (this.unlocked.size >= MAX_UNLOCKED_SESSIONS) this.unlocked.delete(this.unlocked.keys().next().value!);
      own = new Map();
      this.unlocked.set(sessionId, own);
    }
    own.set(store.name, { password, entries, aliases });
    return this.list(sessionId);
  }

  forgetSession(sessionId: string): void {
    this.unlocked.delete(sessionId);
  }

  /** The key `keyName` (default: the configured or generated default) opened with `keyPassword`, the session's alias password or the store's. */
  async signingKey(sessionId: string, keyName: string, keyPassword: string): Promise<SigningKey> {
    const { store, entries, aliases } = await this.entriesFor(sessionId);
    if (!entries) throw new QuireError('KEYSTORE_PASSWORD', `The key store "${store.name}" is locked: unlock it with PUT authentication/user/certificates/passwords/${store.name}.`);
    const wanted = keyName || store.defaultAlias;
    const entry = wanted ? entries.find((e) => e.alias.toLowerCase() === wanted.toLowerCase()) : entries.find((e) => e.hasPrivateKey);
    if (!entry) throw new QuireError('SIGNATURE_KEY', wanted ? `No signing key named "${wanted}" is available to this session.` : 'The signing key store holds no private key.');
    if (!entry.hasPrivateKey) throw new QuireError('SIGNATURE_KEY', `"${entry.alias}" holds a certificate without its private key: it cannot sign.`);
    const password = keyPassword || aliases[entry.alias] || store.keyPasswords.get(entry.alias.toLowerCase()) || undefined;
    try {
      return { chain: entry.chain, key: entry.openKey(password) };
    } catch (error) {
      if (error instanceof KeyStoreError && error.kind === 'password') throw new QuireError('KEYSTORE_PASSWORD', `The password does not open the key "${entry.alias}".`);
      throw new QuireError('SIGNATURE_KEY', `The key "${entry.alias}" cannot be opened.`, { cause: error });
    }
  }
}

/** signature.keyStore.filter as a test of an alias: a whole, case-insensitive match of one pattern; no pattern = every alias. */
function aliasFilter(patterns: readonly string[]): (alias: string) => boolean {
  const compiled = patterns.flatMap((pattern) => {
    try {
      return [new RegExp(`^(?:${pattern})$`, 'i')];
    } catch {
      return []; // the administration refuses invalid patterns; one written by hand into the file matches nothing
    }
  });
  return (alias) => patterns.length === 0 || compiled.some((re) => re.test(alias));
}

function opens(entry: SigningEntry, password: string | undefined): boolean {
  try {
    entry.openKey(password);
    return true;
  } catch {
    return false;
  }
}
