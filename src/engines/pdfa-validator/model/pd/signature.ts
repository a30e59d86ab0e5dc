/**
 * Digital signatures (ISO 19005-2/3 6.4.3, ISO 32000-1 12.8.1): PDSignature, the signature dictionary of each
 * signature field (field type /Sig, inheritable, its /V), and PKCSDataObject, the CMS object in its /Contents.
 *
 * - `doesByteRangeCoverEntireDocument`: the /ByteRange is [0, a, b, c] where a is the offset of the `<` that opens
 *   the /Contents hex string in the file, b the offset just after its `>`, and b + c the end of the revision that
 *   holds the signature (after its `%%EOF` and at most one EOL). Found in the raw bytes from the signature
 *   dictionary's own object (or, for a direct dictionary, the field's); a dictionary in an object stream cannot be
 *   excluded by a byte range: false.
 * - `SignerInfoCount`, `signingCertificatePresent`: read from the DER (ContentInfo → SignedData, RFC 5652): the
 *   number of SignerInfos, and whether the certificates hold the signer's (issuer and serial number compared byte
 *   for byte; a signer named by subject key identifier: any certificate). Data that is no DER SignedData (BER's
 *   indefinite lengths included) has 0 signers and no certificate: both rules fail, as ISO 19005 asks for DER.
 */
import type { CosDict, CosDocument } from '../../cos/index.js';
import { type LocatedObject, modelObject } from '../cos/object.js';
import type { FormFields } from './document.js';
import { pathOf } from './pages.js';
import { dictIn, inheritedFieldType } from './values.js';

const T = { signature: ['PDSignature'], pkcs: ['PKCSDataObject'] } as const;

/** Bytes searched from the signature's object for its /Contents (a signature's Contents is rarely above 64 KiB). */
const MAX_SEARCH = 16 * 1024 * 1024;

export function* signatureObjects(doc: CosDocument, fields: FormFields): Generator<LocatedObject> {
  const seen = new Set<CosDict>();
  for (const f of fields.fields) {
    if (inheritedFieldType(doc, f.dict) !== 'Sig') continue;
    const v = f.dict.entries.get('V');
    const sig = dictIn(doc, v);
    if (sig === undefined || seen.has(sig)) continue;
    seen.add(sig);
    const path = pathOf(v, `${f.path}/V`);
    const objectNum = v?.kind === 'ref' ? v.num : Number(/^(\d+) \d+ obj/.exec(f.path)?.[1] ?? Number.NaN);
    yield modelObject(T.signature, path, { doesByteRangeCoverEntireDocument: byteRangeCoversDocument(doc, sig, objectNum) });
    const contents = doc.resolve(sig.entries.get('Contents'));
    if (contents?.kind === 'string') yield modelObject(T.pkcs, `${path}/Contents`, { ...signedDataFacts(contents.bytes) });
  }
}

function byteRangeCoversDocument(doc: CosDocument, sig: CosDict, objectNum: number): boolean {
  const range = doc.resolve(sig.entries.get('ByteRange'));
  if (range?.kind !== 'array' || range.items.length !== 4) return false;
  const n = range.items.map((x) => (x.kind === 'int' ? x.value : Number.NaN));
  const object = Number.isInteger(objectNum) ? doc.getObject(objectNum) : null;
  if (object === null || object.objectStream !== null) return false;
  const gap = contentsGap(doc.bytes, object.offset);
  if (gap === null) return false;
  if (n[0] !== 0 || n[1] !== gap.start || n[2] !== gap.end) return false;
  const eof = doc.bytes.indexOf('%%EOF', gap.end, 'latin1');
  if (eof < 0) return false;
  let end = eof + 5;
  const ends = [end];
  if (doc.bytes[end] === 0x0d) ends.push(++end);
  if (doc.bytes[end] === 0x0a) ends.push(end + 1);
  return ends.includes(gap.end + (n[3] as number));
}

