import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/load.js';
import { loadConfig } from '../../src/config/load.js';
import { redactConfig } from '../../src/config/redact.js';
import { createLogger } from '../../src/observability/logger.js';

/** A logger whose lines are kept in memory. */
function capture(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, logger: createLogger('info', { write: (line: string) => void lines.push(line) }) };
}

const SECRETS = ['pw-top', 'pw-nested', 'tok-1', 'refresh-1', 'Bearer abc', 'cookie-1', 'client-secret-1', 'private-key-1', 'api-key-1', 'pw-deep'];

describe('the server logger', () => {
  it('redacts secrets at any depth of a logged object, and keeps everything else', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        password: 'pw-top',
        user: { name: 'carol', password: 'pw-nested' },
        token: 'tok-1',
        refreshToken: 'refresh-1',
        headers: { authorization: 'Bearer abc', cookie: 'cookie-1', accept: 'text/plain' },
        provider: { id: 'corp', clientSecret: 'client-secret-1', privateKey: 'private-key-1', apiKey: 'api-key-1' },
        config: { users: [{ name: 'dave', roles: ['admin'], password: 'pw-deep' }] },
      },
      'something happened',
    );
    const line = lines.join('');
    for (const secret of SECRETS) expect(line).not.toContain(secret);
    const parsed = JSON.parse(line) as {
      msg: string;
      user: unknown;
      headers: { accept: string };
      provider: { id: string };
      config: { users: unknown[] };
    };
    expect(parsed.msg).toBe('something happened');
    expect(parsed.user).toEqual({ name: 'carol', password: '[redacted]' });
    expect(parsed.headers.accept).toBe('text/plain');
    expect(parsed.provider.id).toBe('corp');
    expect(parsed.config.users[0]).toEqual({ name: 'dave', roles: ['admin'], password: '[redacted]' });
  });

  it('does not change the logged object itself', () => {
    const { logger } = capture();
    const user = { name: 'carol', password: 'pw' };
    logger.info({ user }, 'x');
    expect(user.password).toBe('pw');
  });

  it('keeps errors as errors (message and stack from the serializer)', () => {
    const { lines, logger } = capture();
    logger.error({ err: new Error('disk full') }, 'failed');
    const parsed = JSON.parse(lines[0]!) as { err: { message: string; stack: string } };
    expect(parsed.err.message).toBe('disk full');
    expect(parsed.err.stack).toContain('Error: disk full');
  });

  it('redacts a whole configuration logged by mistake', () => {
    const { lines, logger } = capture();
    const config = testConfig();
    logger.info({ config }, 'loaded');
    expect(lines[0]).not.toContain('Plain-Text-Pa55');
    expect(lines[0]).not.toContain('Admin-Env-Pa55');
  });
});

describe('redactConfig', () => {
  it('replaces user passwords and the admin password, keeps the rest, and leaves the input alone', () => {
    const config = testConfig();
    const redacted = redactConfig(config);
    expect(redacted.users).toEqual([{ name: 'carol', password: '[redacted]', roles: ['user'] }]);
    expect(redacted.adminPassword).toBe('[redacted]');
    expect(redacted.server).toEqual(config.server);
    expect(redacted.oauth.providers[0]!.issuer).toBe('https://issuer.example');
    expect(config.users[0]!.password).toBe('Plain-Text-Pa55');
    expect(JSON.stringify(redacted)).not.toMatch(/Plain-Text-Pa55|Admin-Env-Pa55/);
  });

  it('keeps an unset admin password unset', () => {
    expect(redactConfig({ ...testConfig(), adminPassword: undefined }).adminPassword).toBeUndefined();
  });

  it('redacts anything named like a secret and credentials in URLs', () => {
    const config = {
      ...testConfig(),
      extra: {
        clientSecret: 'cs',
        privateKey: 'pk',
        token: 'tk',
        nested: [{ secret: 's', key: 'k', keep: 'visible' }],
        url: 'https://bob:hunter2@example.com/path?access_token=abc&page=2',
        plain: 'https://example.com/a?b=c',
      },
    } as unknown as Config;
    const extra = (redactConfig(config) as unknown as { extra: Record<string, unknown> }).extra;
    expect(extra).toEqual({
      clientSecret: '[redacted]',
      privateKey: '[redacted]',
      token: '[redacted]',
      nested: [{ secret: '[redacted]', key: '[redacted]', keep: 'visible' }],
      url: 'https://[redacted]@example.com/path?access_token=[redacted]&page=2',
      plain: 'https://example.com/a?b=c',
    });
  });
});

function testConfig(): Config {
  return loadConfig({
    QUIRE_DATA_DIR: '/tmp/quire-redact-test',
    QUIRE_ADMIN_PASSWORD: 'Admin-Env-Pa55',
    QUIRE_USERS: '[{name: carol, password: Plain-Text-Pa55, roles: [user]}]',
    QUIRE_OAUTH__PROVIDERS: '[{id: corp, issuer: "https://issuer.example", jwksUri: "https://issuer.example/jwks", audience: quire}]',
  });
}
