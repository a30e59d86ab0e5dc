import { createCipheriv, randomBytes, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { PdfSecurityError } from './errors.js';

/**
 * The /Recipients strings of the public-key security handler (ISO 32000-1 §7.6.4): for each
 * recipient a DER PKCS#7 (CMS, RFC 5652) ContentInfo of type EnvelopedData whose content is the
 * 20-byte seed of the file key followed by the recipient's 4 permission bytes (big-endian P).
 *
 * The envelope is built by hand from ASN.1 (node-forge's encoder) because its recipient info must
 * name the certificate by the issuer exactly as the certificate encodes it (readers match the DER),
 * which forge's own PKCS#7 writer re-encodes from parsed attributes. Key transport is RSA PKCS#1 v1.5
 * (what Acrobat and PDFBox read), content encryption AES-256-CBC (RFC 3565).
 */

const OID_ENVELOPED_DATA = '1.2.840.113549.1.7.3';
const OID_DATA = '1.2.840.113549.1.7.1';
const OID_RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const OID_AES256_CBC = '2.16.840.1.101.3.4.1.42';

const asn1 = forge.asn1;
type Node = forge.asn1.Asn1;

/** A recipient's certificate, read once: what the envelope needs of it. */
export interface RecipientCertificate {
  /** DER of the issuer Name, as in the certificate. */
  issuerDer: string;
  /** DER of the serialNumber INTEGER, as in the certificate. */
  serialDer: string;
  publicKey: forge.pki.rsa.PublicKey;
}

/**
 * Reads a PEM or DER X.509 certificate holding an RSA key (the only key transport PDF readers know).
 * Failures are `invalidOption` errors whose message the caller prefixes with the member's name.
 */
export function readRecipientCertificate(bytes: Buffer): RecipientCertificate {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(bytes);
  } catch (error) {
    throw new PdfSecurityError('invalidOption', 'the certificate cannot be read (expected an X.509 certificate, PEM or DER)', { cause: error });
  }
  if (x509.publicKey.asymmetricKeyType !== 'rsa') {
    throw new PdfSecurityError('invalidOption', `the certificate holds a ${x509.publicKey.asymmetricKeyType ?? 'non-RSA'} key; certificate encryption of PDFs needs an RSA key (key transport)`);
  }
  const certificate = asn1.fromDer(x509.raw.toString('binary'));
  const tbs = children(certificate)[0];
  const fields = children(tbs);
  // [0] EXPLICIT version is optional (absent in v1 certificates).
  const offset = fields[0]?.tagClass === asn1.Class.CONTEXT_SPECIFIC && fields[0].type === 0 ? 1 : 0;
  const serial = fields[offset];
  const issuer = fields[offset + 2];
  if (serial === undefined || issuer === undefined) {
    throw new PdfSecurityError('invalidOption', 'the certificate has no issuer or serial number');
  }
  const spki = x509.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return {
    issuerDer: asn1.toDer(issuer).getBytes(),
    serialDer: asn1.toDer(serial).getBytes(),
    publicKey: forge.pki.publicKeyFromPem(spki) as forge.pki.rsa.PublicKey,
  };
}

/** One EnvelopedData for one recipient: `seed` (20 bytes) + permission word, DER-encoded. */
export function recipientEnvelope(recipient: RecipientCertificate, seed: Buffer, permissions: number): Buffer {
  const content = Buffer.alloc(seed.length + 4);
  seed.copy(content, 0);
  content.writeInt32BE(permissions | 0, seed.length);

  const contentKey = randomBytes(32);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', contentKey, iv);
  const encryptedContent = Buffer.concat([cipher.update(content), cipher.final()]);
  const encryptedKey = recipient.publicKey.encrypt(contentKey.toString('binary'), 'RSAES-PKCS1-V1_5');

  const recipientInfo = seq([
    int(0),
    seq([asn1.fromDer(recipient.issuerDer), asn1.fromDer(recipient.serialDer)]),
    seq([oid(OID_RSA_ENCRYPTION), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, '')]),
    octets(encryptedKey),
  ]);
  const encryptedContentInfo = seq([
    oid(OID_DATA),
    seq([oid(OID_AES256_CBC), octets(iv.toString('binary'))]),
    // [0] IMPLICIT OCTET STRING
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, false, encryptedContent.toString('binary')),
  ]);
  const envelopedData = seq([int(0), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, [recipientInfo]), encryptedContentInfo]);
  const contentInfo = seq([oid(OID_ENVELOPED_DATA), asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [envelopedData])]);
  return Buffer.from(asn1.toDer(contentInfo).getBytes(), 'binary');
}

function children(node: Node | undefined): Node[] {
  return node !== undefined && Array.isArray(node.value) ? node.value : [];
}

function seq(members: Node[]): Node {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, members);
}

function oid(value: string): Node {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(value).getBytes());
}

function int(value: number): Node {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, String.fromCharCode(value));
}

function octets(bytes: string): Node {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, bytes);
}
