import { describe, expect, it } from 'vitest';
import { AddressPolicy, type HostResolver, type PolicyDecision } from '../../../src/engines/net/address-policy.js';

/** No internet here: names resolve through this table, so every answer is known. */
const fakeDns: HostResolver = async (name) => {
  const table: Record<string, string[]> = {
    'public.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'mixed.test': ['93.184.215.14', '10.0.0.7'],
    'metadata.test': ['169.254.169.254'],
    'intranet.test': ['192.168.10.20'],
  };
  const addresses = table[name];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return addresses;
};

const strict = new AddressPolicy({}, fakeDns);

function reasonOf(decision: PolicyDecision): string {
  if (decision.allowed) throw new Error(`expected a refusal, got ${decision.addresses.join(', ')}`);
  return decision.reason;
}

describe('AddressPolicy: schemes and URLs', () => {
  it.each(['file:///etc/passwd', 'ftp://example.com/', 'javascript:alert(1)', 'data:text/plain,x', 'gopher://127.0.0.1:25/'])('refuses %s', async (url) => {
    const decision = await strict.checkUrl(url);
    expect(decision).toMatchObject({ allowed: false, refusal: 'scheme' });
    expect(reasonOf(decision)).toMatch(/only http: and https:/);
  });

  it('refuses what is not a URL', async () => {
    expect(await strict.checkUrl('not a url')).toMatchObject({ allowed: false, refusal: 'invalidUrl' });
  });

  it('allows public hosts and returns the addresses to connect to', async () => {
    expect(await strict.checkUrl('https://public.test/page')).toEqual({ allowed: true, addresses: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
    expect(await strict.checkUrl('http://8.8.8.8/')).toEqual({ allowed: true, addresses: ['8.8.8.8'] });
    expect(await strict.checkUrl('http://[2606:4700:4700::1111]:8080/')).toEqual({ allowed: true, addresses: ['2606:4700:4700::1111'] });
  });

  it('accepts URL objects', async () => {
    expect(reasonOf(await strict.checkUrl(new URL('http://127.0.0.1/')))).toBe('127.0.0.1 is a loopback address');
  });
});

describe('AddressPolicy: literal addresses', () => {
  it.each([
    ['http://127.0.0.1/', '127.0.0.1 is a loopback address'],
    ['http://127.8.9.10:8080/', '127.8.9.10 is a loopback address'],
    // The odd IPv4 spellings the WHATWG parser normalises.
    ['http://2130706433/', '127.0.0.1 is a loopback address'],
    ['http://0x7f000001/', '127.0.0.1 is a loopback address'],
    ['http://0177.0.0.1/', '127.0.0.1 is a loopback address'],
    ['http://127.1/', '127.0.0.1 is a loopback address'],
    ['http://0/', '0.0.0.0 is an unspecified ("this network") address'],
    ['http://10.1.2.3/', '10.1.2.3 is a private address'],
    ['http://172.16.0.1/', '172.16.0.1 is a private address'],
    ['http://172.31.255.255/', '172.31.255.255 is a private address'],
    ['http://192.168.1.1/', '192.168.1.1 is a private address'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address (the cloud metadata service)'],
    ['http://169.254.1.1/', '169.254.1.1 is a link-local address'],
    ['http://100.64.0.1/', '100.64.0.1 is a carrier-grade NAT (shared) address'],
    ['http://100.127.255.254/', '100.127.255.254 is a carrier-grade NAT (shared) address'],
    ['http://224.0.0.1/', '224.0.0.1 is a multicast address'],
    ['http://255.255.255.255/', '255.255.255.255 is a broadcast address'],
    ['http://240.0.0.1/', '240.0.0.1 is a reserved address'],
    ['http://192.0.2.1/', '192.0.2.1 is a documentation address'],
    ['http://198.18.0.1/', '198.18.0.1 is a benchmarking address'],
    ['http://[::1]/', '::1 is a loopback address'],
    ['http://[::]/', ':: is an unspecified address'],
    ['http://[fc00::1]/', 'fc00::1 is a unique local (private) address'],
    ['http://[fd12:3456::1]/', 'fd12:3456::1 is a unique local (private) address'],
    ['http://[fe80::1]/', 'fe80::1 is a link-local address'],
    ['http://[ff02::1]/', 'ff02::1 is a multicast address'],
    ['http://[2001:db8::1]/', '2001:db8::1 is a documentation address'],
    ['http://[2001::1]/', '2001::1 is a reserved (IETF protocol) address'],
    ['http://[::7f00:1]/', '::7f00:1 is a reserved address'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is the IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['http://[::ffff:a9fe:a9fe]/', '::ffff:a9fe:a9fe is the IPv4-mapped form of 169.254.169.254, a link-local address (the cloud metadata service)'],
    ['http://[64:ff9b::10.0.0.1]/', '64:ff9b::a00:1 is the NAT64 form of 10.0.0.1, a private address'],
    ['http://[64:ff9b:1::1]/', '64:ff9b:1::1 is a private (local-use NAT64) address'],
    ['http://[2002:c0a8:101::1]/', '2002:c0a8:101::1 is the 6to4 form of 192.168.1.1, a private address'],
  ])('refuses %s', async (url, reason) => {
    const decision = await strict.checkUrl(url);
    expect(decision).toMatchObject({ allowed: false, refusal: 'address' });
    expect(reasonOf(decision)).toBe(reason);
  });

  it.each(['http://172.32.0.1/', 'http://100.128.0.1/', 'http://11.0.0.1/', 'http://[::ffff:8.8.8.8]/', 'http://[64:ff9b::8.8.8.8]/', 'http://[2002:808:808::1]/'])(
    'allows the public address %s',
    async (url) => {
      expect((await strict.checkUrl(url)).allowed).toBe(true);
    },
  );
});

describe('AddressPolicy: host names', () => {
  it('treats localhost and *.localhost as loopback without asking DNS', async () => {
    expect(reasonOf(await strict.checkUrl('http://localhost:8080/'))).toBe('localhost resolves to 127.0.0.1, a loopback address');
    expect(reasonOf(await strict.checkUrl('http://LocalHost./'))).toBe('localhost resolves to 127.0.0.1, a loopback address');
    expect(reasonOf(await strict.checkUrl('http://app.localhost/'))).toBe('app.localhost resolves to 127.0.0.1, a loopback address');
  });

  it('resolves localhost with the real resolver too', async () => {
    const decision = await new AddressPolicy({ allowInternal: true }).checkUrl('http://localhost/');
    expect(decision).toMatchObject({ allowed: true });
  });

  it('refuses a name when any of its addresses is internal', async () => {
    expect(reasonOf(await strict.checkUrl('http://mixed.test/'))).toBe('mixed.test resolves to 10.0.0.7, a private address');
    expect(reasonOf(await strict.checkUrl('http://metadata.test/'))).toMatch(/cloud metadata/);
  });

  it('reports names that do not resolve', async () => {
    const decision = await strict.checkUrl('http://nowhere.test/');
    expect(decision).toMatchObject({ allowed: false, refusal: 'unresolved' });
    expect(reasonOf(decision)).toBe('nowhere.test could not be resolved (ENOTFOUND)');
  });

  it('refuses a name without addresses', async () => {
    const empty = new AddressPolicy({}, async () => []);
    expect(await empty.checkHost('empty.test')).toMatchObject({ allowed: false, refusal: 'unresolved' });
  });

  it('judges scoped link-local answers without their zone', async () => {
    const scoped = new AddressPolicy({}, async () => ['fe80::1%eth0']);
    expect(reasonOf(await scoped.checkHost('scoped.test'))).toBe('scoped.test resolves to fe80::1, a link-local address');
  });
});

describe('AddressPolicy: options', () => {
  it('allowInternal allows everything', async () => {
    const open = new AddressPolicy({ allowInternal: true }, fakeDns);
    expect(await open.checkUrl('http://127.0.0.1:9000/')).toEqual({ allowed: true, addresses: ['127.0.0.1'] });
    expect(await open.checkUrl('http://intranet.test/')).toEqual({ allowed: true, addresses: ['192.168.10.20'] });
    // …but still only http(s).
    expect(await open.checkUrl('file:///etc/passwd')).toMatchObject({ allowed: false, refusal: 'scheme' });
  });

  it('allowHosts names allow whatever they resolve to, case-insensitively', async () => {
    const policy = new AddressPolicy({ allowHosts: ['Intranet.Test', 'localhost'] }, fakeDns);
    expect(await policy.checkUrl('http://intranet.test/')).toEqual({ allowed: true, addresses: ['192.168.10.20'] });
    expect(await policy.checkUrl('http://INTRANET.test./')).toMatchObject({ allowed: true });
    expect(await policy.checkUrl('http://localhost/')).toEqual({ allowed: true, addresses: ['127.0.0.1', '::1'] });
    // The name allows itself, not its address under another spelling.
    expect(await policy.checkUrl('http://192.168.10.20/')).toMatchObject({ allowed: false });
    expect(await policy.checkUrl('http://127.0.0.1/')).toMatchObject({ allowed: false });
  });

  it('allowHosts addresses and CIDR ranges allow their addresses under any name', async () => {
    const policy = new AddressPolicy({ allowHosts: ['192.168.0.0/16', '127.0.0.1', 'fd00::/8', '[fe80::1]'] }, fakeDns);
    expect(await policy.checkUrl('http://intranet.test/')).toMatchObject({ allowed: true });
    expect(await policy.checkUrl('http://192.168.200.1/')).toMatchObject({ allowed: true });
    expect(await policy.checkUrl('http://127.0.0.1:3000/')).toMatchObject({ allowed: true });
    expect(await policy.checkUrl('http://[fd00::5]/')).toMatchObject({ allowed: true });
    expect(await policy.checkUrl('http://[fe80::1]/')).toMatchObject({ allowed: true });
    // The IPv4-mapped form of an allowed address is the same destination.
    expect(await policy.checkUrl('http://[::ffff:192.168.1.1]/')).toMatchObject({ allowed: true });
    expect(await policy.checkUrl('http://127.0.0.2/')).toMatchObject({ allowed: false });
    expect(await policy.checkUrl('http://10.0.0.1/')).toMatchObject({ allowed: false });
    expect(await policy.checkUrl('http://[fc00::1]/')).toMatchObject({ allowed: false });
    expect(await policy.checkUrl('http://mixed.test/')).toMatchObject({ allowed: false });
  });

  it.each(['10.0.0.0/33', '::1/129', 'foo bar', '10.0.0.0/', 'host/8', '.example.com', 'http://example.com'])('rejects the allowHosts entry %j', (entry) => {
    expect(() => new AddressPolicy({ allowHosts: [entry] })).toThrow(RangeError);
  });
});
