import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type { AddressPolicy } from '../net/address-policy.js';
import { pinnedLookup } from '../net/webhook-client.js';
import { SignatureEngineError } from './errors.js';

/**
 * An RFC 3161 time-stamp client: asks the configured authority for a token over `data` (the
 * signature value, for a PAdES B-T signature-time-stamp), through the server's outbound address policy
 * (the connection goes only to the addresses the policy judged), and checks that the token answers
 * this request (status granted, same message imprint, same nonce) before it is embedded.
 */

const require = createRequire(import.meta.url);
type Forge = typeof import('node-forge');
type Asn1 = import('node-forge').asn1.Asn1;
const forge = (): Forge => require('node-forge') as Forge;

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

function der(node: Asn1): Buffer {
  return Buffer.from(forge().asn1.toDer(node).getBytes(), 'binary');
}

function parse(bytes: Buffer): Asn1 {
  const f = forge();
  const fromDer = f.asn1.fromDer as unknown as (input: unknown, options: { decodeBitStrings: boolean }) => Asn1;
  return fromDer(f.util.createBuffer(bytes.toString('binary')), { decodeBitStrings: false });
}

/** The DER TimeStampReq over `data`, and the nonce it carries. */
export function timeStampRequest(data: Buffer, hash: TsaHash): { request: Buffer; imprint: Buffer; nonce: Buffer } {
  const { asn1 } = forge();
  const T = asn1.Type;
  const U = asn1.Class.UNIVERSAL;
  const imprint = createHash(HASHES[hash].node).update(data).digest();
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

/** Asks the authority for a token over `data`. */
export async function requestTimeStamp(data: Buffer, options: TsaOptions): Promise<Buffer> {
  const { request, imprint, nonce } = timeStampRequest(data, options.hash);
  const answer = await post(options, request);
  return tokenOfResponse(answer, imprint, nonce);
}

async function post(options: TsaOptions, body: Buffer): Promise<Buffer> {
  const decision = await options.policy.checkUrl(options.url);
  if (!decision.allowed) throw new SignatureEngineError('timestamp', `the time-stamp authority ${options.url} is not allowed: ${decision.reason}`);
  const url = new URL(options.url);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const secure = url.protocol === 'https:';
  const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/timestamp-query', 'content-length': body.length, accept: 'application/timestamp-reply' };
  if (options.user) headers.authorization = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString('base64')}`;
  return new Promise<Buffer>((resolve, reject) => {
    const outgoing = (secure ? https : http).request(
      {
        method: 'POST',
        host,
        port: Number(url.port || (secure ? 443 : 80)),
        path: url.pathname + url.search,
        agent: false,
        headers,
        lookup: pinnedLookup(decision.addresses),
        ...(secure && isIP(host) === 0 ? { servername: host } : {}),
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.destroy();
          reject(new SignatureEngineError('timestamp', `the time-stamp authority answered with HTTP status ${response.statusCode ?? 0}`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            response.destroy();
            reject(new SignatureEngineError('timestamp', `the time-stamp authority's answer is larger than ${MAX_RESPONSE_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve(Buffer.concat(chunks)));
        response.on('error', (error) => reject(new SignatureEngineError('timestamp', `the time-stamp authority's answer broke off: ${error.message}`)));
      },
    );
    const timer = setTimeout(() => outgoing.destroy(new SignatureEngineError('timestamp', `the time-stamp authority did not answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    outgoing.on('close', () => clearTimeout(timer));
    outgoing.on('error', (error) => reject(error instanceof SignatureEngineError ? error : new SignatureEngineError('timestamp', `the time-stamp authority cannot be reached: ${error.message}`)));
    outgoing.end(body);
  });
}
