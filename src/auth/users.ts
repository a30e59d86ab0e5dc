import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config, UserEntry } from '../config/load.js';
import type { Role } from '../config/schema.js';
import { writeFileAtomic } from '../storage/atomic.js';
import { assertValidHash, hashPassword, isPasswordHash, verifyPassword } from './passwords.js';

export interface User {
  name: string;
  roles: Role[];
}

/** Where local logins are checked. The built-in database is the first; a directory server could be another. */
export interface UserSource {
  authenticate(name: string, password: string): Promise<User | undefined>;
}

/** A user as the database keeps it: never sent to a client (the hash is for writing the configuration file). */
export interface StoredUser {
  name: string;
  passwordHash: string;
  roles: Role[];
}

/**
 * The built-in user database: the users of the configuration (plaintext passwords are hashed when
 * loaded and then forgotten). With no users configured, an `admin` is created: its password comes from
 * QUIRE_ADMIN_PASSWORD, or is generated once, announced once, and kept (hashed) in the data dir.
 */
export class BuiltInUserSource implements UserSource {
  private constructor(
    private users: Map<string, StoredUser>,
    private readonly decoyHash: string,
    private readonly config: Config,
    private readonly announce: (message: string) => void,
  ) {}

  static async create(config: Config, announce: (message: string) => void): Promise<BuiltInUserSource> {
    const users = await userMap(config.users, config, announce);
    return new BuiltInUserSource(users, await hashPassword(randomBytes(16).toString('hex')), config, announce);
  }

  /** The users with their password hashes, in configuration order (the generated admin when none are configured). */
  records(): StoredUser[] {
    return [...this.users.values()].map((u) => ({ ...u, roles: [...u.roles] }));
  }

  /**
   * Swaps the whole database at once (the configuration administration's live change): entries are
   * prepared first, so a bad entry leaves the current users in place. No entries: the generated admin.
   */
  async replaceUsers(entries: readonly UserEntry[]): Promise<void> {
    this.users = await userMap(entries, this.config, this.announce);
  }

  async authenticate(name: string, password: string): Promise<User | undefined> {
    const user = this.users.get(name);
    // Unknown names cost the same hash as known ones, so timing does not reveal which names exist.
    const ok = await verifyPassword(password, user?.passwordHash ?? this.decoyHash);
    return ok && user ? { name: user.name, roles: [...user.roles] } : undefined;
  }
}

async function userMap(entries: readonly UserEntry[], config: Config, announce: (message: string) => void): Promise<Map<string, StoredUser>> {
  const users = new Map<string, StoredUser>();
  if (entries.length > 0) {
    for (const [index, entry] of entries.entries()) users.set(entry.name, await storedUser(entry, index));
  } else {
    const admin = await bootstrapAdmin(config, announce);
    users.set(admin.name, admin);
  }
  return users;
}

async function storedUser(entry: UserEntry, index: number): Promise<StoredUser> {
  if (isPasswordHash(entry.password)) {
    try {
      assertValidHash(entry.password);
    } catch (error) {
      throw new Error(`users[${index}].password: ${(error as Error).message}`);
    }
    return { name: entry.name, passwordHash: entry.password, roles: entry.roles };
  }
  return { name: entry.name, passwordHash: await hashPassword(entry.password), roles: entry.roles };
}

async function bootstrapAdmin(config: Config, announce: (message: string) => void): Promise<StoredUser> {
  if (config.adminPassword) {
    return { name: 'admin', passwordHash: await hashPassword(config.adminPassword), roles: ['admin'] };
  }
  const file = path.join(config.dataDir, 'users.json');
  try {
    const stored = JSON.parse(await readFile(file, 'utf8')) as StoredUser;
    assertValidHash(stored.passwordHash);
    return { name: stored.name, passwordHash: stored.passwordHash, roles: stored.roles };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`${file}: ${(error as Error).message}`);
  }
  const password = randomBytes(12).toString('base64url');
  const admin: StoredUser = { name: 'admin', passwordHash: await hashPassword(password), roles: ['admin'] };
  await writeFileAtomic(file, JSON.stringify(admin, null, 2), 0o600);
  announce(`No users are configured: created user "admin" with password "${password}". ` + 'It is shown only this once; configure users or set QUIRE_ADMIN_PASSWORD to choose it.');
  return admin;
}
