import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { problems } from './fixtures.js';

describe('security and documents.minFreeSpace settings', () => {
  it('has defaults that throttle failures only, bound hashing to half the cores, cap anonymous sessions and keep 1 GB free', () => {
    const config = loadConfig({}, '/srv');
    expect(config.security).toEqual({
      login: {
        maxFailures: 10,
        windowMs: 300_000,
        lockoutMs: 60_000,
        maxLockoutMs: 3_600_000,
        userMaxFailures: 20,
        userMaxLockoutMs: 300_000,
        maxConcurrentHashes: Math.max(1, Math.floor(availableParallelism() / 2)),
        maxWaitingHashes: 32,
      },
      anonymousSessionsPerAddress: 20,
    });
    expect(config.documents.minFreeSpace).toEqual({ bytes: 1024 ** 3, percent: 0 });
  });

  it('reads the keys from the environment', () => {
    const config = loadConfig(
      {
        QUIRE_SECURITY__LOGIN__MAX_FAILURES: '5',
        QUIRE_SECURITY__LOGIN__LOCKOUT: '0.5',
        QUIRE_SECURITY__LOGIN__MAX_CONCURRENT_HASHES: '3',
        QUIRE_SECURITY__ANONYMOUS_SESSIONS_PER_ADDRESS: '0',
        QUIRE_DOCUMENTS__MIN_FREE_SPACE: '5%',
      },
      '/srv',
    );
    expect(config.security.login).toMatchObject({ maxFailures: 5, lockoutMs: 500, maxConcurrentHashes: 3 });
    expect(config.security.anonymousSessionsPerAddress).toBe(0);
    expect(config.documents.minFreeSpace).toEqual({ bytes: 0, percent: 5 });
  });

  it('takes sizes in megabytes or with a unit, and 0 for no floor', () => {
    expect(loadConfig({ QUIRE_DOCUMENTS__MIN_FREE_SPACE: '512' }, '/srv').documents.minFreeSpace).toEqual({ bytes: 512 * 1024 ** 2, percent: 0 });
    expect(loadConfig({ QUIRE_DOCUMENTS__MIN_FREE_SPACE: '2GB' }, '/srv').documents.minFreeSpace).toEqual({ bytes: 2 * 1024 ** 3, percent: 0 });
    expect(loadConfig({ QUIRE_DOCUMENTS__MIN_FREE_SPACE: '0' }, '/srv').documents.minFreeSpace).toEqual({ bytes: 0, percent: 0 });
  });

  it('refuses bad values with the key', () => {
    expect(problems({ QUIRE_DOCUMENTS__MIN_FREE_SPACE: '150%' })).toEqual(['documents.minFreeSpace (from QUIRE_DOCUMENTS__MIN_FREE_SPACE): a percentage of the disk cannot exceed 100%']);
    expect(problems({ QUIRE_DOCUMENTS__MIN_FREE_SPACE: 'lots' })[0]).toMatch(/^documents\.minFreeSpace .*invalid value/);
    expect(problems({ QUIRE_SECURITY__LOGIN__MAX_FAILURES: '-1' })[0]).toMatch(/^security\.login\.maxFailures/);
    // A variable that names no key is ignored with a warning at start (issue 13, item 10), not refused.
    expect(loadConfig({ QUIRE_SECURITY__LOGIN__COOLDOWN: '1' }, '/srv').ignoredEnvironment).toEqual(['QUIRE_SECURITY__LOGIN__COOLDOWN']);
  });
});
