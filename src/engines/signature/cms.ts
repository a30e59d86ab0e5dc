import { createHash, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { type Asn1, der, forge, parseDer } from './asn1.js';
import { SignatureEngineError } from './errors.js';

/**
 * The CMS SignedData of a PAdES signature (ETSI EN 319 142-1, /SubFilter /ETSI.CAdES.detached):
 * detached (no encapsulated content), SHA-256, signed attributes content-type, message-digest and
 * ESS signing-certificate-v2 (RFC 5035), no signing-time (PAdES puts the claimed time in /M), and
 * optionally an unsigned signature-time-stamp (RFC 3161 token over the signature value).
 *
 * node-forge's PKCS#7 signer is not used: it wants the whole content to digest (a 100 MB PDF would
 * sit in memory), cannot add signing-certificate-v2 nor unsigned attributes. Its DER encoder is
 * used instead, and node:crypto signs (RSA PKCS#1 v1.5 or ECDSA, whatever the key is).
 */

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  timeStampToken: '1.2.840.113549.1.9.16.2.14',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRSA: '1.2.840.113549.1.1.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
  ecdsaWithSha512: '1.2.840.10045.4.3.4',
  ed25519: '1.3.101.112',
} as const;

export interface CmsSigner {
  /** The signer's certificate first, then the rest of its chain (DER). */
  chain: readonly Buffer[];
  key: KeyObject;
}

/** The raw pieces of a certificate a SignerInfo names it by. */
interface CertificateIds {
  issuer: Asn1;
  serial: Asn1;
}

function certificateIds(der: Buffer): CertificateIds {
  const f = forge();
  let cert: Asn1;
  try {
    cert = parseDer(der);
  } catch (error) {
    throw new SignatureEngineError('key', `the certificate cannot be read: ${(error as Error).message}`);
  }
  const tbs = (cert.value as Asn1[])[0]!;
  const fields = tbs.value as Asn1[];
  // tbsCertificate: [0] version (optional), serialNumber, signature, issuer, ...
  const at = fields[0]!.tagClass === f.asn1.Class.CONTEXT_SPECIFIC ? 1 : 0;
  return { serial: fields[at]!, issuer: fields[at + 2]! };
}

/** Parsed for embedding: bit strings stay opaque, so the re-encoding is byte for byte the input (a certificate's signature covers it). */
function fromDer(bytes: Buffer): Asn1 {
  const node = parseDer(bytes);
  if (!der(node).equals(bytes)) throw new SignatureEngineError('key', 'a certificate is not in DER (it would not survive re-encoding)');
  return node;
}

/** The signature algorithm (and the digest node:crypto is told) for a key. */
function signatureAlgorithm(key: KeyObject): { oid: string; nullParams: boolean; digest: string | null } {
  const type = key.asymmetricKeyType;
  if (type === 'rsa') return { oid: OID.sha256WithRSA, nullParams: true, digest: 'sha256' };
  if (type === 'ec') return { oid: OID.ecdsaWithSha256, nullParams: false, digest: 'sha256' };
  if (type === 'ed25519') return { oid: OID.ed25519, nullParams: false, digest: null };
  throw new SignatureEngineError('key', `keys of type ${type ?? 'unknown'} cannot sign PAdES here (RSA, EC and Ed25519 can)`);
}

/**
 * The signed attributes (DER SET, sorted as DER requires): what the signature value covers. Exported
 * for the tests and the time-stamp step, which needs the signature value.
 */
