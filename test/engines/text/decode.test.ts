import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBytes, decodeText } from '../../../src/engines/text/decode.js';
import { TextEngineError } from '../../../src/engines/text/errors.js';
import { rejectionOf } from '../../helpers/rejection.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('text');
let counter = 0;

function file(bytes: Uint8Array): string {
  const target = path.join(dir, `t${counter++}.txt`);
  fs.writeFileSync(target, bytes);
  return target;
}

const LIMIT = { maxBytes: 1024 * 1024 };

async function expectError(promise: Promise<unknown>, kind: TextEngineError['kind'], message: RegExp): Promise<void> {
  const error = await rejectionOf(promise, TextEngineError);
  expect(error.kind).toBe(kind);
  expect(error.message).toMatch(message);
}

describe('decodeText', () => {
  it('reads UTF-8 with umlauts and CJK', async () => {
    const text = 'Grüße aus München – 日本語のテキスト, 中文, 한국어\n';
    expect(await decodeText(file(Buffer.from(text, 'utf8')), LIMIT)).toEqual({ text, encoding: 'utf-8' });
  });

  it('reads plain ASCII as UTF-8', async () => {
    expect(await decodeText(file(Buffer.from('hello\n')), LIMIT)).toEqual({ text: 'hello\n', encoding: 'utf-8' });
  });

  it('drops a UTF-8 byte order mark', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Grüße', 'utf8')]);
    expect(await decodeText(file(bytes), LIMIT)).toEqual({ text: 'Grüße', encoding: 'utf-8' });
  });

  it('reads UTF-16LE and UTF-16BE by their byte order marks', async () => {
    const text = 'Grüße 日本語\n';
    const le = Buffer.from(`\ufeff${text}`, 'utf16le');
    expect(await decodeText(file(le), LIMIT)).toEqual({ text, encoding: 'utf-16le' });
    const be = Buffer.from(le).swap16();
    expect(await decodeText(file(be), LIMIT)).toEqual({ text, encoding: 'utf-16be' });
  });

  it('falls back to windows-1252 for a few Western bytes chardet cannot place', async () => {
    // "Grüße" in windows-1252 / ISO-8859-1: not UTF-8, and too short for detection.
    expect(await decodeText(file(Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65])), LIMIT)).toEqual({ text: 'Grüße', encoding: 'windows-1252' });
  });

  it('decodes the windows-1252 punctuation in 0x80-0x9F that Node 20 gets wrong', async () => {
    // “Preis: 5 €” – ok…  (0x93 0x94 quotes, 0x80 euro, 0x96 en dash, 0x85 ellipsis)
    const bytes = Buffer.concat([
      Buffer.from([0x93]),
      Buffer.from('Preis: 5 '),
      Buffer.from([0x80, 0x94, 0x20, 0x96]),
      Buffer.from(' ok'),
      Buffer.from([0x85]),
      Buffer.from(' Gr'),
      Buffer.from([0xfc, 0xdf, 0x65]),
      Buffer.from(' aus M'),
      Buffer.from([0xfc]),
      Buffer.from('nchen, sch'),
      Buffer.from([0xf6]),
      Buffer.from('ne '),
      Buffer.from([0xc4]),
      Buffer.from('pfel.\n'),
    ]);
    const decoded = await decodeText(file(bytes), LIMIT);
    expect(decoded.encoding).toBe('windows-1252');
    expect(decoded.text).toBe('“Preis: 5 €” – ok… Grüße aus München, schöne Äpfel.\n');
  });

  it('detects Shift_JIS', async () => {
    // `printf '日本語のテキストです。こんにちは、世界。\n' | iconv -f UTF-8 -t SHIFT_JIS | xxd -p` (glibc 2.36 iconv)
    const bytes = Buffer.from('93fa967b8cea82cc8365834c8358836782c582b7814282b182f182c982bf82cd814190a28a4581420a', 'hex');
    expect(await decodeText(file(bytes), LIMIT)).toEqual({ text: '日本語のテキストです。こんにちは、世界。\n', encoding: 'shift_jis' });
  });

  it('detects windows-1251 Cyrillic', async () => {
    // `printf 'Это русский текст. Привет, мир!\n' | iconv -f UTF-8 -t CP1251 | xxd -p`
    const bytes = Buffer.from('ddf2ee20f0f3f1f1eae8e920f2e5eaf1f22e20cff0e8e2e5f22c20ece8f0210a', 'hex');
    expect(await decodeText(file(bytes), LIMIT)).toEqual({ text: 'Это русский текст. Привет, мир!\n', encoding: 'windows-1251' });
  });

  it('turns CRLF and lone CR into LF', async () => {
    expect((await decodeText(file(Buffer.from('a\r\nb\rc\n\r\nd')), LIMIT)).text).toBe('a\nb\nc\n\nd');
    expect((await decodeText(file(Buffer.from('\ufeffa\r\nb', 'utf16le')), LIMIT)).text).toBe('a\nb');
  });

  it('decodes with a forced encoding, by any label', async () => {
    const bytes = Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65, 0x80]);
    expect(await decodeText(file(bytes), { ...LIMIT, encoding: 'latin1' })).toEqual({ text: 'Grüße€', encoding: 'windows-1252' });
    expect(await decodeText(file(bytes), { ...LIMIT, encoding: 'ISO-8859-15' })).toEqual({ text: 'Grüße\u0080', encoding: 'iso-8859-15' });
    // Forcing UTF-8 on bytes that are not: replacement characters, not an error.
    expect((await decodeText(file(bytes), { ...LIMIT, encoding: 'utf-8' })).text).toBe('Gr\ufffd\ufffde\ufffd');
  });

  it('refuses an unknown or unusable forced encoding', async () => {
    const target = file(Buffer.from('x'));
    await expectError(decodeText(target, { ...LIMIT, encoding: 'klingon' }), 'invalidOption', /^encoding: "klingon"/);
    await expectError(decodeText(target, { ...LIMIT, encoding: 'iso-2022-kr' }), 'invalidOption', /^encoding:/);
  });

  it('refuses a file larger than maxBytes and accepts one of exactly maxBytes', async () => {
    const target = file(Buffer.alloc(100, 0x61));
    await expectError(decodeText(target, { maxBytes: 99 }), 'tooLarge', /limit of 99 bytes/);
    expect((await decodeText(target, { maxBytes: 100 })).text).toBe('a'.repeat(100));
  });

  it('reads an empty file', async () => {
    expect(await decodeText(file(new Uint8Array(0)), LIMIT)).toEqual({ text: '', encoding: 'utf-8' });
  });

  it('reports a missing file as unreadable without its path', async () => {
    const missing = path.join(dir, 'missing.txt');
    const error: unknown = await decodeText(missing, LIMIT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TextEngineError);
    expect((error as TextEngineError).kind).toBe('unreadable');
    expect((error as TextEngineError).message).not.toContain(dir);
  });

  it('decodes 10 MB of windows-1252 punctuation quickly', async () => {
    const started = performance.now();
    const decoded = await decodeText(file(Buffer.alloc(10 * 1024 * 1024, 0x80)), { maxBytes: 10 * 1024 * 1024 });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(decoded.encoding).toBe('windows-1252');
    expect(decoded.text.length).toBe(10 * 1024 * 1024);
    expect(decoded.text.startsWith('€€€')).toBe(true);
  });

  it('reads files larger than one read chunk', async () => {
    const text = 'Grüße, 日本語. '.repeat(200_000); // 3.8 MB
    expect(await decodeText(file(Buffer.from(text)), { maxBytes: 10 * 1024 * 1024 })).toEqual({ text, encoding: 'utf-8' });
  });
});

describe('decodeBytes', () => {
  it('detects from bytes in memory', () => {
    expect(decodeBytes(Buffer.from('x\r\ny'))).toEqual({ text: 'x\ny', encoding: 'utf-8' });
  });
});
