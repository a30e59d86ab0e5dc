import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { problems } from './fixtures.js';

/** Every "one per core" default the loader resolves, as one line per setting. */
function perCore(config: ReturnType<typeof loadConfig>) {
  return {
    cpus: config.server.cpus,
    libreoffice: config.engines.libreoffice.workers,
    chromium: config.engines.chromium.workers,
    tesseract: config.engines.tesseract.workers,
    jobWorkers: config.queue.jobWorkers,
    hashes: config.security.login.maxConcurrentHashes,
  };
}

describe('server.cpus: the cores every per-core default counts', () => {
  it('is the cores the process may run on by default', () => {
    const cores = Math.max(1, availableParallelism());
    expect(perCore(loadConfig({}, '/srv'))).toEqual({ cpus: cores, libreoffice: cores, chromium: cores, tesseract: cores, jobWorkers: cores, hashes: Math.max(1, Math.floor(cores / 2)) });
  });

  it('sizes every per-core default when set (a container limit, or a share of the machine: ./quire.sh cluster)', () => {
    expect(perCore(loadConfig({ QUIRE_SERVER__CPUS: '6' }, '/srv'))).toEqual({ cpus: 6, libreoffice: 6, chromium: 6, tesseract: 6, jobWorkers: 6, hashes: 3 });
    expect(perCore(loadConfig({ QUIRE_SERVER__CPUS: '1' }, '/srv'))).toEqual({ cpus: 1, libreoffice: 1, chromium: 1, tesseract: 1, jobWorkers: 1, hashes: 1 });
  });

  it('leaves a setting given explicitly as it is', () => {
    const config = loadConfig({ QUIRE_SERVER__CPUS: '4', QUIRE_ENGINES__LIBREOFFICE__WORKERS: '2', QUIRE_QUEUE__JOB_WORKERS: '7' }, '/srv');
    expect(perCore(config)).toMatchObject({ cpus: 4, libreoffice: 2, chromium: 4, jobWorkers: 7 });
  });

  it('refuses a negative or fractional count with the key named', () => {
    expect(problems({ QUIRE_SERVER__CPUS: '-1' })).toEqual([expect.stringContaining('server.cpus')]);
    expect(problems({ QUIRE_SERVER__CPUS: '1.5' })).toEqual([expect.stringContaining('server.cpus')]);
  });
});
