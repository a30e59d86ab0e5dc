import { randomBytes } from 'node:crypto';
import { argon2id } from 'hash-wasm';
import { describe, expect, it } from 'vitest';
import { assertValidHash, hashPassword, isPasswordHash, verifyPassword } from '../../src/auth/passwords.js';

describe('passwords', () => {
  it('hashes with scrypt in PHC form, salted, and verifies', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(isPasswordHash(a)).toBe(true);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horse!', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('verifies argon2id hashes made elsewhere', async () => {
    const hash = await argon2id({ password: 'pa55', salt: randomBytes(16), parallelism: 1, iterations: 2, memorySize: 1024, hashLength: 32, outputType: 'encoded' });
    expect(isPasswordHash(hash)).toBe(true);
    assertValidHash(hash);
    expect(await verifyPassword('pa55', hash)).toBe(true);
    expect(await verifyPassword('pa56', hash)).toBe(false);
  });

  it('recognises plaintext and refuses malformed hashes', () => {
    expect(isPasswordHash('hunter2')).toBe(false);
    expect(() => assertValidHash('$scrypt$ln=99,r=8,p=1$AAAA$BBBB')).toThrow(/out of range/);
    expect(() => assertValidHash('$scrypt$garbage')).toThrow(/not a recognised password hash/);
  });
});
