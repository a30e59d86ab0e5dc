import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { specialAddressKind } from './special-addresses.js';

/**
 * Whether the server may fetch a URL on a user's behalf (HTML resources, URL conversion, webhooks):
 * the guard against server-side request forgery into the server's own network.
 *
 * Only http and https are allowed, and the host must resolve to public addresses only: one internal
 * address among the answers refuses the host, since the connection could end up on any of them.
 * Callers must connect to one of the returned `addresses` rather than resolve the name again, or a
 * DNS answer that changes in between (DNS rebinding) walks around the check.
 */

export interface AddressPolicyOptions {
  /** Allow every address, internal ones included (for servers on trusted networks only). */
  allowInternal?: boolean;
  /**
   * Allowed even when internal: host names (exact, case-insensitive), IP addresses and CIDR ranges
   * ("10.1.0.0/16", "fd00::/8"). A name allows whatever it resolves to; a range allows its addresses
   * under any name.
   */
  allowHosts?: readonly string[];
}

/** Why a URL was refused: not parseable, not http(s), a host that does not resolve, or an internal address. */
export type PolicyRefusal = 'invalidUrl' | 'scheme' | 'unresolved' | 'address';

export type PolicyDecision =
  | { allowed: true /** What the host resolved to (the literal itself for IP URLs); connect to these. */; addresses: string[] }
  | { allowed: false; refusal: PolicyRefusal /** A sentence for logs and clients, e.g. "127.0.0.1 is a loopback address". */; reason: string };

/** All addresses of a host name; rejects when it does not resolve. */
export type HostResolver = (hostname: string) => Promise<string[]>;

const resolveAll: HostResolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

const ALLOWED_SCHEMES = new Set(['http:', 'https:']);

export class AddressPolicy {
  private readonly allowInternal: boolean;
  private readonly allowedNames = new Set<string>();
  private readonly allowedRanges = new BlockList();

  /** Throws a RangeError for an `allowHosts` entry that is neither a host name, an address nor a CIDR range. */
  constructor(
    options: AddressPolicyOptions = {},
    private readonly resolve: HostResolver = resolveAll,
  ) {
    this.allowInternal = options.allowInternal ?? false;
    for (const entry of options.allowHosts ?? []) this.addAllowed(entry.trim());
  }

  async checkUrl(url: string | URL): Promise<PolicyDecision> {
    let parsed: URL;
    try {
      // The WHATWG parser also normalises the odd IPv4 forms (http://2130706433/, http://0x7f.1/) to dotted quads.
      parsed = typeof url === 'string' ? new URL(url) : url;
    } catch {
      return { allowed: false, refusal: 'invalidUrl', reason: 'the URL is not valid' };
    }
    if (!ALLOWED_SCHEMES.has(parsed.protocol)) {
      return { allowed: false, refusal: 'scheme', reason: `${parsed.protocol} URLs are not allowed, only http: and https:` };
    }
    return this.checkHost(parsed.hostname);
  }

  /** Judges a host as it appears in a URL: a name, an IPv4 literal or a bracketed IPv6 literal. */
  async checkHost(host: string): Promise<PolicyDecision> {
    const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    if (isIP(literal)) return this.judge([literal], false, undefined);
    const name = normaliseName(host);
    const allowedByName = this.allowedNames.has(name);
    let addresses: string[];
    if (name === 'localhost' || name.endsWith('.localhost')) {
      // RFC 6761: browsers (Chromium too) answer these themselves with loopback, whatever DNS says.
      addresses = ['127.0.0.1', '::1'];
    } else {
      try {
        addresses = await this.resolve(name);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        return { allowed: false, refusal: 'unresolved', reason: `${name} could not be resolved (${code})` };
      }
      if (addresses.length === 0) return { allowed: false, refusal: 'unresolved', reason: `${name} has no addresses` };
    }
    return this.judge(addresses, allowedByName, name);
  }

  /** `name`: the host name the addresses came from; undefined for a literal address. */
  private judge(addresses: string[], allowedByName: boolean, name: string | undefined): PolicyDecision {
    if (this.allowInternal || allowedByName) return { allowed: true, addresses };
    for (const address of addresses) {
      // A scoped link-local answer ("fe80::1%eth0") is judged without its zone.
      const bare = address.replace(/%.*$/, '');
      const kind = specialAddressKind(bare);
      if (kind !== undefined && !this.allowedRanges.check(bare, isIP(bare) === 6 ? 'ipv6' : 'ipv4')) {
        const reason = name === undefined ? `${bare} is ${kind}` : `${name} resolves to ${bare}, ${kind}`;
        return { allowed: false, refusal: 'address', reason };
      }
    }
    return { allowed: true, addresses };
  }

  private addAllowed(entry: string): void {
    const slash = entry.indexOf('/');
    const address = slash < 0 ? entry.replace(/^\[(.*)\]$/, '$1') : entry.slice(0, slash);
    const family = isIP(address);
    if (slash >= 0) {
      const prefix = Number(entry.slice(slash + 1));
      const max = family === 6 ? 128 : 32;
      if (family === 0 || !/^\d+$/.test(entry.slice(slash + 1)) || prefix > max) {
        throw new RangeError(`allowHosts: "${entry}" is not a valid CIDR range`);
      }
      this.allowedRanges.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
    } else if (family !== 0) {
      this.allowedRanges.addAddress(address, family === 6 ? 'ipv6' : 'ipv4');
    } else if (/^[a-z0-9_.-]+$/i.test(entry) && !entry.startsWith('.')) {
      this.allowedNames.add(normaliseName(entry));
    } else {
      throw new RangeError(`allowHosts: "${entry}" is neither a host name, an IP address nor a CIDR range`);
    }
  }
}

/** Lower case without the trailing root dot, so "Example.COM." and "example.com" are one host. */
function normaliseName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}
