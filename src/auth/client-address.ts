import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key under which per-address limits (login throttling, anonymous sessions) count a client.
 * `ip` is Fastify's `request.ip`, which honours `server.trustProxy`.
 *
 * - IPv4 is kept as it is; an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, what a dual-stack listener
 *   reports) counts as its IPv4 address, so one client is never two.
 * - Any other IPv6 address counts as its /64 network: one subscriber gets a whole /64 and can pick a
 *   fresh address for every request, so a per-address limit on full IPv6 addresses would limit nothing.
 * - Anything else (no address at all, e.g. an in-process call) is returned trimmed; '' means unknown.
 */
export function addressKey(ip: string | undefined): string {
  const address = (ip ?? '').trim().replace(/%.*$/, '');
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 part converted). */
function ipv6Groups(address: string): number[] {
  const parse = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((piece) => {
      if (piece.includes('.')) {
        const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
        return [(a << 8) | b, (c << 8) | d];
      }
      return [Number.parseInt(piece, 16)];
    });
  };
  const [head = '', tail] = address.split('::');
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}
