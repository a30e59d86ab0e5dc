import { randomBytes, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/load.js';
import type { Role } from '../../config/schema.js';
import { QuireError } from '../../core/errors.js';
import { KeyStoreError } from '../../engines/keystore/errors.js';
import { readKeyStoreFile } from '../../engines/keystore/read.js';
import { GENERATED_SIGNING_ALIAS, generateSigningKeyStore, readSigningKeyStore, type SigningEntry } from '../../engines/keystore/signing-keys.js';
import { keyStorePath } from '../../engines/keystore/spec.js';
import { writeFileAtomic } from '../../storage/atomic.js';

/**
 * The signing key stores a session may use, and what each session unlocked.
 *
 * The server store (origin `global`, every session): the configured one (signature.keyStore), or, when none is, a
 * store generated at the first start in `<dataDir>/keys/signature.p12` holding a self-signed
 * RSA-2048/SHA-256 key under the alias "Generic self-signed certificate", sealed with a generated
 * password kept next to it (`signature.password`, 0600; never logged, never in the configuration, and
 * `keys/` is not part of support packages). A configured store without a password is locked: a
 * session unlocks it (and its keys' aliases) with `PUT authentication/user/certificates/passwords/
 * {name}` for itself only, in memory, like remembered document passwords.
 *
 * Besides it, signature.userKeyStores: a store of one user (origin `principal`: in webPDF the key
 * material the user source holds for the principal, here the server's configuration) or of roles
 * (origin `local`: a server-held store the configuration grants). A session sees and signs with the
 * stores of its own user name and roles only; another user's store does not exist for it.
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

/** Who asks: the session's id (what it unlocked), user name ('' = anonymous), roles and provider ('' = Quire's own users). */
export interface KeyStoreUser {
  id: string;
  userName: string;
  roles: readonly Role[];
  providerId: string;
}

/** One configured store: signature.keyStore or an entry of signature.userKeyStores. */
type StoreSettings = Config['signature']['keyStore'] & {
  origin: KeyStoreOrigin;
  /** principal: the one user; local: the roles. */
  user: string;
  roles: readonly Role[];
  /** The configuration key named when the store cannot be read. */
  key: string;
};

interface ServerStore {
  name: string;
  origin: KeyStoreOrigin;
  content: Buffer;
  keyContent: Buffer | undefined;
  type: 'JKS' | 'PKCS12' | 'PEM';
  /** The password of the configuration or the generated one; undefined: locked until a session unlocks it. */
  password: string | undefined;
  /** The alias a call without keyName uses ('' = the first key entry). */
  defaultAlias: string;
  /** Passwords of single keys (entries), by alias in lower case. */
  keyPasswords: Map<string, string>;
  /** Whether an alias is offered to sessions (filter). */
  offers(alias: string): boolean;
}

interface OpenedStore {
  store: Promise<ServerStore>;
  /** The store opened with its configured or generated password (read once). */
  entries?: SigningEntry[];
}

interface Unlocked {
  password: string;
  entries: SigningEntry[];
  aliases: Record<string, string>;
}

/** The entries of one store as a session can open them; entries undefined: locked for it. */
interface SessionView {
  store: ServerStore;
  entries: SigningEntry[] | undefined;
  aliases: Record<string, string>;
}

/** The generated store's files, in the data dir's key folder (not under keystore/, which lists the HTTPS stores). */
export function generatedStoreFiles(dataDir: string): { store: string; password: string } {
  return { store: path.join(dataDir, 'keys', 'signature.p12'), password: path.join(dataDir, 'keys', 'signature.password') };
}

/** Sessions that unlocked something are remembered up to this many (oldest dropped; session end forgets too). */
const MAX_UNLOCKED_SESSIONS = 10_000;

export class SigningKeyStores {
  /** The stores read so far, by name. */
  private opened = new Map<string, OpenedStore>();
  /** The settings the stores were read with: the administration replaces them (signature.keyStore is live). */
  private loadedFrom: [Config['signature']['keyStore'], Config['signature']['userKeyStores']] | undefined;
  private readonly unlocked = new Map<string, Map<string, Unlocked>>();

  constructor(private readonly config: Pick<Config, 'dataDir' | 'signature'>) {}

  /** Every configured store, the global one last; a name given twice is a configuration error. */
  private configured(): StoreSettings[] {
    const { keyStore, userKeyStores } = this.config.signature;
    if (this.loadedFrom?.[0] !== keyStore || this.loadedFrom[1] !== userKeyStores) {
      // New settings (a configuration write): read the stores again; what sessions unlocked was of the old ones.
      this.loadedFrom = [keyStore, userKeyStores];
      this.opened.clear();
      this.unlocked.clear();
    }
    const settings: StoreSettings[] = [
      ...userKeyStores.map((s, i): StoreSettings => ({ ...s, origin: s.user ? 'principal' : 'local', key: `signature.userKeyStores[${i}]` })),
      { ...keyStore, origin: 'global', user: '', roles: [], key: 'signature.keyStore' },
    ];
    const names = new Set<string>();
    for (const s of settings) {
      if (names.has(s.name)) throw new QuireError('SIGNATURE_KEY', `Two signing key stores are named "${s.name}" (${s.key}): the configuration must name each once.`);
      names.add(s.name);
    }
    return settings;
  }

  /**
   * The stores this user may use: its own (principal), its roles' (local), then the global one. A
   * principal store is a user of Quire's own (`users`): an external provider's token names its user
   * as the provider likes, and "alice" there is not alice here.
   */
  private availableTo(user: KeyStoreUser): StoreSettings[] {
    const own = (s: StoreSettings) => user.providerId === '' && user.userName !== '' && s.user === user.userName;
    return this.configured().filter((s) => (s.origin === 'global' ? true : s.origin === 'principal' ? own(s) : s.roles.some((role) => user.roles.includes(role))));
  }

  /**
   * A store, read (or generated) by the first call that needs it, not at start: generating loads
   * node-forge (~10 MB that would stay for the life of an otherwise idle server) and takes an RSA key
   * generation. A broken configuration shows at that first call.
   */
  private async open(settings: StoreSettings): Promise<{ store: ServerStore; opened: OpenedStore }> {
    let opened = this.opened.get(settings.name);
    if (!opened) {
      opened = { store: this.load(settings) };
      this.opened.set(settings.name, opened);
    }
    try {
      return { store: await opened.store, opened };
    } catch (error) {
      throw new QuireError('SIGNATURE_KEY', `The signing key store cannot be read (${settings.key}): ${error instanceof KeyStoreError ? error.message : 'see the server log'}.`, { cause: error });
    }
  }

  /** Resolves once the global store is read (or generated); rejects with why it cannot be. */
  async ready(): Promise<void> {
    await this.open(this.configured().at(-1)!);
  }

  private async load(settings: StoreSettings): Promise<ServerStore> {
    const common = {
      name: settings.name,
      origin: settings.origin,
      keyPasswords: new Map(settings.entries.map((e) => [e.alias.toLowerCase(), e.password])),
      offers: aliasFilter(settings.filter),
    };
    // Only the global store has a default key: a call without keyName signs with it.
    const defaultAlias = settings.origin === 'global' ? this.config.signature.defaultKeyName : '';
    if (settings.type === 'NONE') {
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
      return { ...common, content, keyContent: undefined, type: 'PKCS12', password, defaultAlias: defaultAlias || GENERATED_SIGNING_ALIAS };
    }
    const content = await readKeyStoreFile(keyStorePath(this.config.dataDir, settings.file));
    const keyContent = settings.type === 'PEM' && settings.keyFile ? await readKeyStoreFile(keyStorePath(this.config.dataDir, settings.keyFile)) : undefined;
    return { ...common, content, keyContent, type: settings.type, password: settings.password || undefined, defaultAlias };
  }

  /** The entries of one store as this session can open them. */
  private async viewOf(sessionId: string, settings: StoreSettings): Promise<SessionView> {
    const { store, opened } = await this.open(settings);
    const own = this.unlocked.get(sessionId)?.get(store.name);
    if (own) return { store, entries: own.entries.filter((e) => store.offers(e.alias)), aliases: own.aliases };
    if (store.password === undefined) return { store, entries: undefined, aliases: {} };
    opened.entries ??= readSigningKeyStore(store.content, store.type, store.password, store.name, store.keyContent);
    return { store, entries: opened.entries.filter((e) => store.offers(e.alias)), aliases: {} };
  }

  /** `GET authentication/user/certificates`: the stores of this user and its roles, and the global one. */
  async list(user: KeyStoreUser): Promise<UserCertificates> {
    const result: UserCertificates = { certificates: [], keyStores: [] };
    for (const settings of this.availableTo(user)) {
      const { store, entries, aliases } = await this.viewOf(user.id, settings);
      result.keyStores.push({ isKeyStoreAccessible: entries !== undefined, keyStoreName: store.name, keyStoreOrigin: store.origin });
      for (const entry of entries ?? []) {
        result.certificates.push({
          aliasName: entry.alias,
          certificate: entry.chain[0]!.toString('base64'),
          hasPrivateKey: entry.hasPrivateKey,
          isPrivateKeyReadable: entry.hasPrivateKey && opens(entry, aliases[entry.alias] ?? store.keyPasswords.get(entry.alias.toLowerCase())),
          keyStoreName: store.name,
          keyStoreOrigin: store.origin,
        });
      }
    }
    return result;
  }

  /** `PUT authentication/user/certificates/passwords/{keyStoreName}`: for this session only. */
  async unlock(user: KeyStoreUser, keyStoreName: string, passwords: KeyStorePasswords): Promise<UserCertificates> {
    const settings = this.availableTo(user).find((s) => s.name === keyStoreName);
    if (!settings) throw new QuireError('KEYSTORE_NOT_FOUND', `No key store named "${keyStoreName}" is available to this session.`);
    const { store } = await this.open(settings);
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
    let own = this.unlocked.get(user.id);
    if (!own) {
      if (this.unlocked.size >= MAX_UNLOCKED_SESSIONS) this.unlocked.delete(this.unlocked.keys().next().value!);
      own = new Map();
      this.unlocked.set(user.id, own);
    }
    own.set(store.name, { password, entries, aliases });
    return this.list(user);
  }

  forgetSession(sessionId: string): void {
    this.unlocked.delete(sessionId);
  }

  /**
   * The key `keyName` opened with `keyPassword`, the session's alias password or the store's. A named
   * key is looked up in the user's own stores first, then its roles', then the global one; no name is
   * the global store's default key (the configured or generated one).
   */
  async signingKey(user: KeyStoreUser, keyName: string, keyPassword: string): Promise<SigningKey> {
    const stores = keyName ? this.availableTo(user) : this.configured().filter((s) => s.origin === 'global');
    const locked: string[] = [];
    for (const settings of stores) {
      const { store, entries, aliases } = await this.viewOf(user.id, settings);
      if (!entries) {
        locked.push(store.name);
        continue;
      }
      const wanted = keyName || store.defaultAlias;
      const entry = wanted ? entries.find((e) => e.alias.toLowerCase() === wanted.toLowerCase()) : entries.find((e) => e.hasPrivateKey);
      if (!entry) {
        if (!keyName) throw new QuireError('SIGNATURE_KEY', wanted ? `No signing key named "${wanted}" is available to this session.` : 'The signing key store holds no private key.');
        continue;
      }
      if (!entry.hasPrivateKey) throw new QuireError('SIGNATURE_KEY', `"${entry.alias}" holds a certificate without its private key: it cannot sign.`);
      const password = keyPassword || aliases[entry.alias] || store.keyPasswords.get(entry.alias.toLowerCase()) || undefined;
      try {
        return { chain: entry.chain, key: entry.openKey(password) };
      } catch (error) {
        if (error instanceof KeyStoreError && error.kind === 'password') throw new QuireError('KEYSTORE_PASSWORD', `The password does not open the key "${entry.alias}".`);
        throw new QuireError('SIGNATURE_KEY', `The key "${entry.alias}" cannot be opened.`, { cause: error });
      }
    }
    if (locked.length > 0) {
      throw new QuireError('KEYSTORE_PASSWORD', `The key store "${locked[0]}" is locked: unlock it with PUT authentication/user/certificates/passwords/${locked[0]}.`);
    }
    throw new QuireError('SIGNATURE_KEY', `No signing key named "${keyName}" is available to this session.`);
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
