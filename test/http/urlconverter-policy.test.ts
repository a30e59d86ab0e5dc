import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postWebService } from '../helpers/converter.js';
import { list } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { listen, type Listener } from '../operations/urlconverter/site.js';

/**
 * With the default configuration (no network.allowInternal, no allowHosts) every spelling of an
 * internal address is refused with a 400 that names the reason, nothing is stored, and a listener on
 * loopback (all of 127/8 and ::1, via the dual-stack wildcard) sees no request at all.
 */
describe('urlconverter: the address policy by default', () => {
  const { server, session } = useTestServer({ engines: true, env: { QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false' } });
  let listener: Listener;

  beforeAll(async () => {
    // '::' takes IPv4 too (dual stack): 127.0.0.1, 127.0.0.2, 0.0.0.0 and ::1 all land here.
    listener = await listen('::', (_url, _headers, reply) => reply(200, 'text/html', '<title>internal</title>INTERNAL'));
  });
  afterAll(async () => {
    await listener?.close();
  });

  const call = (body: unknown) => postWebService(`${server.rest}/urlconverter`, session.token, body);

  const spellings = (port: number) => [
    [`http://localhost:${port}/`, 'loopback'],
    [`http://127.0.0.1:${port}/`, 'loopback'],
    [`http://127.1:${port}/`, 'loopback'],
    [`http://2130706433:${port}/`, 'loopback'],
    [`http://0x7f.1:${port}/`, 'loopback'],
    [`http://0177.0.0.1:${port}/`, 'loopback'],
    [`http://[::1]:${port}/`, 'loopback'],
    [`http://[::ffff:127.0.0.1]:${port}/`, 'loopback'],
    [`http://0.0.0.0:${port}/`, 'unspecified'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://10.1.2.3/', 'private'],
    ['http://192.168.0.1/', 'private'],
    ['http://100.64.0.1/', 'carrier-grade NAT'],
    ['http://[fd00::1]/', 'unique local'],
    ['http://224.0.0.1/', 'multicast'],
    [`http://LOCALHOST.:${port}/`, 'loopback'],
  ];

  it('refuses every internal spelling with -160 naming the reason; nothing is stored and the listener sees nothing', async () => {
    for (const [url, reason] of spellings(listener.port)) {
      const outcome = await call({ urlconverter: { url } });
      expect(outcome.status, url).toBe(400);
      expect(outcome.contentType, url).toBe('application/json');
      expect(outcome.error?.errorCode, url).toBe(-160);
      expect(outcome.error?.errorMessage, url).toContain(reason);
      expect(outcome.error?.errorMessage, url).toContain('network.allowHosts');
    }
    expect(listener.seen).toEqual([]);
    expect(await list(server.rest, session.token)).toEqual([]);
  });

  it('refuses schemes other than http and https with a clear 400', async () => {
    for (const url of ['file:///etc/passwd', 'data:text/html,<p>x</p>', 'javascript:alert(1)', 'ftp://example.com/x', 'chrome://version', 'about:blank']) {
      const outcome = await call({ urlconverter: { url } });
      expect(outcome.status, url).toBe(400);
      expect(outcome.error?.errorCode, url).toBe(-160);
      expect(outcome.error?.errorMessage, url).toContain('only http: and https:');
    }
    const relative = await call({ urlconverter: { url: '/relative/path' } });
    expect(relative.error?.errorCode).toBe(-160);
    expect(relative.error?.errorMessage).toContain('not an absolute URL');
    const credentials = await call({ urlconverter: { url: `http://user:pw@example.com/` } });
    expect(credentials.error?.errorCode).toBe(-160);
    expect(credentials.error?.errorMessage).toContain('basicAuth');
  });

  it('answers an empty or missing url with -58', async () => {
    for (const body of [{ urlconverter: { url: '' } }, { urlconverter: { url: '   ' } }, { urlconverter: {} }]) {
      const outcome = await call(body);
      expect(outcome.status).toBe(400);
      expect(outcome.error?.errorCode).toBe(-58);
    }
    expect((await call({})).error?.errorCode).toBe(-14);
  });

  it('answers a host that does not resolve with -161', async () => {
    const outcome = await call({ urlconverter: { url: 'http://does-not-exist.invalid/' } });
    expect(outcome.status).toBe(400);
    expect(outcome.error?.errorCode).toBe(-161);
    expect(outcome.error?.errorMessage).toContain('does-not-exist.invalid');
  });
});
