import { createHash, randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { isDict, isRef, isString, nameOf, type PdfValue } from '../pdf-syntax.js';
import type { PdfStructureTool } from '../../contracts.js';
import { ClassicFileError, readObject, rewriteClassicFile, type ParsedObject } from './classic-file.js';
import { recipientEnvelope, type RecipientCertificate } from './envelopes.js';
import { PdfSecurityError } from './errors.js';
import { objectEncryptor, type ObjectCipher } from './object-cipher.js';
import type { EncryptionKey } from './password-encryption.js';
import { permissionWord, type PermissionFlags } from './permissions.js';
import { rewriteValue } from './string-rewriter.js';

/**
 * Certificate (public-key) encryption: /Filter /Adobe.PubSec (ISO 32000-1 §7.6.4). qpdf reads and
 * writes only the Standard (password) handler, so this module writes the handler itself:
 *
 * 1. qpdf normalises the input (`--object-streams=disable`: every object stands alone behind a
 *    classic cross-reference table, which makes encrypting object by object possible);
 * 2. a random 20-byte seed goes, with each recipient's permissions, into one PKCS#7 envelope per
 *    recipient (envelopes.ts);
 * 3. the file key is SHA-1 (SHA-256 for AES-256) of the seed, the envelopes and, with clear-text
 *    metadata, four 0xFF bytes (§7.6.4.3.3);
 * 4. every string and stream of every object is encrypted with that key (object-cipher.ts) and the
 *    file written again with the encryption dictionary added and a new cross-reference table.
 */

export interface CertificateRecipient {
  certificate: RecipientCertificate;
  permissions: PermissionFlags;
}

export interface CertificateProtection {
  key: EncryptionKey;
  encryptMetadata: boolean;
  recipients: readonly CertificateRecipient[];
}

interface Profile {
  /** /V of the encryption dictionary. */
  v: number;
  subFilter: 'adbe.pkcs7.s4' | 'adbe.pkcs7.s5';
  /** /CFM of the default crypt filter (s5 only). */
  cfm?: 'V2' | 'AESV2' | 'AESV3';
  cipher: ObjectCipher;
  keyBits: number;
  digest: 'sha1' | 'sha256';
  /** Lowest PDF version qpdf must give the file ("1.7.8": 1.7 with Adobe extension level 8). */
  minVersion: string;
}

/**
 * The handler for the key and the metadata choice. /EncryptMetadata exists only with crypt filters
 * (V 4 and 5), so 128-bit RC4 with clear-text metadata uses V 4 with an RC4 (/V2) crypt filter.
 */
function profileOf(key: EncryptionKey, encryptMetadata: boolean): Profile {
  switch (key) {
    case 'AES_256':
      return { v: 5, subFilter: 'adbe.pkcs7.s5', cfm: 'AESV3', cipher: 'AESV3', keyBits: 256, digest: 'sha256', minVersion: '1.7.8' };
    case 'AES_128':
      return { v: 4, subFilter: 'adbe.pkcs7.s5', cfm: 'AESV2', cipher: 'AESV2', keyBits: 128, digest: 'sha1', minVersion: '1.6' };
    case 'RC4_128':
      return encryptMetadata
        ? { v: 2, subFilter: 'adbe.pkcs7.s4', cipher: 'RC4', keyBits: 128, digest: 'sha1', minVersion: '1.4' }
        : { v: 4, subFilter: 'adbe.pkcs7.s5', cfm: 'V2', cipher: 'RC4', keyBits: 128, digest: 'sha1', minVersion: '1.6' };
    case 'RC4_40':
      if (!encryptMetadata) {
        throw new PdfSecurityError('unsupported', 'contentEncryption: exposeMetadata needs a 128- or 256-bit key; 40-bit RC4 always encrypts the metadata.');
      }
      return { v: 1, subFilter: 'adbe.pkcs7.s4', cipher: 'RC4', keyBits: 40, digest: 'sha1', minVersion: '1.3' };
  }
}

export async function encryptForRecipients(qpdf: PdfStructureTool, input: string, output: string, protection: CertificateProtection, options: { deadline?: number } = {}): Promise<void> {
  if (protection.recipients.length === 0) throw new PdfSecurityError('invalidOption', 'recipient: at least one recipient is needed.');
  const profile = profileOf(protection.key, protection.encryptMetadata);
  const normalised = `${output}.normalised.pdf`;
  try {
    await qpdf.run(['--object-streams=disable', `--min-version=${profile.minVersion}`, input, normalised], { deadline: options.deadline });
    const seed = randomBytes(20);
    const envelopes = protection.recipients.map((r) => recipientEnvelope(r.certificate, seed, permissionWord(r.permissions)));
    const hash = createHash(profile.digest).update(seed);
    for (const envelope of envelopes) hash.update(envelope);
    if (!protection.encryptMetadata) hash.update(Buffer.from([0xff, 0xff, 0xff, 0xff]));
    const fileKey = hash.digest().subarray(0, profile.keyBits / 8);
    await writeEncrypted(normalised, output, { profile, fileKey, envelopes, encryptMetadata: protection.encryptMetadata, deadline: options.deadline });
  } finally {
    await rm(normalised, { force: true });
  }
}

interface WriteContext {
  profile: Profile;
  fileKey: Buffer;
  envelopes: Buffer[];
  encryptMetadata: boolean;
  deadline?: number;
}

async function writeEncrypted(source: string, target: string, context: WriteContext): Promise<void> {
  await rewriteClassicFile(source, target, async (input, layout, output) => {
    const write = (chunk: Buffer) => output.write(chunk);

    const offsets = new Map<number, number>();
    for (const entry of layout.objects) {
      if (context.deadline !== undefined && Date.now() > context.deadline) {
        throw new PdfSecurityError('timeout', 'Encrypting the PDF ran out of time.');
      }
      const object = await readObject(input, entry);
      offsets.set(object.num, output.position);
      await write(encryptObject(object, context));
    }

    const encryptNum = layout.size;
    offsets.set(encryptNum, output.position);
    await write(Buffer.from(`${encryptNum} 0 obj\n${encryptionDictionary(context)}\nendobj\n`, 'latin1'));

    const xrefOffset = output.position;
    const size = encryptNum + 1;
    const lines = [`xref\n0 ${size}\n`];
    for (let num = 0; num < size; num++) {
      const offset = offsets.get(num);
      lines.push(offset === undefined ? '0000000000 65535 f \n' : `${String(offset).padStart(10, '0')} 00000 n \n`);
    }
    await write(Buffer.from(lines.join(''), 'latin1'));
    await write(Buffer.from(`trailer\n${trailer(layout.trailer.entries, size, encryptNum)}\nstartxref\n${xrefOffset}\n%%EOF\n`, 'latin1'));
  });
}

function encryptObject(object: ParsedObject, context: WriteContext): Buffer {
  const encrypt = objectEncryptor(context.fileKey, context.profile.cipher, object.num, object.gen);
  const type = isDict(object.value) ? nameOf(object.value.entries.get('Type')) : undefined;
  // Signature values stay readable (§7.6.1: strings of a signature dictionary's /Contents are not encrypted).
  const keepKey = type === 'Sig' || type === 'DocTimeStamp' ? 'Contents' : undefined;
  const head = object.raw.subarray(0, object.valueStart);
  if (!object.stream) {
    const value = rewriteValue(object.raw, object.valueStart, object.valueEnd, { encrypt, ...(keepKey ? { keepKey } : {}) });
    return Buffer.concat([head, value, Buffer.from('\nendobj\n', 'latin1')]);
  }
  const plain = object.raw.subarray(object.stream.start, object.stream.end);
  const clearMetadata = !context.encryptMetadata && type === 'Metadata';
  const data = clearMetadata ? plain : encrypt(plain);
  const dictionary = rewriteValue(object.raw, object.valueStart, object.valueEnd, { encrypt, length: data.length, ...(keepKey ? { keepKey } : {}) });
  return Buffer.concat([head, dictionary, Buffer.from('\nstream\n', 'latin1'), data, Buffer.from('\nendstream\nendobj\n', 'latin1')]);
}

/** The /Encrypt dictionary of the public-key handler. Its strings are never encrypted (§7.6.1). */
function encryptionDictionary(context: WriteContext): string {
  const { profile } = context;
  const recipients = `[${context.envelopes.map((e) => `<${e.toString('hex')}>`).join(' ')}]`;
  const metadata = context.encryptMetadata ? '' : ' /EncryptMetadata false';
  const common = `/Filter /Adobe.PubSec /SubFilter /${profile.subFilter} /V ${profile.v} /Length ${profile.keyBits}`;
  if (profile.subFilter === 'adbe.pkcs7.s4') return `<< ${common} /Recipients ${recipients} >>`;
  const filter = `<< /Type /CryptFilter /CFM /${profile.cfm!} /Length ${profile.keyBits} /AuthEvent /DocOpen /Recipients ${recipients}${metadata} >>`;
  return `<< ${common} /CF << /DefaultCryptFilter ${filter} >> /StmF /DefaultCryptFilter /StrF /DefaultCryptFilter${metadata} >>`;
}

function trailer(entries: Map<string, PdfValue>, size: number, encryptNum: number): string {
  if (!isRef(entries.get('Root'))) throw new ClassicFileError('invalidPdf', 'the normalised PDF has no document catalog');
  const parts = [`/Size ${size}`];
  for (const key of ['Root', 'Info']) {
    const value = entries.get(key);
    if (isRef(value)) parts.push(`/${key} ${value.num} ${value.gen} R`);
  }
  const id = entries.get('ID');
  const ids = Array.isArray(id) && id.length === 2 && id.every((part) => isString(part)) ? id.map((part) => (part as { bytes: Buffer }).bytes) : [randomBytes(16), randomBytes(16)];
  parts.push(`/ID [${ids.map((bytes) => `<${bytes.toString('hex')}>`).join(' ')}]`);
  parts.push(`/Encrypt ${encryptNum} 0 R`);
  return `<< ${parts.join(' ')} >>`;
}
