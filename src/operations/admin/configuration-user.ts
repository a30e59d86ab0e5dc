import { assertValidHash, hashPassword, isPasswordHash } from '../../auth/passwords.js';
import type { UserEntry } from '../../config/load.js';
import type { Role } from '../../config/schema.js';
import type { ConfigurationSection, FieldEdit } from './configuration-fields.js';
import type { ConfigurationProblem } from './configuration-wire.js';

/** `UserConfig_User`: roles as a comma-separated list; `uniqueId` is the name the user had when it was read. */
interface UserWire {
  username?: string;
  password?: string;
  roles?: string;
  uniqueId?: string;
}

const ROLES: readonly Role[] = ['user', 'admin'];
const SUBFIELD: Record<string, string> = { name: 'username', password: 'password', roles: 'roles' };

function parseRoles(wire: string, field: string, problems: ConfigurationProblem[]): Role[] {
  const names = wire.split(/[\s,;]+/).filter(Boolean);
  const roles = names.filter((name): name is Role => (ROLES as readonly string[]).includes(name));
  for (const name of names.filter((n) => !roles.includes(n as Role))) {
    problems.push({ field, key: 'users', message: `unknown role "${name}"; the roles are user and admin` });
  }
  return roles.length > 0 ? [...new Set(roles)] : ['user'];
}

/**
 * `UserConfig_Users`: the built-in user database (with no users configured, the generated admin).
 * Passwords are never shown: every `password` reads as "". Posting the list back with "" keeps a
 * user's password; any other value sets it (a plaintext password is hashed with scrypt before it is
 * written; an $scrypt$/$argon2 hash is taken as it is). The file always receives hashes.
 */
export const userSection: ConfigurationSection = {
  read({ users }) {
    const user = users.map((u) => ({ username: u.name, password: '', roles: u.roles.join(','), uniqueId: u.name }));
    return { configuration: { user } };
  },

  async changes(posted, { users }, mode) {
    const list = posted.user;
    if (!Array.isArray(list)) return { edits: [], problems: [] };
    const current = new Map(users.map((u) => [u.name, u]));
    const problems: ConfigurationProblem[] = [];
    const entries: UserEntry[] = [];
    const kept = new Set<string>();
    const affected = new Set<string>();
    for (const [index, item] of (list as UserWire[]).entries()) {
      const field = `configuration.user.${index}`;
      const name = item.username ?? '';
      const existing = current.get(item.uniqueId ?? '') ?? current.get(name);
      const roles = parseRoles(item.roles ?? '', `${field}.roles`, problems);
      const password = item.password ?? '';
      let stored: string;
      if (password === '') {
        if (!existing) problems.push({ field: `${field}.password`, key: 'users', message: 'a new user needs a password' });
        stored = existing?.passwordHash ?? '';
      } else if (isPasswordHash(password)) {
        try {
          assertValidHash(password);
        } catch (error) {
          problems.push({ field: `${field}.password`, key: 'users', message: (error as Error).message });
        }
        stored = password;
      } else {
        // Validation needs no hash; the costly scrypt runs only for a write.
        stored = mode === 'write' ? await hashPassword(password) : password;
      }
      if (existing) {
        kept.add(existing.name);
        const sameRoles = existing.roles.length === roles.length && roles.every((r) => existing.roles.includes(r));
        if (existing.name !== name || !sameRoles || password !== '') affected.add(existing.name);
      }
      entries.push({ name, password: stored, roles });
    }
    for (const name of current.keys()) if (!kept.has(name)) affected.add(name);
    if (entries.length > 0 && !entries.some((e) => e.roles.includes('admin'))) {
      problems.push({ field: 'configuration.user', key: 'users', message: 'at least one user needs the role admin, or no administrator could log in' });
    }
    const changed = affected.size > 0 || entries.length !== current.size;
    const edits: FieldEdit[] = changed ? [{ field: 'configuration.user', key: ['users'], value: entries }] : [];
    return {
      edits,
      problems,
      endSessionsOf: [...affected],
      fieldOf(key) {
        const match = /^users\[(\d+)\](?:\.(\w+))?/.exec(key);
        if (!match) return undefined;
        return `configuration.user.${match[1]}${match[2] && SUBFIELD[match[2]] ? `.${SUBFIELD[match[2]]}` : ''}`;
      },
    };
  },
};
