import { createRequire } from 'node:module';

/**
 * node-forge's ASN.1 reader and DER writer, as the signature engine uses them (the CMS, time-stamp
 * requests, OCSP requests, and reading time-stamp tokens, OCSP responses and CRLs). node-forge is
 * loaded at the first use, not at start (about 10 MB an idle server would carry).
 */

const require = createRequire(import.meta.url);
export type Forge = typeof import('node-forge');
export type Asn1 = import('node-forge').asn1.Asn1;
export const forge = (): Forge => require('node-forge') as Forge;

/** forge's fromDer with bit strings left opaque (its typings name only the older boolean argument), so re-encoding gives the input back. */
export function parseDer(bytes: Buffer): Asn1 {
  const f = forge();
  const fromDer = f.asn1.fromDer as unknown as (input: unknown, options: { decodeBitStrings: boolean }) => Asn1;
  return fromDer(f.util.createBuffer(bytes.toString('binary')), { decodeBitStrings: false });
}

export function der(node: Asn1): Buffer {
  return Buffer.from(forge().asn1.toDer(node).getBytes(), 'binary');
}

/** The children of a constructed node ([] for a primitive one). */
export function children(node: Asn1 | undefined): Asn1[] {
  return node && Array.isArray(node.value) ? node.value : [];
}

/** The content bytes of a primitive node. */
export function bytesOf(node: Asn1 | undefined): Buffer {
  return node && typeof node.value === 'string' ? Buffer.from(node.value, 'binary') : Buffer.alloc(0);
}

/** The dotted OID of an OBJECT IDENTIFIER node ('' when it is none). */
export function oidOf(node: Asn1 | undefined): string {
  const f = forge();
  if (!node || node.tagClass !== f.asn1.Class.UNIVERSAL || node.type !== f.asn1.Type.OID || typeof node.value !== 'string') return '';
  return f.asn1.derToOid(f.util.createBuffer(node.value));
}

/** The date of a UTCTime or GeneralizedTime node; undefined for anything else. */
export function timeOf(node: Asn1 | undefined): Date | undefined {
  const f = forge();
  if (!node || node.tagClass !== f.asn1.Class.UNIVERSAL || typeof node.value !== 'string') return undefined;
  try {
    if (node.type === f.asn1.Type.UTCTIME) return f.asn1.utcTimeToDate(node.value);
    if (node.type === f.asn1.Type.GENERALIZEDTIME) return f.asn1.generalizedTimeToDate(node.value);
  } catch {
    return undefined;
  }
  return undefined;
}

/** Whether a node is context-specific [tag]. */
export function isContext(node: Asn1 | undefined, tag: number): boolean {
  return node !== undefined && node.tagClass === forge().asn1.Class.CONTEXT_SPECIFIC && node.type === tag;
}

/** Builders of the nodes the engine writes. */
export function build() {
  const { asn1 } = forge();
  const U = asn1.Class.UNIVERSAL;
  const T = asn1.Type;
  return {
    asn1,
    sequence: (items: Asn1[]) => asn1.create(U, T.SEQUENCE, true, items),
    set: (items: Asn1[]) => asn1.create(U, T.SET, true, items),
    oid: (value: string) => asn1.create(U, T.OID, false, asn1.oidToDer(value).getBytes()),
    octets: (bytes: Buffer) => asn1.create(U, T.OCTETSTRING, false, bytes.toString('binary')),
    nullValue: () => asn1.create(U, T.NULL, false, ''),
    integer: (n: number) => asn1.create(U, T.INTEGER, false, asn1.integerToDer(n).getBytes()),
    /** An INTEGER from its content bytes as they stand (a serial number, a nonce). */
    integerBytes: (bytes: Buffer) => asn1.create(U, T.INTEGER, false, bytes.toString('binary')),
    context: (tag: number, items: Asn1[]) => asn1.create(asn1.Class.CONTEXT_SPECIFIC, tag, true, items),
  };
}
