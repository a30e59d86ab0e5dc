import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing. New hashes are scrypt in a PHC-style string
 * (`$scrypt$ln=15,r=8,p=1$<salt>$<hash>`, base64 without padding); argon2 hashes made elsewhere
 * (`$argon2id$...`, `$argon2i$...`) are verified too, so administrators may paste either.
 */
const DEFAULT_COST = { ln: 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function scryptOptions(ln: number, r: number, p: number): ScryptOptions {
  const N = 2 ** ln;
  // Node refuses scrypt parameters that need more than maxmem; allow twice the need.
  return { N, r, p, maxmem: 256 * N * r };
}

export function isPasswordHash(value: string): boolean {
  return /^\$scrypt\$/.test(value) || /^\$argon2(id|i|d)\$/.test(value);
}

export async function hashPassword(password: string, cost: { ln: number; r: number; p: number } = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, scryptOptions(cost.ln, cost.r, cost.p));
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Throws when the stored value is no hash this module understands (configuration error). */
export function assertValidHash(hash: string): void {
  if (/^\$argon2(id|i|d)\$/.test(hash)) return;
  parseScrypt(hash);
}

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  if (/^\$argon2(id|i|d)\$/.test(hash)) {
    try {
      // The WebAssembly argon2 is loaded only when an argon2 hash is configured.
      const { argon2Verify } = await import('hash-wasm');
      return await argon2Verify({ password, hash });
    } catch {
      return false;
    }
  }
  const parsed = parseScrypt(hash);
  const key = await scrypt(password, parsed.salt, parsed.key.length, scryptOptions(parsed.ln, parsed.r, parsed.p));
  return timingSafeEqual(key, parsed.key);
}

function parseScrypt(hash: string): { ln: number; r: number; p: number; salt: Buffer; key: Buffer } {
  const match = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(hash);
  if (!match) throw new Error('not a recognised password hash ($scrypt$ln=..,r=..,p=..$salt$hash or $argon2id$...)');
  const [ln, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (ln < 1 || ln > 24 || r < 1 || r > 32 || p < 1 || p > 16) throw new Error('scrypt parameters out of range');
  return { ln, r, p, salt: Buffer.from(match[4]!, 'base64url'), key: Buffer.from(match[5]!, 'base64url') };
}
