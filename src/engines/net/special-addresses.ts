import ipaddr from 'ipaddr.js';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * The IANA special-purpose address registries, as far as they matter for "may the server connect
 * there on a user's behalf": every range that is not ordinary public unicast. ipaddr.js keeps the
 * registry (its range() names); this file only words each name as "<address> is …" and splits the
 * names ipaddr.js lumps together ("reserved") where the message should say more. IPv6 forms that
 * embed an IPv4 address (mapped, NAT64, 6to4) are judged by the IPv4 address they lead to.
 */

/** The sentence for each range() name; undefined = ordinary public unicast (AS112 and AMT relays included). */
const IPV4_KINDS: Readonly<Record<string, string | undefined>> = {
  unspecified: 'an unspecified ("this network") address',
  private: 'a private address',
  carrierGradeNat: 'a carrier-grade NAT (shared) address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved address',
};

const IETF_PROTOCOL = 'a reserved (IETF protocol) address';

const IPV6_KINDS: Readonly<Record<string, string | undefined>> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  multicast: 'a multicast address',
  uniqueLocal: 'a unique local (private) address',
  deprecatedSiteLocal: 'a site-local (private) address',
  discard: 'a reserved (discard-only) address',
  segmentRouting: 'a reserved (SRv6) address',
  // ::ffff:0:0:0/96 (SIIT) lies outside 2000::/3 like every other unassigned range.
  rfc6145: 'a reserved address',
  // All inside 2001::/23, the IETF protocol assignments; Teredo is a tunnel to addresses we cannot judge.
  teredo: IETF_PROTOCOL,
  benchmarking: IETF_PROTOCOL,
  amt: IETF_PROTOCOL,
  deprecatedOrchid: IETF_PROTOCOL,
  orchid2: IETF_PROTOCOL,
  droneRemoteIdProtocolEntityTags: IETF_PROTOCOL,
  reserved: IETF_PROTOCOL,
  // 2620:4f:8000::/48 is ordinary global unicast; the 2001:4:112::/48 half is refined below.
  as112v6: undefined,
};

/** Sub-ranges of an ipaddr.js range whose message is more specific than the range's own. */
const REFINED: Readonly<Record<string, readonly (readonly [cidr: string, label: string])[]>> = {
  'ipv4 linkLocal': [['169.254.169.254/32', 'a link-local address (the cloud metadata service)']],
  'ipv4 reserved': [
    ['192.0.0.0/24', IETF_PROTOCOL],
    ['192.0.2.0/24', 'a documentation address'],
    ['192.88.99.0/24', 'a reserved (6to4 relay) address'],
    ['198.18.0.0/15', 'a benchmarking address'],
    ['198.51.100.0/24', 'a documentation address'],
    ['203.0.113.0/24', 'a documentation address'],
  ],
  'ipv6 reserved': [
    ['2001:db8::/32', 'a documentation address'],
    ['3fff::/20', 'a documentation address'],
  ],
  'ipv6 rfc6052': [['64:ff9b:1::/48', 'a private (local-use NAT64) address']],
  'ipv6 as112v6': [['2001::/23', IETF_PROTOCOL]],
};

const REFINED_RANGES = Object.fromEntries(
  Object.entries(REFINED).map(([key, list]) => [key, list.map(([cidr, label]) => ({ range: ipaddr.parseCIDR(cidr) as [ipaddr.IPv4 & ipaddr.IPv6, number], label }))]),
);

/** range() names whose addresses carry an IPv4 address in bytes `offset`..`offset + 4`. */
const IPV4_EMBEDDING: Readonly<Record<string, { offset: number; form: string }>> = {
  ipv4Mapped: { offset: 12, form: 'the IPv4-mapped form' },
  rfc6052: { offset: 12, form: 'the NAT64 form' },
  '6to4': { offset: 2, form: 'the 6to4 form' },
};

/**
 * Only 2000::/3 is allocated for global unicast; everything else ipaddr.js calls "unicast" is reserved
 * (the deprecated IPv4-compatible form ::a.b.c.d included: nothing routes it).
 */
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * What kind of non-public address `address` (an IPv4 or IPv6 literal, without brackets or zone) is,
 * as a noun phrase ("a loopback address"); undefined when it is public unicast.
 */
export function specialAddressKind(address: string): string | undefined {
  // node:net decides what is a literal: ipaddr.js would also accept "0x7f.1" and the like.
  if (isIPv4(address)) {
    const parsed = ipaddr.IPv4.parse(address);
    const range: string = parsed.range();
    return refined(parsed, `ipv4 ${range}`) ?? IPV4_KINDS[range];
  }
  if (!isIPv6(address)) throw new TypeError(`not an IP address: ${address}`);
  const parsed = ipaddr.IPv6.parse(withoutDottedQuad(address));
  const range: string = parsed.range();
  const label = refined(parsed, `ipv6 ${range}`);
  if (label !== null) return label;
  const embedding = IPV4_EMBEDDING[range];
  if (embedding) {
    const ipv4 = parsed
      .toByteArray()
      .slice(embedding.offset, embedding.offset + 4)
      .join('.');
    const inner = specialAddressKind(ipv4);
    return inner && `${embedding.form} of ${ipv4}, ${inner}`;
  }
  if (range in IPV6_KINDS) return IPV6_KINDS[range];
  return parsed.match(IPV6_GLOBAL_UNICAST) ? undefined : 'a reserved address';
}

/** The label of the first REFINED sub-range holding the address; null when none does. */
function refined(parsed: ipaddr.IPv4 | ipaddr.IPv6, key: string): string | null {
  const hit = REFINED_RANGES[key]?.find(({ range }) => parsed.match(range));
  return hit ? hit.label : null;
}

/**
 * The literal with a trailing dotted quad written as two hex groups, by the WHATWG URL serialiser:
 * ipaddr.js reads the deprecated IPv4-compatible "::a.b.c.d" as IPv4-mapped, which it is not
 * (::a.b.c.d is ::0:a.b.c.d: reserved, not a route to a.b.c.d).
 */
function withoutDottedQuad(address: string): string {
  return address.includes('.') ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address;
}