function signedAttributes(digest: Buffer, signerCert: Buffer): Asn1[] {
  const { asn1 } = forge();
  const T = asn1.Type;
  const U = asn1.Class.UNIVERSAL;
  const oid = (value: string) => asn1.create(U, T.OID, false, asn1.oidToDer(value).getBytes());
  const octets = (bytes: Buffer) => asn1.create(U, T.OCTETSTRING, false, bytes.toString('binary'));
  const attribute = (type: string, value: Asn1) => asn1.create(U, T.SEQUENCE, true, [oid(type), asn1.create(U, T.SET, true, [value])]);
  const ids = certificateIds(signerCert);
  // ESSCertIDv2 with the default hash algorithm (SHA-256, omitted) and issuerSerial (GeneralNames: [4] directoryName).
  const issuerSerial = asn1.create(U, T.SEQUENCE, true, [asn1.create(U, T.SEQUENCE, true, [asn1.create(asn1.Class.CONTEXT_SPECIFIC, 4, true, [ids.issuer])]), ids.serial]);
  const essCertIdV2 = asn1.create(U, T.SEQUENCE, true, [octets(createHash('sha256').update(signerCert).digest()), issuerSerial]);
  const signingCertificateV2 = asn1.create(U, T.SEQUENCE, true, [asn1.create(U, T.SEQUENCE, true, [essCertIdV2])]);
  const attributes = [attribute(OID.contentType, oid(OID.data)), attribute(OID.messageDigest, octets(digest)), attribute(OID.signingCertificateV2, signingCertificateV2)];
  // DER: the elements of a SET OF in the order of their encodings.
  return attributes
    .map((node) => ({ node, bytes: der(node) }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map((a) => a.node);
}

export interface SignedCms {
  /** The DER ContentInfo. */
  der: Buffer;
  /** The signature value (what an RFC 3161 signature time-stamp covers). */
  signatureValue: Buffer;
}

/**
 * Builds the CMS over `digest` (SHA-256 of the signed byte ranges). `timeStampToken` (DER
 * ContentInfo of an RFC 3161 token) goes in as an unsigned attribute when given; a token is over the
 * signature value, so a caller signs first (`buildCms` without one), has the value time-stamped, and
 * calls `attachTimeStamp`.
 */
export function buildCms(digest: Buffer, signer: CmsSigner): SignedCms {
  const signerCert = signer.chain[0];
  if (!signerCert) throw new SignatureEngineError('key', 'no signing certificate');
  const algorithm = signatureAlgorithm(signer.key);
  const attributes = signedAttributes(digest, signerCert);
  const { asn1 } = forge();
  const setBytes = der(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, attributes));
  let signatureValue: Buffer;
  try {
    signatureValue = cryptoSign(algorithm.digest, setBytes, signer.key);
  } catch (error) {
    throw new SignatureEngineError('key', `the private key cannot sign: ${(error as Error).message}`);
  }
  return { der: contentInfo(signer, attributes, signatureValue, undefined), signatureValue };
}

/** The same CMS with an RFC 3161 time-stamp token as unsigned attribute (B-T). */
export function attachTimeStamp(digest: Buffer, signer: CmsSigner, signatureValue: Buffer, timeStampToken: Buffer): Buffer {
  return contentInfo(signer, signedAttributes(digest, signer.chain[0]!), signatureValue, timeStampToken);
}

function contentInfo(signer: CmsSigner, attributes: Asn1[], signatureValue: Buffer, timeStampToken: Buffer | undefined): Buffer {
  const { asn1 } = forge();
  const T = asn1.Type;
  const U = asn1.Class.UNIVERSAL;
  const C = asn1.Class.CONTEXT_SPECIFIC;
  const oid = (value: string) => asn1.create(U, T.OID, false, asn1.oidToDer(value).getBytes());
  const integer = (n: number) => asn1.create(U, T.INTEGER, false, asn1.integerToDer(n).getBytes());
  const algorithm = signatureAlgorithm(signer.key);
  const sha256 = asn1.create(U, T.SEQUENCE, true, [oid(OID.sha256), asn1.create(U, T.NULL, false, '')]);
  const signatureAlg = asn1.create(U, T.SEQUENCE, true, [oid(algorithm.oid), ...(algorithm.nullParams ? [asn1.create(U, T.NULL, false, '')] : [])]);
  const ids = certificateIds(signer.chain[0]!);
  const signerInfo = asn1.create(U, T.SEQUENCE, true, [
    integer(1),
    asn1.create(U, T.SEQUENCE, true, [ids.issuer, ids.serial]),
    sha256,
    asn1.create(C, 0, true, attributes),
    signatureAlg,
    asn1.create(U, T.OCTETSTRING, false, signatureValue.toString('binary')),
    ...(timeStampToken ? [asn1.create(C, 1, true, [asn1.create(U, T.SEQUENCE, true, [oid(OID.timeStampToken), asn1.create(U, T.SET, true, [fromDer(timeStampToken)])])])] : []),
  ]);
  const signedData = asn1.create(U, T.SEQUENCE, true, [
    integer(1),
    asn1.create(U, T.SET, true, [sha256]),
    asn1.create(U, T.SEQUENCE, true, [oid(OID.data)]),
    asn1.create(
      C,
      0,
      true,
      signer.chain.map((cert) => fromDer(cert)),
    ),
    asn1.create(U, T.SET, true, [signerInfo]),
  ]);
  return der(asn1.create(U, T.SEQUENCE, true, [oid(OID.signedData), asn1.create(C, 0, true, [signedData])]));
}
