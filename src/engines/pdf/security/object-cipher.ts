import { createCipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * The encryption of one object's strings and stream data (ISO 32000-1 §7.6.2, ISO 32000-2 §7.6.3):
 * the same for every security handler once the file key is known.
 *
 * - RC4 (V 1/2, or crypt filter /V2): key = MD5(file key + object number (3 bytes, low first) +
 *   generation (2 bytes)), its first min(n + 5, 16) bytes.
 * - AESV2 (V 4): key = MD5(file key + object number + generation + "sAlT"), AES-128-CBC.
 * - AESV3 (V 5): the file key itself, AES-256-CBC.
 * AES data is a random 16-byte IV followed by the CBC ciphertext with PKCS#5 padding.
 */
export type ObjectCipher = 'RC4' | 'AESV2' | 'AESV3';

export type Encrypt = (data: Buffer) => Buffer;

export function objectEncryptor(fileKey: Buffer, cipher: ObjectCipher, num: number, gen: number): Encrypt {
  if (cipher === 'AESV3') return (data) => aesCbc('aes-256-cbc', fileKey, data);
  const material = Buffer.concat([
    fileKey,
    Buffer.from([num & 0xff, (num >> 8) & 0xff, (num >> 16) & 0xff, gen & 0xff, (gen >> 8) & 0xff]),
    cipher === 'AESV2' ? Buffer.from('sAlT', 'latin1') : Buffer.alloc(0),
  ]);
  const objectKey = createHash('md5').update(material).digest();
  if (cipher === 'AESV2') return (data) => aesCbc('aes-128-cbc', objectKey, data);
  const key = objectKey.subarray(0, Math.min(fileKey.length + 5, 16));
  return (data) => rc4(key, data);
}

function aesCbc(algorithm: 'aes-128-cbc' | 'aes-256-cbc', key: Buffer, data: Buffer): Buffer {
  const iv = randomBytes(16);
  const cipher = createCipheriv(algorithm, key, iv);
  return Buffer.concat([iv, cipher.update(data), cipher.final()]);
}

/** RC4 (OpenSSL 3 keeps it in the legacy provider, which Node does not load). */
export function rc4(key: Buffer, data: Buffer): Buffer {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 0xff;
    const t = s[i]!;
    s[i] = s[j]!;
    s[j] = t;
  }
  const out = Buffer.allocUnsafe(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]!) & 0xff;
    const t = s[i]!;
    s[i] = s[j]!;
    s[j] = t;
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 0xff]!;
  }
  return out;
}
