import { createHash, randomBytes, verify as cryptoVerify, X509Certificate, type KeyObject } from 'node:crypto';
import type { AddressPolicy } from '../net/address-policy.js';
import { FetchError, fetchSmall } from '../net/fetch-small.js';
import { type Asn1, build, bytesOf, children, der, isContext, oidOf, parseDer, timeOf } from './asn1.js';
import { SignatureEngineError } from './errors.js';

/**
 * The validation data of a PAdES B-LT signature (ETSI EN 319 142-1 §5.4): for every certificate of
 * the signer's chain and of the time-stamp authority's, its revocation status from its issuer's OCSP
 * responder (RFC 6960, from the certificate's Authority Information Access) and/or its issuer's CRL
 * (RFC 5280, from its CRL Distribution Points), fetched through the outbound address policy like every
 * other fetch. Each answer is checked before it is embedded: signed by the issuer (or by a responder the
 * issuer delegated to, extended key usage OCSPSigning), about this certificate, current, and (OCSP) with
 * our nonce when the responder echoes one. A revoked certificate fails the call; one whose status cannot
 * be established fails it too when `required` (the default), else it goes without.
 *
 * Trust anchors (self-signed certificates) have no status to fetch. Missing issuers are fetched from the
 * certificate's caIssuers address.
 */

export type RevocationCheck = 'ocsp' | 'crl' | 'both';

export interface RevocationOptions {
  /** ocsp: OCSP, CRL for a certificate naming no responder; crl: the reverse; both: every source a certificate names. */
  check: RevocationCheck;
  /** A certificate whose status cannot be established fails the call (else it is left without). */
  required: boolean;
  /** Per fetch. */
  timeoutMs: number;
  policy: AddressPolicy;
}

export interface ValidationData {
  /** Every certificate seen: the chains, fetched issuers, OCSP responders' certificates (DER). */
  certs: Buffer[];
  /** OCSPResponse (DER), one per checked certificate that has one. */
  ocsps: Buffer[];
  /** CertificateList (DER). */
  crls: Buffer[];
  /** Certificates left without a status (only when not `required`): subject and why. */
  undetermined: string[];
}

