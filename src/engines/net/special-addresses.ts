import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * The IANA special-purpose address registries, as far as they matter for "may the server connect
 * there on a user's behalf": every range that is not ordinary public unicast. IPv6 forms that embed an
 * IPv4 address (mapped, NAT64, 6to4) are judged by the IPv4 address they lead to.
 */

interface Range {
  network: string;
  prefix: number;
  /** Completes "<address> is …" (the cloud metadata address gets its own entry for a telling message). */
  label: string;
}

const IPV4_RANGES: readonly Range[] = [
  { network: '0.0.0.0', prefix: 8, label: 'an unspecified ("this network") address' },
  { network: '10.0.0.0', prefix: 8, label: 'a private address' },
  { network: '100.64.0.0', prefix: 10, label: 'a carrier-grade NAT (shared) address' },
  { network: '127.0.0.0', prefix: 8, label: 'a loopback address' },
  { network: '169.254.169.254', prefix: 32, label: 'a link-local address (the cloud metadata service)' },
  { network: '169.254.0.0', prefix: 16, label: 'a link-local address' },
  { network: '172.16.0.0', prefix: 12, label: 'a private address' },
  { network: '192.0.0.0', prefix: 24, label: 'a reserved (IETF protocol) address' },
  { network: '192.0.2.0', prefix: 24, label: 'a documentation address' },
  { network: '192.88.99.0', prefix: 24, label: 'a reserved (6to4 relay) address' },
  { network: '192.168.0.0', prefix: 16, label: 'a private address' },
  { network: '198.18.0.0', prefix: 15, label: 'a benchmarking address' },
  { network: '198.51.100.0', prefix: 24, label: 'a documentation address' },
  { network: '203.0.113.0', prefix: 24, label: 'a documentation address' },
  { network: '224.0.0.0', prefix: 4, label: 'a multicast address' },
  { network: '255.255.255.255', prefix: 32, label: 'a broadcast address' },
  { network: '240.0.0.0', prefix: 4, label: 'a reserved address' },
];

const IPV6_RANGES: readonly Range[] = [
  { network: '::', prefix: 128, label: 'an unspecified address' },
  { network: '::1', prefix: 128, label: 'a loopback address' },
  { network: '64:ff9b:1::', prefix: 48, label: 'a private (local-use NAT64) address' },
  { network: '100::', prefix: 64, label: 'a reserved (discard-only) address' },
  { network: '2001:db8::', prefix: 32, label: 'a documentation address' },
  // IETF protocol assignments, Teredo (2001::/32) included: tunnels to addresses we cannot judge.
  { network: '2001::', prefix: 23, label: 'a reserved (IETF protocol) address' },
  { network: '3fff::', prefix: 20, label: 'a documentation address' },
  { network: '5f00::', prefix: 16, label: 'a reserved (SRv6) address' },
  { network: 'fc00::', prefix: 7, label: 'a unique local (private) address' },
  { network: 'fe80::', prefix: 10, label: 'a link-local address' },
  { network: 'fec0::', prefix: 10, label: 'a site-local (private) address' },
  { network: 'ff00::', prefix: 8, label: 'a multicast address' },
];

/**
 * Only 2000::/3 is allocated for global unicast; everything else not listed above is reserved (the
 * deprecated IPv4-compatible form ::a.b.c.d included: nothing routes it).
 */
const IPV6_GLOBAL_UNICAST = subnet('2000::', 3, 'ipv6');

/** IPv6 ranges whose low bits carry an IPv4 address; `offset` is the byte where it starts. */
const IPV4_EMBEDDING: readonly { list: BlockList; offset: number; form: string }[] = [
  { list: subnet('::ffff:0:0', 96, 'ipv6'), offset: 12, form: 'the IPv4-mapped form' },
  { list: subnet('64:ff9b::', 96, 'ipv6'), offset: 12, form: 'the NAT64 form' },
  { list: subnet('2002::', 16, 'ipv6'), offset: 2, form: 'the 6to4 form' },
];

function subnet(network: string, prefix: number, family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return list;
}

const V4 = IPV4_RANGES.map((r) => ({ list: subnet(r.network, r.prefix, 'ipv4'), label: r.label }));
const V6 = IPV6_RANGES.map((r) => ({ list: subnet(r.network, r.prefix, 'ipv6'), label: r.label }));

/**
 * What kind of non-public address `address` (an IPv4 or IPv6 literal, without brackets or zone) is,
 * as a noun phrase ("a loopback address"); undefined when it is public unicast.
 */
export function specialAddressKind(address: string): string | undefined {
  if (isIPv4(address)) return V4.find((r) => r.list.check(address, 'ipv4'))?.label;
  if (!isIPv6(address)) throw new TypeError(`not an IP address: ${address}`);
  // Node's BlockList matches IPv4 rules against IPv4-mapped IPv6 queries, but only IPv6 rules are
  // consulted here, so each address is judged exactly once.
  const hit = V6.find((r) => r.list.check(address, 'ipv6'));
  if (hit) return hit.label;
  const embedding = IPV4_EMBEDDING.find((e) => e.list.check(address, 'ipv6'));
  if (embedding) {
    const ipv4 = Array.from(ipv6Bytes(address).subarray(embedding.offset, embedding.offset + 4)).join('.');
    const inner = specialAddressKind(ipv4);
    return inner && `${embedding.form} of ${ipv4}, ${inner}`;
  }
  return IPV6_GLOBAL_UNICAST.check(address, 'ipv6') ? undefined : 'a reserved address';
}

/** The 16 bytes of a valid IPv6 literal (with "::" and an optional trailing dotted quad). */
function ipv6Bytes(address: string): Uint8Array {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}
