import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { parseSize, toWireMegabytes } from '../../src/config/sizes.js';
import { problems, yamlFile } from './fixtures.js';

describe('loadConfig', () => {
  it('has embedded defaults for everything', () => {
    const config = loadConfig({}, '/srv');
    expect(config.dataDir).toBe('/srv/data');
    expect(config.server).toMatchObject({ port: 8080, contextPath: '/webPDF', restBase: '/webPDF/rest', shutdownTimeoutMs: 30_000 });
    expect(config.anonymous).toBe(true);
    expect(config.session.lifetime).toBe(3600);
    expect(config.limits.anonymous).toEqual({ uploadLimit: 100 * 2 ** 20, maxFiles: 100, diskSpaceLimit: 500 * 2 ** 20 });
    expect(config.users).toEqual([]);
  });

  it('reads the YAML file, then lets the environment override it', () => {
    const file = yamlFile(`
server:
  port: 9000
  contextPath: /pdf
session:
  lifetime: 120
limits:
  user:
    uploadLimit: 5        # megabytes
    diskSpaceLimit: 1.5GB
users:
  - name: alice
    password: secret
`);
    const config = loadConfig({ QUIRE_CONFIG: file, QUIRE_SESSION__LIFETIME: '60', PORT: '9100', QUIRE_DATA_DIR: 'var/q' }, '/srv');
    expect(config.server.port).toBe(9100);
    expect(config.server.restBase).toBe('/pdf/rest');
    expect(config.session.lifetime).toBe(60);
    expect(config.limits.user.uploadLimit).toBe(5 * 2 ** 20);
    expect(config.limits.user.diskSpaceLimit).toBe(1.5 * 2 ** 30);
    expect(config.limits.user.maxFiles).toBe(1000); // untouched default beside overridden siblings
    expect(config.users).toEqual([{ name: 'alice', password: 'secret', roles: ['user'] }]);
    expect(config.dataDir).toBe('/srv/var/q');
    expect(config.configFile).toBe(file);
  });

  it('maps QUIRE_ variables onto nested keys and parses their values', () => {
    const config = loadConfig({
      QUIRE_ANONYMOUS: 'false',
      QUIRE_LIMITS__ANONYMOUS__UPLOAD_LIMIT: '512KB',
      QUIRE_LIMITS__ANONYMOUS__MAX_FILES: '7',
      QUIRE_USERS: '[{name: bob, password: pw, roles: [admin]}]',
      QUIRE_SERVER__HOST: '127.0.0.1',
    });
    expect(config.anonymous).toBe(false);
    expect(config.limits.anonymous).toMatchObject({ uploadLimit: 512 * 1024, maxFiles: 7 });
    expect(config.users[0]).toEqual({ name: 'bob', password: 'pw', roles: ['admin'] });
    expect(config.server.host).toBe('127.0.0.1');
  });

  it('names the key, the source and the reason of every problem', () => {
    expect(problems({ QUIRE_SESSION__LIFETIME: '-3' })).toEqual(['session.lifetime (from QUIRE_SESSION__LIFETIME): must be >= 1']);
    expect(problems({ QUIRE_LOG__LEVEL: 'loud' })[0]).toMatch(/^log\.level .*allowed values: fatal, error, warn, info, debug, trace, silent/);
    expect(problems({ QUIRE_LIMITS__USER__UPLOAD_LIMIT: '12 parsecs' })[0]).toMatch(/^limits\.user\.uploadLimit .*size with unit/);
    const file = yamlFile('sesion:\n  lifetime: 5\nusers:\n  - name: a\n    password: b\n    roles: [root]\n');
    const found = problems({ QUIRE_CONFIG: file });
    expect(found).toContain(`sesion (in ${file}): unknown key`);
    expect(found.some((p) => p.startsWith('users[0].roles[0]') && p.includes('user, admin'))).toBe(true);
  });

  it('names QUIRE_ variables that match no key instead of refusing to start; an unknown key in the file stays an error', () => {
    const config = loadConfig({ QUIRE_VERSION: '3.1.0', QUIRE_SESION__LIFETIME: '3', QUIRE_SESSION__LIFETIME: '90', QUIRE_ADMIN_PASSWORD: 'pw' });
    expect(config.ignoredEnvironment).toEqual(['QUIRE_SESION__LIFETIME', 'QUIRE_VERSION']);
    expect(config.session.lifetime).toBe(90);
    expect(loadConfig({}).ignoredEnvironment).toEqual([]);
    // A variable that names a key still has its value checked.
    expect(problems({ QUIRE_VERSION: 'x', QUIRE_SESSION__LIFETIME: '-3' })).toEqual(['session.lifetime (from QUIRE_SESSION__LIFETIME): must be >= 1']);
    const file = yamlFile('version: 3\n');
    expect(problems({ QUIRE_CONFIG: file, QUIRE_VERSION: 'x' })).toEqual([`version (in ${file}): unknown key`]);
  });

  it('refuses duplicate users, unreadable files and non-mapping YAML', () => {
    expect(problems({ QUIRE_USERS: '[{name: a, password: x}, {name: a, password: y}]' })[0]).toMatch(/duplicate user name "a"/);
    expect(problems({ QUIRE_CONFIG: '/nonexistent/quire.yaml' })[0]).toMatch(/^QUIRE_CONFIG: cannot read/);
    expect(problems({ QUIRE_CONFIG: yamlFile('- just\n- a list\n') })[0]).toMatch(/top level must be a mapping/);
    expect(problems({ QUIRE_CONFIG: yamlFile('server: [unclosed\n') })[0]).toMatch(/not valid YAML/);
  });
});

describe('sizes', () => {
  it('reads megabytes and units, and reports whole megabytes on the wire', () => {
    expect(parseSize(0)).toBe(0);
    expect(parseSize(2)).toBe(2 * 2 ** 20);
    expect(parseSize('100B')).toBe(100);
    expect(parseSize('1KiB')).toBe(1024);
    expect(parseSize('2gb')).toBe(2 * 2 ** 30);
    expect(toWireMegabytes(0)).toBe(0);
    expect(toWireMegabytes(1)).toBe(1);
    expect(toWireMegabytes(3 * 2 ** 20)).toBe(3);
    expect(() => parseSize('3 furlongs')).toThrow();
  });
});
