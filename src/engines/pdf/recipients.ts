import { X509Certificate, createPrivateKey } from 'node:crypto';
import forge from 'node-forge';
import { PdfEngineError } from './errors.js';

/**
 * The recipients of a certificate-encrypted PDF (public-key security handler, ISO 32000-1 §7.6.4).
 *
 * Each /Recipients string is a DER PKCS#7 (CMS) ContentInfo of type EnvelopedData. Its recipient
 * infos name a certificate (issuer + serial number) and carry the content-encryption key encrypted
 * with that certificate's public key; the encrypted content is the 20-byte seed of the file key plus
 * 4 bytes of permissions. Opening an envelope with a private key proves that the key pair can open
 * the document.
 *
 * node-forge parses the ASN.1 and does the RSA and symmetric decryption (Node's own RSA decryption
 * refuses PKCS#1 v1.5 padding since the Marvin mitigation, and OpenSSL 3 lacks RC2 by default).
 */

/** A recipient as `Document_Recipient` shows it, plus what matching and opening need. */
export interface Recipient {
  /** Issuer distinguished name, RFC 4514 string (most specific first: "CN=...,O=...,C=..."). */
  issuer: string;
  /** Serial number in decimal, as Java's BigInteger prints it. */
  serialNumber: string;
  /** The same serial in lower-case hex without leading zeros. */
  serialNumberHex: string;
}

interface KeyTransRecipient {
  recipient?: Recipient;
  issuerDer?: string;
  serial?: bigint;
  subjectKeyIdentifier?: string;
  keyEncryptionOid: string;
  keyEncryptionParams?: forge.asn1.Asn1;
  encryptedKey: string;
}

interface Envelope {
  recipients: KeyTransRecipient[];
  contentEncryptionOid: string;
  contentEncryptionParams?: forge.asn1.Asn1;
  encryptedContent: string;
}

const OID_ENVELOPED_DATA = '1.2.840.113549.1.7.3';
const OID_RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const OID_RSAES_OAEP = '1.2.840.113549.1.1.7';
const OID_MGF1 = '1.2.840.113549.1.1.8';

const NAME_KEYWORDS: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN',
  '2.5.4.4': 'SURNAME',
  '2.5.4.5': 'SERIALNUMBER',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.12': 'T',
  '2.5.4.42': 'GIVENNAME',
  '0.9.2342.19200300.100.1.1': 'UID',
  '0.9.2342.19200300.100.1.25': 'DC',
  '1.2.840.113549.1.9.1': 'EMAILADDRESS',
};

const HASHES: Readonly<Record<string, () => forge.md.MessageDigest>> = {
  '1.3.14.3.2.26': () => forge.md.sha1.create(),
  '2.16.840.1.101.3.4.2.1': () => forge.md.sha256.create(),
  '2.16.840.1.101.3.4.2.2': () => forge.md.sha384.create(),
  '2.16.840.1.101.3.4.2.3': () => forge.md.sha512.create(),
};

type Node = forge.asn1.Asn1;

function children(node: Node | undefined): Node[] {
  return node !== undefined && Array.isArray(node.value) ? node.value : [];
}

function bytesOf(node: Node | undefined): string {
  if (node === undefined) return '';
  // Constructed (BER) octet strings are a sequence of chunks.
  if (Array.isArray(node.value)) return node.value.map(bytesOf).join('');
  return node.value;
}

function oidOf(node: Node | undefined): string {
  if (node === undefined || node.type !== forge.asn1.Type.OID || Array.isArray(node.value)) return '';
  return forge.asn1.derToOid(node.value);
}

function isUniversal(node: Node | undefined, type: forge.asn1.Type): boolean {
  return node !== undefined && node.tagClass === forge.asn1.Class.UNIVERSAL && node.type === type;
}

function isContext(node: Node | undefined, tag: number): boolean {
  return node !== undefined && node.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && node.type === tag;
}

function integerOf(node: Node | undefined): bigint {
  const bytes = bytesOf(node);
  if (bytes.length === 0) return 0n;
  let value = 0n;
  for (let i = 0; i < bytes.length; i++) value = (value << 8n) | BigInt(bytes.charCodeAt(i));
  // Two's complement.
  if (bytes.charCodeAt(0) & 0x80) value -= 1n << BigInt(bytes.length * 8);
  return value;
}

function fromDer(bytes: string): Node {
  // parseAllBytes false: PDF writers pad strings; a trailing NUL must not make the envelope unreadable.
  return forge.asn1.fromDer(bytes, { strict: false, parseAllBytes: false, decodeBitStrings: false } as unknown as boolean);
}

