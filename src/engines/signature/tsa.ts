import { createHash, randomBytes } from 'node:crypto';
import type { AddressPolicy } from '../net/address-policy.js';
import { FetchError, fetchSmall } from '../net/fetch-small.js';
import { type Asn1, children, der, forge, parseDer as parse } from './asn1.js';
import { SignatureEngineError } from './errors.js';

/**
 * An RFC 3161 time-stamp client: asks the configured authority for a token over `data` (the
 * signature value, for a PAdES B-T signature-time-stamp), through the server's outbound address policy
 * (the connection goes only to the addresses the policy judged), and checks that the token answers
 * this request (status granted, same message imprint, same nonce) before it is embedded.
 */

export type TsaHash = 'SHA-256' | 'SHA-384' | 'SHA-512';

const HASHES: Record<TsaHash, { node: string; oid: string }> = {
  'SHA-256': { node: 'sha256', oid: '2.16.840.1.101.3.4.2.1' },
  'SHA-384': { node: 'sha384', oid: '2.16.840.1.101.3.4.2.2' },
  'SHA-512': { node: 'sha512', oid: '2.16.840.1.101.3.4.2.3' },
};

export interface TsaOptions {
  url: string;
  hash: TsaHash;
  user: string;
  password: string;
  timeoutMs: number;
  policy: AddressPolicy;
}

/** A token is a few KB; an answer past this is refused. */
const MAX_RESPONSE_BYTES = 256 * 1024;

/** node's name of a TSA hash (what a document time-stamp hashes its byte ranges with). */
export function tsaDigest(hash: TsaHash): 'sha256' | 'sha384' | 'sha512' {
  return HASHES[hash].node as 'sha256' | 'sha384' | 'sha512';
}

/** The DER TimeStampReq for an imprint (`hash` of the data, made by the caller), and the nonce it carries. */
function timeStampRequest(imprint: Buffer, hash: TsaHash): { request: Buffer; imprint: Buffer; nonce: Buffer } {
  const { asn1 } = forge();
  const T = asn1.Type;
  const U = asn1.Class.UNIVERSAL;
  const nonce = randomBytes(8);
  nonce[0] = (nonce[0]! & 0x7f) | 0x01; // positive, and no leading zero byte a DER INTEGER would drop
  const request = asn1.create(U, T.SEQUENCE, true, [
    asn1.create(U, T.INTEGER, false, asn1.integerToDer(1).getBytes()),
    asn1.create(U, T.SEQUENCE, true, [
      asn1.create(U, T.SEQUENCE, true, [asn1.create(U, T.OID, false, asn1.oidToDer(HASHES[hash].oid).getBytes()), asn1.create(U, T.NULL, false, '')]),
      asn1.create(U, T.OCTETSTRING, false, imprint.toString('binary')),
    ]),
    asn1.create(U, T.INTEGER, false, nonce.toString('binary')),
    asn1.create(U, T.BOOLEAN, false, String.fromCharCode(0xff)),
  ]);
  return { request: der(request), imprint, nonce };
}

/** The token (DER ContentInfo) of a TimeStampResp, checked against the request's imprint and nonce. */
export function tokenOfResponse(response: Buffer, imprint: Buffer, nonce: Buffer): Buffer {
  let root: Asn1;
  try {
    root = parse(response);
  } catch {
    throw new SignatureEngineError('timestamp', 'the time-stamp authority answered something that is not a TimeStampResp');
  }
  const [statusInfo, token] = root.value as Asn1[];
  const status = statusInfo ? (statusInfo.value as Asn1[])[0] : undefined;
  const code = status ? forge().asn1.derToInteger(forge().util.createBuffer(status.value as string)) : -1;
  if (code !== 0 && code !== 1) throw new SignatureEngineError('timestamp', `the time-stamp authority refused the request (PKIStatus ${code})`);
  if (!token) throw new SignatureEngineError('timestamp', 'the time-stamp authority answered without a token');
  const tokenDer = der(token);
  // ContentInfo → [0] SignedData → encapContentInfo → [0] OCTET STRING (TSTInfo).
  try {
    const signedData = ((token.value as Asn1[])[1]!.value as Asn1[])[0]!;
    const encap = (signedData.value as Asn1[])[2]!;
    const octets = ((encap.value as Asn1[])[1]!.value as Asn1[])[0]!;
    const tstInfoBytes = Buffer.from(typeof octets.value === 'string' ? octets.value : (octets.value as Asn1[]).map((c) => c.value as string).join(''), 'binary');
    const tstInfo = parse(tstInfoBytes).value as Asn1[];
    const messageImprint = (tstInfo[2]!.value as Asn1[])[1]!;
    if (!Buffer.from(messageImprint.value as string, 'binary').equals(imprint)) throw new SignatureEngineError('timestamp', 'the time-stamp token is over another value than the one asked for');
    const nonceNode = tstInfo.slice(5).find((n) => n.tagClass === 0 && n.type === forge().asn1.Type.INTEGER);
    if (nonceNode && !Buffer.from(nonceNode.value as string, 'binary').equals(nonce)) throw new SignatureEngineError('timestamp', 'the time-stamp token answers another request (nonce)');
  } catch (error) {
    if (error instanceof SignatureEngineError) throw error;
    throw new SignatureEngineError('timestamp', 'the time-stamp token cannot be read');
  }
  return tokenDer;
}

/**
 * The certificates a token carries (its SignedData's `certificates`, DER): the authority's chain, whose
 * revocation data a B-LT signature adds too. Attribute certificates and other choices are skipped.
 */
export function tokenCertificates(token: Buffer): Buffer[] {
  try {
    const signedData = children(children(parse(token))[1])[0];
    const certificates = children(signedData).find((node) => node.tagClass === forge().asn1.Class.CONTEXT_SPECIFIC && node.type === 0);
    return children(certificates)
      .filter((node) => node.tagClass === forge().asn1.Class.UNIVERSAL && node.type === forge().asn1.Type.SEQUENCE)
      .map((node) => der(node));
  } catch {
    return [];
  }
}

/** Asks the authority for a token over `data`. */
export async function requestTimeStamp(data: Buffer, options: TsaOptions): Promise<Buffer> {
  return requestTimeStampOfImprint(createHash(HASHES[options.hash].node).update(data).digest(), options);
}

/** Asks the authority for a token over data whose `options.hash` is `imprint` (a document time-stamp: the byte ranges' hash). */
export async function requestTimeStampOfImprint(imprint: Buffer, options: TsaOptions): Promise<Buffer> {
  const { request, nonce } = timeStampRequest(imprint, options.hash);
  const answer = await post(options, request);
  return tokenOfResponse(answer, imprint, nonce);
}

async function post(options: TsaOptions, body: Buffer): Promise<Buffer> {
  const headers: Record<string, string> = { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' };
  if (options.user) headers.authorization = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString('base64')}`;
  try {
    return await fetchSmall({ url: options.url, policy: options.policy, maxBytes: MAX_RESPONSE_BYTES, timeoutMs: options.timeoutMs, post: { body, headers } });
  } catch (error) {
    if (!(error instanceof FetchError)) throw error;
    const prefix = error.kind === 'refused' ? `the time-stamp authority ${options.url} is not allowed: ` : 'the time-stamp authority: ';
    throw new SignatureEngineError('timestamp', `${prefix}${error.message}`);
  }
}
