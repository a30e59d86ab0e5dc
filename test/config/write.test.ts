import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { checkConfigText, editConfigText, restoreConfigFile, writeConfigFile } from '../../src/config/write.js';

const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'quire-config-write-'));

describe('editConfigText', () => {
  it('changes only the named keys and keeps comments and order', () => {
    const text = '# top comment\nserver:\n  port: 9000 # the port\nsession:\n  lifetime: 60\n';
    const edited = editConfigText(text, [
      { key: ['session', 'lifetime'], value: 120 },
      { key: ['limits', 'user', 'maxFiles'], value: 7 },
      { key: ['users'], value: [{ name: 'a', password: '$scrypt$x', roles: ['admin'] }] },
    ]);
    expect(edited).toContain('# top comment');
    expect(edited).toContain('port: 9000 # the port');
    expect(edited).toMatch(/session:\n {2}lifetime: 120\n/);
    expect(edited).toMatch(/limits:\n {2}user:\n {4}maxFiles: 7\n/);
    expect(edited.indexOf('server:')).toBeLessThan(edited.indexOf('session:'));
  });

  it('starts a missing file from nothing', () => {
    expect(editConfigText(undefined, [{ key: ['log', 'level'], value: 'debug' }])).toBe('log:\n  level: debug\n');
  });

  it('refuses a file that is not valid YAML', () => {
    expect(() => editConfigText('server: [unclosed\n', [])).toThrow(/not valid YAML/);
  });
});

describe('checkConfigText', () => {
  it('reports what the loader reports, by key, and nothing for a valid file', () => {
    expect(checkConfigText('session:\n  lifetime: 10\n')).toEqual([]);
    expect(checkConfigText('session:\n  lifetime: 0\nsesion: 1\n')).toEqual(
      expect.arrayContaining([
        { key: 'session.lifetime', origin: '', message: 'must be >= 1' },
        { key: 'sesion', origin: '', message: 'unknown key' },
      ]),
    );
    expect(checkConfigText('users:\n  - {name: a, password: x}\n  - {name: a, password: y}\n')[0]).toMatchObject({ key: 'users[1].name' });
    expect(checkConfigText('- a list\n')[0]!.message).toMatch(/mapping/);
  });

  it('ignores the environment of the process, so the file is valid on its own', () => {
    process.env.QUIRE_SESSION__LIFETIME = '-5';
    try {
      expect(checkConfigText('session:\n  lifetime: 10\n')).toEqual([]);
    } finally {
      delete process.env.QUIRE_SESSION__LIFETIME;
    }
  });
});

describe('writeConfigFile', () => {
  it('creates a new file with mode 0600 and no backup', async () => {
    const file = path.join(tempDir(), 'sub', 'quire.yaml');
    expect(await writeConfigFile(file, 'a: 1\n')).toEqual({ backup: undefined });
    expect(readFileSync(file, 'utf8')).toBe('a: 1\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(existsSync(`${file}.bak`)).toBe(false);
  });

  it('keeps the previous content as <file>.bak, keeps the mode, and leaves no temporary file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'quire.yaml');
    writeFileSync(file, 'old: true\n');
    chmodSync(file, 0o640);
    expect(await writeConfigFile(file, 'new: true\n')).toEqual({ backup: `${file}.bak` });
    expect(readFileSync(file, 'utf8')).toBe('new: true\n');
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe('old: true\n');
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(statSync(`${file}.bak`).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).sort()).toEqual(['quire.yaml', 'quire.yaml.bak']);

    await restoreConfigFile(file, `${file}.bak`);
    expect(readFileSync(file, 'utf8')).toBe('old: true\n');
    expect(readdirSync(dir)).toEqual(['quire.yaml']);
  });

  it('restoring a file that was created removes it', async () => {
    const file = path.join(tempDir(), 'quire.yaml');
    const { backup } = await writeConfigFile(file, 'a: 1\n');
    await restoreConfigFile(file, backup);
    expect(existsSync(file)).toBe(false);
  });

  it('fails without touching the file or leaving a temporary file when the backup cannot be made', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'quire.yaml');
    writeFileSync(file, 'old: true\n');
    // A non-empty directory where the backup goes: the rename onto it fails (as a full disk or EACCES would).
    mkdirSync(path.join(dir, 'quire.yaml.bak', 'x'), { recursive: true });
    await expect(writeConfigFile(file, 'new: true\n')).rejects.toThrow();
    expect(readFileSync(file, 'utf8')).toBe('old: true\n');
    expect(readdirSync(dir).sort()).toEqual(['quire.yaml', 'quire.yaml.bak']);
  });
});

describe('the file in the data dir', () => {
  it('is read when QUIRE_CONFIG is unset, and QUIRE_CONFIG wins over it', () => {
    const dataDir = tempDir();
    const file = path.join(dataDir, 'quire.yaml');
    writeFileSync(file, 'session:\n  lifetime: 77\n');
    const config = loadConfig({ QUIRE_DATA_DIR: dataDir }, '/srv');
    expect(config.configFile).toBe(file);
    expect(config.session.lifetime).toBe(77);

    const other = path.join(tempDir(), 'other.yaml');
    writeFileSync(other, 'session:\n  lifetime: 88\n');
    expect(loadConfig({ QUIRE_DATA_DIR: dataDir, QUIRE_CONFIG: other }, '/srv').session.lifetime).toBe(88);
    expect(loadConfig({ QUIRE_DATA_DIR: tempDir() }, '/srv').configFile).toBeUndefined();
  });

  it('cannot move the data dir', () => {
    const dataDir = tempDir();
    writeFileSync(path.join(dataDir, 'quire.yaml'), 'dataDir: /elsewhere\n');
    expect(() => loadConfig({ QUIRE_DATA_DIR: dataDir }, '/srv')).toThrow(ConfigError);
  });

  it('records which keys the environment sets', () => {
    const config = loadConfig({ QUIRE_DATA_DIR: tempDir(), PORT: '9000', QUIRE_LOG__LEVEL: 'warn' }, '/srv');
    expect(config.overrides).toEqual({ dataDir: 'QUIRE_DATA_DIR', 'server.port': 'PORT', 'log.level': 'QUIRE_LOG__LEVEL' });
  });
});