/** Where the first `/Contents <hex>` after `from` lies, within the object (up to its `endobj`): [start of `<`, after `>`). */
function contentsGap(bytes: Buffer, from: number): { start: number; end: number } | null {
  const limit = Math.min(bytes.length, from + MAX_SEARCH);
  let endobj = bytes.indexOf('endobj', from, 'latin1');
  if (endobj < 0 || endobj > limit) endobj = limit;
  let at = from;
  for (;;) {
    const key = bytes.indexOf('/Contents', at, 'latin1');
    if (key < 0 || key >= endobj) return null;
    let i = key + 9;
    while (i < endobj && isWhite(bytes[i] as number)) i++;
    if (bytes[i] === 0x3c && bytes[i + 1] !== 0x3c) {
      const close = bytes.indexOf(0x3e, i + 1);
      return close < 0 || close >= endobj ? null : { start: i, end: close + 1 };
    }
    at = key + 9;
  }
}

function isWhite(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0x0c || b === 0x00;
}

interface Tlv {
  readonly tag: number;
  /** Start of the value. */
  readonly start: number;
  /** End of the value (exclusive). */
  readonly end: number;
}

/** One DER element at `at` (no indefinite lengths, lengths of at most 4 bytes, never past `limit`). */
function tlv(buf: Buffer, at: number, limit: number): Tlv | null {
  if (at + 2 > limit) return null;
  const tag = buf[at] as number;
  if ((tag & 0x1f) === 0x1f) return null; // multi-byte tags do not occur in CMS
  let len = buf[at + 1] as number;
  let start = at + 2;
  if (len & 0x80) {
    const count = len & 0x7f;
    if (count === 0 || count > 4 || start + count > limit) return null;
    len = buf.readUIntBE(start, count);
    start += count;
  }
  const end = start + len;
  return end > limit ? null : { tag, start, end };
}

/** The elements inside a constructed element. */
function children(buf: Buffer, parent: Tlv): Tlv[] | null {
  const out: Tlv[] = [];
  for (let at = parent.start; at < parent.end; ) {
    const t = tlv(buf, at, parent.end);
    if (t === null || out.length >= 10_000) return null;
    out.push(t);
    at = t.end;
  }
  return out;
}

const SIGNED_DATA_OID = Buffer.from('2a864886f70d010702', 'hex'); // 1.2.840.113549.1.7.2

export function signedDataFacts(data: Buffer): { SignerInfoCount: number; signingCertificatePresent: boolean } {
  const none = { SignerInfoCount: 0, signingCertificatePresent: false };
  const info = tlv(data, 0, data.length);
  if (info === null || info.tag !== 0x30) return none;
  const [oid, explicit] = children(data, info) ?? [];
  if (oid?.tag !== 0x06 || !data.subarray(oid.start, oid.end).equals(SIGNED_DATA_OID) || explicit?.tag !== 0xa0) return none;
  const signedData = children(data, explicit)?.[0];
  if (signedData?.tag !== 0x30) return none;
  const parts = children(data, signedData);
  if (parts === null) return none;
  // version, digestAlgorithms, encapContentInfo, [0] certificates?, [1] crls?, signerInfos (the last SET).
  const signerInfos = parts[parts.length - 1];
  if (parts.length < 4 || signerInfos?.tag !== 0x31) return none;
  const signers = children(data, signerInfos) ?? [];
  const certSet = parts.find((p) => p.tag === 0xa0);
  const certificates = certSet === undefined ? [] : (children(data, certSet) ?? []).filter((c) => c.tag === 0x30);
  return { SignerInfoCount: signers.length, signingCertificatePresent: signers.length > 0 && signers.every((s) => hasCertificate(data, s, certificates)) };
}

/** Whether the certificates include the one the SignerInfo names (RFC 5652 5.3: sid). */
function hasCertificate(data: Buffer, signer: Tlv, certificates: readonly Tlv[]): boolean {
  const sid = children(data, signer)?.[1];
  if (sid === undefined) return false;
  if (sid.tag !== 0x30) return certificates.length > 0; // subjectKeyIdentifier [0]: not compared
  const [issuer, serial] = children(data, sid) ?? [];
  if (issuer === undefined || serial === undefined) return false;
  const want = (t: Tlv): Buffer => data.subarray(t.start, t.end);
  return certificates.some((cert) => {
    const tbs = children(data, cert)?.[0];
    const fields = tbs === undefined ? null : children(data, tbs);
    if (fields === null) return false;
    const k = fields[0]?.tag === 0xa0 ? 1 : 0; // [0] version
    const certSerial = fields[k];
    const certIssuer = fields[k + 2];
    return certSerial !== undefined && certIssuer !== undefined && want(certSerial).equals(want(serial)) && want(certIssuer).equals(want(issuer));
  });
}