function decodeDirectoryString(node: Node): string {
  const raw = bytesOf(node);
  switch (node.type) {
    case forge.asn1.Type.UTF8:
      return Buffer.from(raw, 'binary').toString('utf8');
    case forge.asn1.Type.BMPSTRING:
      return Buffer.from(raw.slice(0, raw.length & ~1), 'binary')
        .swap16()
        .toString('utf16le');
    case 28 as forge.asn1.Type: {
      // UniversalString (UTF-32BE)
      const buffer = Buffer.from(raw, 'binary');
      let text = '';
      for (let i = 0; i + 3 < buffer.length; i += 4) text += String.fromCodePoint(buffer.readUInt32BE(i));
      return text;
    }
    default:
      return Buffer.from(raw, 'binary').toString('latin1');
  }
}

function escapeRfc4514(value: string): string {
  let escaped = value.replace(/[\\,+"<>;=]/g, (c) => `\\${c}`).replace(/\0/g, '\\00');
  if (/^[ #]/.test(escaped)) escaped = `\\${escaped}`;
  if (/ $/.test(escaped)) escaped = `${escaped.slice(0, -1)}\\ `;
  return escaped;
}

/** A Name → RFC 4514 text: RDNs in reverse order of the encoding, multi-valued RDNs joined by "+". */
export function nameToString(name: Node): string {
  const rdns = children(name).map((set) =>
    children(set)
      .map((attribute) => {
        const [type, value] = children(attribute);
        const oid = oidOf(type);
        if (value === undefined) return `${oid}=`;
        const keyword = NAME_KEYWORDS[oid] ?? oid;
        return `${keyword}=${escapeRfc4514(decodeDirectoryString(value))}`;
      })
      .join('+'),
  );
  return rdns.reverse().join(',');
}

function recipientView(issuerNode: Node, serial: bigint): Recipient {
  const hex = (serial < 0n ? -serial : serial).toString(16);
  return { issuer: nameToString(issuerNode), serialNumber: serial.toString(10), serialNumberHex: serial < 0n ? `-${hex}` : hex };
}

function parseEnvelope(der: Buffer): Envelope {
  const contentInfo = fromDer(der.toString('binary'));
  const [contentType, explicitContent] = children(contentInfo);
  if (oidOf(contentType) !== OID_ENVELOPED_DATA) throw new Error('not a PKCS#7 EnvelopedData');
  const envelopedData = children(explicitContent)[0];
  const members = children(envelopedData);
  // version, [0] originatorInfo OPTIONAL, recipientInfos SET, encryptedContentInfo, [1] unprotectedAttrs OPTIONAL
  let index = 1;
  if (isContext(members[index], 0)) index++;
  const recipientInfos = members[index];
  const encryptedContentInfo = members[index + 1];
  if (!isUniversal(recipientInfos, forge.asn1.Type.SET) || !isUniversal(encryptedContentInfo, forge.asn1.Type.SEQUENCE)) {
    throw new Error('malformed EnvelopedData');
  }

  const recipients: KeyTransRecipient[] = [];
  for (const info of children(recipientInfos)) {
    // Only KeyTransRecipientInfo (a plain SEQUENCE); key agreement ([1]) and the others do not occur in PDFs we know.
    if (!isUniversal(info, forge.asn1.Type.SEQUENCE)) continue;
    const [, rid, keyEncryptionAlgorithm, encryptedKey] = children(info);
    const [algorithmOid, algorithmParams] = children(keyEncryptionAlgorithm);
    const entry: KeyTransRecipient = {
      keyEncryptionOid: oidOf(algorithmOid),
      encryptedKey: bytesOf(encryptedKey),
      ...(algorithmParams !== undefined && !isUniversal(algorithmParams, forge.asn1.Type.NULL) ? { keyEncryptionParams: algorithmParams } : {}),
    };
    if (isUniversal(rid, forge.asn1.Type.SEQUENCE)) {
      const [issuer, serialNode] = children(rid);
      if (issuer !== undefined) {
        const serial = integerOf(serialNode);
        entry.issuerDer = forge.asn1.toDer(issuer).getBytes();
        entry.serial = serial;
        entry.recipient = recipientView(issuer, serial);
      }
    } else if (isContext(rid, 0)) {
      entry.subjectKeyIdentifier = bytesOf(rid);
    }
    recipients.push(entry);
  }

  const [, contentAlgorithm, encryptedContent] = children(encryptedContentInfo);
  const [contentOid, contentParams] = children(contentAlgorithm);
  return {
    recipients,
    contentEncryptionOid: oidOf(contentOid),
    ...(contentParams === undefined ? {} : { contentEncryptionParams: contentParams }),
    encryptedContent: bytesOf(encryptedContent),
  };
}

function parseEnvelopes(envelopes: readonly Buffer[]): Envelope[] {
  const parsed: Envelope[] = [];
  for (const der of envelopes) {
    try {
      parsed.push(parseEnvelope(der));
    } catch {
      // An unreadable envelope names nobody; the others still count.
    }
  }
  return parsed;
}

/** The recipients named in the /Recipients envelopes (duplicates across envelopes removed). */
export function listRecipients(envelopes: readonly Buffer[]): Recipient[] {
  const seen = new Set<string>();
  const list: Recipient[] = [];
  for (const envelope of parseEnvelopes(envelopes)) {
    for (const { recipient } of envelope.recipients) {
      if (!recipient) continue;
      const key = `${recipient.issuer}\u0000${recipient.serialNumber}`;
      if (seen.has(key)) continue;
      seen.add(key);
      list.push(recipient);
    }
  }
  return list;
}

interface Certificate {
  issuerDer: string;
  issuerText: string;
  serial: bigint;
  subjectKeyIdentifier?: string;
}

function readCertificate(certificate: string | Buffer): Certificate {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(certificate);
  } catch (error) {
    throw new PdfEngineError('keyMaterialInvalid', 'The certificate cannot be read (expected PEM or DER X.509).', { cause: error });
  }
  const tbs = children(fromDer(x509.raw.toString('binary')))[0];
  const fields = children(tbs);
  const offset = isContext(fields[0], 0) ? 1 : 0; // [0] EXPLICIT version
  const serialNode = fields[offset];
  const issuer = fields[offset + 2];
  if (issuer === undefined) throw new PdfEngineError('keyMaterialInvalid', 'The certificate has no issuer.');
  const ski = subjectKeyIdentifierOf(fields.find((field) => isContext(field, 3)));
  return { issuerDer: forge.asn1.toDer(issuer).getBytes(), issuerText: nameToString(issuer), serial: integerOf(serialNode), ...(ski === undefined ? {} : { subjectKeyIdentifier: ski }) };
}

/** The subjectKeyIdentifier extension (2.5.29.14) inside a TBSCertificate's [3] extensions, if any. */
function subjectKeyIdentifierOf(extensions: Node | undefined): string | undefined {
  for (const extension of children(children(extensions)[0])) {
    const members = children(extension);
    if (oidOf(members[0]) !== '2.5.29.14') continue;
    try {
      return bytesOf(fromDer(bytesOf(members.at(-1))));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function readPrivateKey(privateKey: string | Buffer, password: string | undefined): forge.pki.rsa.PrivateKey {
  let pkcs1: string;
  try {
    const key = createPrivateKey({ key: privateKey, ...(password === undefined ? {} : { passphrase: password }) });
    if (key.asymmetricKeyType !== 'rsa') {
      throw new PdfEngineError('keyMaterialInvalid', `The private key is ${key.asymmetricKeyType ?? 'of unknown type'}; certificate-encrypted PDFs use RSA key transport.`);
    }
    pkcs1 = key.export({ type: 'pkcs1', format: 'pem' }).toString();
  } catch (error) {
    if (error instanceof PdfEngineError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const wrongPassword = /BAD_DECRYPT|bad decrypt|passphrase/i.test(`${code} ${(error as Error).message}`);
    throw new PdfEngineError('keyMaterialInvalid', wrongPassword ? 'The private key password is wrong or missing.' : 'The private key cannot be read (expected PEM or DER, PKCS#1 or PKCS#8).', {
      cause: error,
    });
  }
  return forge.pki.privateKeyFromPem(pkcs1);
}

function oaepOptions(params: Node | undefined): { md: forge.md.MessageDigest; mgf1: { md: forge.md.MessageDigest } } | undefined {
  let hash = '1.3.14.3.2.26';
  let mgfHash = '1.3.14.3.2.26';
  for (const member of children(params)) {
    const inner = children(member)[0];
    if (isContext(member, 0)) hash = oidOf(children(inner)[0]);
    if (isContext(member, 1)) {
      const [mgfOid, mgfParams] = children(inner);
      if (oidOf(mgfOid) !== OID_MGF1) return undefined;
      mgfHash = oidOf(children(mgfParams)[0]);
    }
    if (isContext(member, 2)) return undefined; // a label (pSourceAlgorithm) is not used with CMS in practice
  }
  const md = HASHES[hash];
  const mgfMd = HASHES[mgfHash];
  return md && mgfMd ? { md: md(), mgf1: { md: mgfMd() } } : undefined;
}

/** RSA-decrypts the content-encryption key; undefined when the key does not fit (bad padding). */
function decryptKey(entry: KeyTransRecipient, key: forge.pki.rsa.PrivateKey): string | undefined {
  try {
    if (entry.keyEncryptionOid === OID_RSA_ENCRYPTION) return key.decrypt(entry.encryptedKey, 'RSAES-PKCS1-V1_5');
    if (entry.keyEncryptionOid === OID_RSAES_OAEP) {
      const options = oaepOptions(entry.keyEncryptionParams);
      return options ? key.decrypt(entry.encryptedKey, 'RSA-OAEP', options) : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** RC2CBCParameter version → effective key bits (RFC 2268). */
function rc2Bits(version: bigint): number {
  if (version === 160n) return 40;
  if (version === 120n) return 64;
  if (version === 58n) return 128;
  return Number(version >= 256n ? version : 128n);
}

/**
 * Decrypts the envelope's content with the content-encryption key. Returns the plaintext, undefined
 * when the padding does not check out, or null when the cipher is not one we implement.
 */
function decryptContent(envelope: Envelope, contentKey: string): string | undefined | null {
  const params = envelope.contentEncryptionParams;
  const oid = envelope.contentEncryptionOid;
  const blockDecrypt = (algorithm: forge.cipher.Algorithm, keyLength: number): string | undefined => {
    if (contentKey.length !== keyLength) return undefined;
    const decipher = forge.cipher.createDecipher(algorithm, contentKey);
    decipher.start({ iv: bytesOf(params) });
    decipher.update(forge.util.createBuffer(envelope.encryptedContent));
    return decipher.finish() ? decipher.output.getBytes() : undefined;
  };
  switch (oid) {
    case '2.16.840.1.101.3.4.1.2':
      return blockDecrypt('AES-CBC', 16);
    case '2.16.840.1.101.3.4.1.22':
      return blockDecrypt('AES-CBC', 24);
    case '2.16.840.1.101.3.4.1.42':
      return blockDecrypt('AES-CBC', 32);
    case '1.2.840.113549.3.7':
      return blockDecrypt('3DES-CBC', 24);
    case '1.3.14.3.2.7':
      return blockDecrypt('DES-CBC', 8);
    case '1.2.840.113549.3.2': {
      // RC2-CBC
      let iv: string;
      let effectiveBits = contentKey.length * 8;
      if (isUniversal(params, forge.asn1.Type.SEQUENCE)) {
        const [first, second] = children(params);
        if (second !== undefined) {
          effectiveBits = rc2Bits(integerOf(first));
          iv = bytesOf(second);
        } else {
          iv = bytesOf(first);
        }
      } else {
        iv = bytesOf(params);
      }
      const decipher = forge.rc2.createDecryptionCipher(contentKey, effectiveBits);
      decipher.start(iv);
      decipher.update(forge.util.createBuffer(envelope.encryptedContent));
      return decipher.finish() ? decipher.output.getBytes() : undefined;
    }
    default:
      return null;
  }
}

export interface EnvelopeOpening {
  /** A recipient info names this certificate (issuer + serial, or subject key identifier). */
  recipientFound: boolean;
  /** The private key decrypted that recipient's key (and the content, where the cipher is implemented). */
  opened: boolean;
  /** Permission bits from the envelope content (4 bytes after the 20-byte seed), when it was decrypted. */
  permissionBits?: number;
}

/**
 * Tries to open one of the envelopes with the key pair: finds the recipient info issued to the
 * certificate and decrypts its key with the private key, then the content with that key.
 */
export function openEnvelopes(envelopes: readonly Buffer[], certificate: string | Buffer, privateKey: string | Buffer, privateKeyPassword?: string): EnvelopeOpening {
  const cert = readCertificate(certificate);
  const key = readPrivateKey(privateKey, privateKeyPassword);
  let recipientFound = false;
  for (const envelope of parseEnvelopes(envelopes)) {
    for (const entry of envelope.recipients) {
      // Issuers match by encoding, or by value when one side used another string type (PrintableString vs UTF8String).
      const sameIssuer = entry.issuerDer === cert.issuerDer || (entry.recipient !== undefined && entry.recipient.issuer.toLowerCase() === cert.issuerText.toLowerCase());
      const matches =
        (entry.issuerDer !== undefined && sameIssuer && entry.serial === cert.serial) || (entry.subjectKeyIdentifier !== undefined && entry.subjectKeyIdentifier === cert.subjectKeyIdentifier);
      if (!matches) continue;
      recipientFound = true;
      const contentKey = decryptKey(entry, key);
      if (contentKey === undefined) continue;
      const content = decryptContent(envelope, contentKey);
      if (content === undefined) continue; // wrong key that happened to pass the RSA padding check
      if (content === null) return { recipientFound, opened: true };
      if (content.length < 20) continue;
      const permissionBits = content.length >= 24 ? Buffer.from(content.slice(20, 24), 'binary').readInt32BE(0) : undefined;
      return { recipientFound, opened: true, ...(permissionBits === undefined ? {} : { permissionBits }) };
    }
  }
  return { recipientFound, opened: false };
}