const OID = {
  aia: '1.3.6.1.5.5.7.1.1',
  crlDistributionPoints: '2.5.29.31',
  ocspMethod: '1.3.6.1.5.5.7.48.1',
  caIssuersMethod: '1.3.6.1.5.5.7.48.2',
  ocspBasic: '1.3.6.1.5.5.7.48.1.1',
  ocspNonce: '1.3.6.1.5.5.7.48.1.2',
  ocspSigning: '1.3.6.1.5.5.7.3.9',
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;

/** Signature algorithms of OCSP responses and CRLs → node's digest (null: none, Ed25519). */
const SIGNATURE_DIGESTS: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

const MAX_OCSP_BYTES = 64 * 1024;
const MAX_CRL_BYTES = 8 * 1024 * 1024;
const MAX_CERT_BYTES = 64 * 1024;
/** Clock difference allowed between us and a responder. */
const SKEW_MS = 5 * 60 * 1000;
/** Certificates followed in all (chains, fetched issuers): a loop of caIssuers links ends here. */
const MAX_CERTIFICATES = 32;

interface Certificate {
  der: Buffer;
  x509: X509Certificate;
  label: string;
  serial: Buffer;
  issuerName: Buffer;
  subjectName: Buffer;
  /** The subjectPublicKey BIT STRING's bits (what an OCSP CertID hashes). */
  publicKeyBits: Buffer;
  ocspUrls: string[];
  crlUrls: string[];
  caIssuerUrls: string[];
}

function readCertificate(bytes: Buffer): Certificate {
  let x509: X509Certificate;
  let fields: Asn1[];
  try {
    x509 = new X509Certificate(bytes);
    fields = children(children(parseDer(bytes))[0]);
  } catch (error) {
    throw new SignatureEngineError('key', `a certificate of the chain cannot be read: ${(error as Error).message}`);
  }
  const at = isContext(fields[0], 0) ? 1 : 0;
  const spki = children(fields[at + 5]);
  const urls = { ocsp: [] as string[], crl: [] as string[], caIssuers: [] as string[] };
  const extensions = children(children(fields.find((node) => isContext(node, 3)))[0]);
  for (const extension of extensions) {
    const parts = children(extension);
    const id = oidOf(parts[0]);
    const value = bytesOf(parts.at(-1));
    if (id === OID.aia) {
      for (const description of children(parseDer(value))) {
        const [method, location] = children(description);
        const target = oidOf(method) === OID.ocspMethod ? urls.ocsp : oidOf(method) === OID.caIssuersMethod ? urls.caIssuers : undefined;
        if (target && isContext(location, 6)) target.push(bytesOf(location).toString('latin1'));
      }
    } else if (id === OID.crlDistributionPoints) {
      collectUris(parseDer(value), urls.crl, 0);
    }
  }
  const http = (list: string[]) => list.filter((url) => /^https?:\/\//i.test(url));
  return {
    der: bytes,
    x509,
    label: `"${x509.subject.replace(/\n/g, ', ')}" (serial ${x509.serialNumber})`,
    serial: bytesOf(fields[at]),
    issuerName: der(fields[at + 2]!),
    subjectName: der(fields[at + 4]!),
    publicKeyBits: bytesOf(spki[1]).subarray(1),
    ocspUrls: http(urls.ocsp),
    crlUrls: http(urls.crl),
    caIssuerUrls: http(urls.caIssuers),
  };
}

/** Every uniformResourceIdentifier ([6]) below a node (a CRL distribution point's full names). */
function collectUris(node: Asn1, into: string[], depth: number): void {
  if (depth > 8) return;
  if (isContext(node, 6) && typeof node.value === 'string') into.push(Buffer.from(node.value, 'binary').toString('latin1'));
  for (const child of children(node)) collectUris(child, into, depth + 1);
}

function selfSigned(cert: Certificate): boolean {
  return cert.x509.checkIssued(cert.x509) && cert.x509.verify(cert.x509.publicKey);
}

function issuedBy(cert: Certificate, issuer: Certificate): boolean {
  return cert.x509.checkIssued(issuer.x509) && cert.x509.verify(issuer.x509.publicKey);
}

/** Whether `signature` (a BIT STRING node) by `key` over `signed` verifies with the algorithm `algorithm` (an AlgorithmIdentifier node) names. */
function verifies(signed: Asn1, algorithm: Asn1 | undefined, signature: Asn1 | undefined, key: KeyObject): boolean {
  const digest = SIGNATURE_DIGESTS[oidOf(children(algorithm)[0])];
  if (digest === undefined) return false;
  try {
    return cryptoVerify(digest, der(signed), key, bytesOf(signature).subarray(1));
  } catch {
    return false;
  }
}

/** The revocation status's failures: a revoked certificate, or one whose status cannot be established. */
class Undetermined extends Error {}

export async function collectValidationData(chain: readonly Buffer[], options: RevocationOptions): Promise<ValidationData> {
  const data: ValidationData = { certs: [], ocsps: [], crls: [], undetermined: [] };
  const pool: Certificate[] = [];
  const known = new Set<string>();
  const add = (bytes: Buffer): Certificate | undefined => {
    const key = createHash('sha256').update(bytes).digest('hex');
    if (known.has(key)) return pool.find((cert) => cert.der.equals(bytes));
    if (pool.length >= MAX_CERTIFICATES) throw new SignatureEngineError('revocation', `more than ${MAX_CERTIFICATES} certificates to validate`);
    known.add(key);
    const cert = readCertificate(bytes);
    pool.push(cert);
    return cert;
  };
  for (const bytes of chain) add(bytes);
  // First every certificate's issuer (the pool grows while it is walked: fetched issuers are checked in turn)…
  const pairs: { cert: Certificate; issuer: Certificate | Undetermined }[] = [];
  for (let i = 0; i < pool.length && i < MAX_CERTIFICATES; i++) {
    const cert = pool[i]!;
    if (selfSigned(cert)) continue;
    try {
      pairs.push({ cert, issuer: pool.find((candidate) => candidate !== cert && issuedBy(cert, candidate)) ?? (await fetchIssuer(cert, options, add)) });
    } catch (error) {
      if (!(error instanceof Undetermined)) throw error;
      pairs.push({ cert, issuer: error });
    }
  }
  // …then their statuses, asked at the same time (a call waits for the slowest responder, not for their sum).
  // A CRL serves every certificate of its issuer: fetched once per call (it may change between downloads).
  const lists = new Map<string, Promise<Buffer>>();
  const results = await Promise.allSettled(pairs.map(({ cert, issuer }) => (issuer instanceof Undetermined ? Promise.reject(issuer) : status(cert, issuer, options, lists))));
  // A revocation wins over anything else; then the first certificate (in chain order) without a status.
  const refusal = results.find((result): result is PromiseRejectedResult => result.status === 'rejected' && !(result.reason instanceof Undetermined));
  if (refusal) throw refusal.reason;
  const responders: Buffer[] = [];
  results.forEach((result, i) => {
    const { cert } = pairs[i]!;
    if (result.status === 'rejected') {
      const reason = (result.reason as Undetermined).message;
      if (options.required) throw new SignatureEngineError('revocation', `the revocation status of the certificate ${cert.label} cannot be established: ${reason}`);
      data.undetermined.push(`${cert.label}: ${reason}`);
      return;
    }
    data.ocsps.push(...result.value.ocsps);
    for (const list of result.value.crls) if (!data.crls.some((known) => known.equals(list))) data.crls.push(list);
    responders.push(...result.value.responders);
  });
  // Responders' certificates join the output only (a delegated responder carries ocsp-nocheck).
  for (const bytes of responders) add(bytes);
  data.certs = pool.map((cert) => cert.der);
  return data;
}

/** The issuer from the certificate's caIssuers address (DER or PEM), added to the pool. */
async function fetchIssuer(cert: Certificate, options: RevocationOptions, add: (bytes: Buffer) => Certificate | undefined): Promise<Certificate> {
  if (cert.caIssuerUrls.length === 0) throw new Undetermined('its issuer is not in the chain, and it names no caIssuers address to fetch it from');
  let reason = '';
  for (const url of cert.caIssuerUrls) {
    try {
      const body = await get(url, MAX_CERT_BYTES, options);
      const issuer = add(pemOrDer(body, 'CERTIFICATE'));
      if (issuer && issuedBy(cert, issuer)) return issuer;
      reason = `${url} holds another certificate than its issuer`;
    } catch (error) {
      if (!(error instanceof Undetermined) && !(error instanceof SignatureEngineError)) throw error;
      reason = error.message;
    }
  }
  throw new Undetermined(`its issuer cannot be fetched: ${reason}`);
}

/** One certificate's OCSP responses, CRLs and responders' certificates; rejects with Undetermined or a revocation. */
async function status(cert: Certificate, issuer: Certificate, options: RevocationOptions, lists: Map<string, Promise<Buffer>>): Promise<{ ocsps: Buffer[]; crls: Buffer[]; responders: Buffer[] }> {
  const found = { ocsps: [] as Buffer[], crls: [] as Buffer[], responders: [] as Buffer[] };
  const ocsp = cert.ocspUrls.length > 0;
  const crl = cert.crlUrls.length > 0;
  const sources: ('ocsp' | 'crl')[] =
    options.check === 'both'
      ? [...(ocsp ? ['ocsp' as const] : []), ...(crl ? ['crl' as const] : [])]
      : options.check === 'ocsp'
        ? ocsp
          ? ['ocsp']
          : crl
            ? ['crl']
            : []
        : crl
          ? ['crl']
          : ocsp
            ? ['ocsp']
            : [];
  if (sources.length === 0) throw new Undetermined('it names neither an OCSP responder nor a CRL distribution point (http)');
  for (const source of sources) {
    if (source === 'ocsp') {
      const answer = await firstAnswer(cert.ocspUrls, (url) => ocspStatus(cert, issuer, url, options));
      found.ocsps.push(answer.response);
      found.responders.push(...answer.certificates);
    } else {
      found.crls.push(await firstAnswer(cert.crlUrls, (url) => crlStatus(cert, issuer, url, options, lists)));
    }
  }
  return found;
}

/** The first address that gives a usable answer; a revocation found at any one ends the search. */
async function firstAnswer<T>(urls: string[], ask: (url: string) => Promise<T>): Promise<T> {
  let last: Error | undefined;
  for (const url of urls) {
    try {
      return await ask(url);
    } catch (error) {
      if (!(error instanceof Undetermined)) throw error;
      last = error;
    }
  }
  throw last ?? new Undetermined('no address to ask');
}

function revoked(cert: Certificate, when: Date | undefined, source: string): SignatureEngineError {
  return new SignatureEngineError('revoked', `the certificate ${cert.label} is revoked${when ? ` since ${when.toISOString()}` : ''} (${source})`);
}

async function get(url: string, maxBytes: number, options: RevocationOptions, post?: { body: Buffer; headers: Record<string, string> }): Promise<Buffer> {
  try {
    return await fetchSmall({ url, policy: options.policy, maxBytes, timeoutMs: options.timeoutMs, ...(post ? { post } : {}) });
  } catch (error) {
    if (error instanceof FetchError) throw new Undetermined(error.kind === 'refused' ? `${url} is not allowed: ${error.message}` : error.message);
    throw error;
  }
}

function pemOrDer(body: Buffer, label: string): Buffer {
  const text = body.subarray(0, 64).toString('latin1');
  if (!text.includes('-----BEGIN')) return body;
  const match = new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`).exec(body.toString('latin1'));
  if (!match) throw new Undetermined(`the answer is PEM without a ${label}`);
  return Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64');
}

// ----- OCSP (RFC 6960) -----

/** The DER OCSPRequest for one certificate (SHA-1 CertID, as every responder understands), with a nonce. */
export function ocspRequest(cert: { issuerName: Buffer; publicKeyBits: Buffer; serial: Buffer }, nonce: Buffer): Buffer {
  const b = build();
  const certId = b.sequence([
    b.sequence([b.oid(OID.sha1), b.nullValue()]),
    b.octets(createHash('sha1').update(cert.issuerName).digest()),
    b.octets(createHash('sha1').update(cert.publicKeyBits).digest()),
    b.integerBytes(cert.serial),
  ]);
  const nonceExtension = b.sequence([b.oid(OID.ocspNonce), b.octets(der(b.octets(nonce)))]);
  return der(b.sequence([b.sequence([b.sequence([b.sequence([certId])]), b.context(2, [b.sequence([nonceExtension])])])]));
}

async function ocspStatus(cert: Certificate, issuer: Certificate, url: string, options: RevocationOptions): Promise<{ response: Buffer; certificates: Buffer[] }> {
  const nonce = randomBytes(16);
  const body = ocspRequest({ issuerName: cert.issuerName, publicKeyBits: issuer.publicKeyBits, serial: cert.serial }, nonce);
  const response = await get(url, MAX_OCSP_BYTES, options, { body, headers: { 'content-type': 'application/ocsp-request', accept: 'application/ocsp-response' } });
  const answer = checkOcspResponse(response, cert, issuer, nonce, url);
  if (answer.status === 'revoked') throw revoked(cert, answer.revokedAt, `OCSP responder ${url}`);
  return { response, certificates: answer.certificates };
}

type OcspAnswer = { status: 'good'; certificates: Buffer[] } | { status: 'revoked'; revokedAt: Date | undefined; certificates: Buffer[] };

function checkOcspResponse(response: Buffer, cert: Certificate, issuer: Certificate, nonce: Buffer, url: string): OcspAnswer {
  let root: Asn1[];
  try {
    root = children(parseDer(response));
  } catch {
    throw new Undetermined(`${url} answered something that is not an OCSP response`);
  }
  const responseStatus = bytesOf(root[0])[0];
  if (responseStatus !== 0) throw new Undetermined(`${url} refused the request (OCSP responseStatus ${responseStatus ?? '?'})`);
  const responseBytes = children(children(root[1])[0]);
  if (oidOf(responseBytes[0]) !== OID.ocspBasic) throw new Undetermined(`${url} answered with a response type other than id-pkix-ocsp-basic`);
  let basic: Asn1[];
  try {
    basic = children(parseDer(bytesOf(responseBytes[1])));
  } catch {
    throw new Undetermined(`${url} answered a BasicOCSPResponse that cannot be read`);
  }
  const [tbs, algorithm, signature, certsNode] = basic;
  if (!tbs) throw new Undetermined(`${url} answered an empty BasicOCSPResponse`);
  const certificates = children(children(certsNode)[0]).map((node) => der(node));

  // Who signed it: the issuer itself, or a responder certificate the issuer delegated to.
  let signer: Certificate | undefined;
  if (verifies(tbs, algorithm, signature, issuer.x509.publicKey)) signer = issuer;
  for (const bytes of certificates) {
    if (signer) break;
    let candidate: Certificate;
    try {
      candidate = readCertificate(bytes);
    } catch {
      continue;
    }
    if (!verifies(tbs, algorithm, signature, candidate.x509.publicKey)) continue;
    if (!issuedBy(candidate, issuer)) throw new Undetermined(`${url} answered with a responder certificate its issuer did not issue`);
    if (!(candidate.x509.keyUsage ?? []).includes(OID.ocspSigning)) throw new Undetermined(`${url}'s responder certificate is not for OCSP signing`);
    const now = Date.now();
    if (new Date(candidate.x509.validFrom).getTime() > now + SKEW_MS || new Date(candidate.x509.validTo).getTime() < now - SKEW_MS)
      throw new Undetermined(`${url}'s responder certificate is not valid now`);
    signer = candidate;
  }
  if (!signer) throw new Undetermined(`${url}'s answer is not signed by the issuer or a responder it delegated to`);

  const data = children(tbs);
  const at = isContext(data[0], 0) ? 1 : 0;
  const responses = children(data[at + 2]);
  const extensions = children(children(data.find((node, i) => i > at + 2 && isContext(node, 1)))[0]);
  const echoed = extensions.find((extension) => oidOf(children(extension)[0]) === OID.ocspNonce);
  if (echoed && !bytesOf(children(echoed).at(-1)).equals(der(build().octets(nonce)))) throw new Undetermined(`${url} answered another request (nonce)`);

  for (const single of responses) {
    const [certId, certStatus, thisUpdateNode, ...rest] = children(single);
    const [hashAlgorithm, , keyHash, serial] = children(certId);
    const hash = oidOf(children(hashAlgorithm)[0]) === OID.sha256 ? 'sha256' : oidOf(children(hashAlgorithm)[0]) === OID.sha1 ? 'sha1' : undefined;
    if (!hash || !bytesOf(serial).equals(cert.serial) || !bytesOf(keyHash).equals(createHash(hash).update(issuer.publicKeyBits).digest())) continue;
    const now = Date.now();
    const thisUpdate = timeOf(thisUpdateNode);
    const nextUpdate = timeOf(children(rest.find((node) => isContext(node, 0)))[0]);
    if (!thisUpdate || thisUpdate.getTime() > now + SKEW_MS) throw new Undetermined(`${url}'s answer is not current (thisUpdate)`);
    if (nextUpdate && nextUpdate.getTime() < now - SKEW_MS) throw new Undetermined(`${url}'s answer has expired (nextUpdate ${nextUpdate.toISOString()})`);
    if (isContext(certStatus, 0)) return { status: 'good', certificates };
    if (isContext(certStatus, 1)) return { status: 'revoked', revokedAt: timeOf(children(certStatus)[0]), certificates };
    throw new Undetermined(`${url} does not know the certificate (status unknown)`);
  }
  throw new Undetermined(`${url}'s answer is about other certificates`);
}

// ----- CRL (RFC 5280 §5) -----

async function crlStatus(cert: Certificate, issuer: Certificate, url: string, options: RevocationOptions, lists: Map<string, Promise<Buffer>>): Promise<Buffer> {
  let download = lists.get(url);
  if (!download) {
    download = get(url, MAX_CRL_BYTES, options).then((body) => pemOrDer(body, 'X509 CRL'));
    lists.set(url, download);
  }
  const list = await download;
  let root: Asn1[];
  try {
    root = children(parseDer(list));
  } catch {
    throw new Undetermined(`${url} is not a CRL`);
  }
  const [tbs, algorithm, signature] = root;
  if (!tbs || !verifies(tbs, algorithm, signature, issuer.x509.publicKey)) throw new Undetermined(`the CRL at ${url} is not signed by the certificate's issuer`);
  const fields = children(tbs);
  const { asn1 } = build();
  const at = fields[0]?.tagClass === asn1.Class.UNIVERSAL && fields[0].type === asn1.Type.INTEGER ? 1 : 0;
  if (!der(fields[at + 1]!).equals(cert.issuerName)) throw new Undetermined(`the CRL at ${url} is another issuer's`);
  const now = Date.now();
  const thisUpdate = timeOf(fields[at + 2]);
  const nextUpdate = timeOf(fields[at + 3]);
  if (!thisUpdate || thisUpdate.getTime() > now + SKEW_MS) throw new Undetermined(`the CRL at ${url} is not current (thisUpdate)`);
  if (nextUpdate && nextUpdate.getTime() < now - SKEW_MS) throw new Undetermined(`the CRL at ${url} has expired (nextUpdate ${nextUpdate.toISOString()})`);
  const entries = fields.slice(at + 3).find((node) => node.tagClass === asn1.Class.UNIVERSAL && node.type === asn1.Type.SEQUENCE);
  for (const entry of children(entries)) {
    const [serial, date] = children(entry);
    if (bytesOf(serial).equals(cert.serial)) throw revoked(cert, timeOf(date), `CRL ${url}`);
  }
  return list;
}
