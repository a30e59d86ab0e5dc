import fs from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { detectFormat } from '../../../src/engines/format/detect-format.js';
import { GIF_1X1, JPEG_1X1, PNG_1X1, WEBP_1X1, bmp1x1, icoMinimal, minimalPdf, odfEntries, ooxmlEntries, tiffMinimal, writeFixture, writeTar, writeZip } from './fixtures.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('format');

let counter = 0;
/** Writes content under a neutral on-disk name (the client name is passed separately, as in uploads). */
async function detect(content: string | Uint8Array, clientFileName?: string): Promise<string> {
  const file = writeFixture(dir, `upload-${counter++}.bin`, content);
  return (await detectFormat(file, clientFileName)).key;
}

async function detectZip(entries: Parameters<typeof writeZip>[1], clientFileName?: string): Promise<string> {
  const file = writeZip(path.join(dir, `zip-${counter++}.bin`), entries);
  return (await detectFormat(file, clientFileName)).key;
}

describe('detectFormat: binary formats', () => {
  it('detects a PDF whatever the client calls it', async () => {
    expect(await detect(minimalPdf())).toBe('pdf');
    expect(await detect(minimalPdf(), 'report.docx')).toBe('pdf');
    expect(await detect(minimalPdf(), 'image.png')).toBe('pdf');
  });

  it('detects a PDF with junk before the header only when it also ends like a PDF', async () => {
    const junk = Buffer.from('Content-Type: application/pdf\r\n\r\n');
    expect(await detect(Buffer.concat([junk, minimalPdf()]))).toBe('pdf');
    expect(await detect('The header is %PDF-1.7 and then some text.\n', 'notes.txt')).toBe('txt');
  });

  it('detects images', async () => {
    expect(await detect(PNG_1X1)).toBe('png');
    expect(await detect(JPEG_1X1, 'x.png')).toBe('jpeg');
    expect(await detect(GIF_1X1)).toBe('gif');
    expect(await detect(bmp1x1())).toBe('bmp');
    expect(await detect(tiffMinimal())).toBe('tiff');
    expect(await detect(WEBP_1X1)).toBe('webp');
    expect(await detect(icoMinimal())).toBe('ico');
  });

  it('detects RTF', async () => {
    expect(await detect('{\\rtf1\\ansi\\deff0 {\\fonttbl {\\f0 Times;}} Hello\\par }', 'x.txt')).toBe('rtf');
  });

  it('detects archives', async () => {
    expect(
      await detectZip([
        ['a.txt', 'hello'],
        ['b.txt', 'world'],
      ]),
    ).toBe('zip');
    expect(await detect(gzipSync(Buffer.from('hello world')))).toBe('gz');
    expect(await detect(gzipSync(fs.readFileSync(writeTar(path.join(dir, 'inner.tar'), 'a.txt', 'hi'))))).toBe('gz');
    expect(await detect(fs.readFileSync(writeTar(path.join(dir, 'plain.tar'), 'a.txt', 'hi')))).toBe('tar');
    expect(await detect(Buffer.concat([Buffer.from('377abcaf271c0004', 'hex'), Buffer.alloc(32, 1)]))).toBe('7z');
  });

  it('treats random bytes as unknown, whatever the name', async () => {
    // Deterministic pseudo-random bytes (xorshift) that contain NULs and controls.
    const junk = Buffer.alloc(4096);
    let x = 0x12345678;
    for (let i = 0; i < junk.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      junk[i] = x & 0xff;
    }
    junk[0] = 0x13; // make sure no magic number matches by accident
    expect(await detect(junk)).toBe('unknown');
    expect(await detect(junk, 'notes.txt')).toBe('unknown');
    expect(await detect(junk, 'report.pdf')).toBe('unknown');
  });

  it('treats an empty file as unknown', async () => {
    expect(await detect('', 'empty.txt')).toBe('unknown');
  });
});

describe('detectFormat: zip-based office formats', () => {
  it('detects OOXML from [Content_Types].xml', async () => {
    expect(await detectZip(ooxmlEntries('word/document.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml'), 'x.zip')).toBe('docx');
    expect(await detectZip(ooxmlEntries('xl/workbook.xml', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml'))).toBe('xlsx');
    expect(await detectZip(ooxmlEntries('ppt/presentation.xml', 'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml'))).toBe('pptx');
    expect(await detectZip(ooxmlEntries('word/document.xml', 'application/vnd.ms-word.document.macroEnabled.main+xml'))).toBe('docm');
    expect(await detectZip(ooxmlEntries('word/document.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml'))).toBe('dotx');
  });

  it('detects a small document from one read, and a large one from the file, alike', async () => {
    const docx = ooxmlEntries('word/document.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml');
    const small = writeZip(path.join(dir, `zip-${counter++}.bin`), docx);
    // Every FileHandle read (file-type's tokenizer and ours): 5 for this three-part docx when file-type read the file itself, ~55 for the bench's.
    const probe = await open(small, 'r');
    const reads = vi.spyOn(Object.getPrototypeOf(probe) as FileHandle, 'read');
    await probe.close();
    try {
      expect((await detectFormat(small)).key).toBe('docx');
      expect(reads.mock.calls.length).toBeLessThan(3);
    } finally {
      reads.mockRestore();
    }
    // A 300 KB stored part first (past the whole-file size): file-type walks the zip in the file.
    const large = writeZip(path.join(dir, `zip-${counter++}.bin`), [['word/media/image1.bin', 'x'.repeat(300 * 1024), true], ...docx]);
    expect(fs.statSync(large).size).toBeGreaterThan(300 * 1024);
    expect((await detectFormat(large)).key).toBe('docx');
  });

  it('detects ODF from its mimetype entry', async () => {
    expect(await detectZip(odfEntries('application/vnd.oasis.opendocument.text'))).toBe('odt');
    expect(await detectZip(odfEntries('application/vnd.oasis.opendocument.spreadsheet'))).toBe('ods');
    expect(await detectZip(odfEntries('application/vnd.oasis.opendocument.presentation'), 'slides.pdf')).toBe('odp');
    expect(await detectZip(odfEntries('application/epub+zip'))).toBe('epub');
  });
});

describe('detectFormat: markup', () => {
  it('detects HTML after BOM, white space and comments, in any case', async () => {
    expect(await detect('<!DOCTYPE html>\n<html><body>hi</body></html>')).toBe('html');
    expect(await detect('\ufeff  \n<!-- generated -->\n<HTML lang="de"><BODY></BODY></HTML>')).toBe('html');
    expect(await detect('<!doctype HTML><title>x</title>', 'page.txt')).toBe('html');
    expect(await detect('<head><title>x</title></head>')).toBe('html');
    expect(await detect('<?xml version="1.0"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x.dtd">\n<html xmlns="http://www.w3.org/1999/xhtml"/>')).toBe('html');
  });

  it('lets the client name decide for bare fragments', async () => {
    expect(await detect('<div><p>hello</p></div>', 'fragment.html')).toBe('html');
    expect(await detect('<div><p>hello</p></div>', 'fragment.HTM')).toBe('html');
    expect(await detect('<note><to>Tove</to></note>', 'note.xml')).toBe('xml');
    expect(await detect('<note><to>Tove</to></note>', 'note.txt')).toBe('txt');
    expect(await detect('<note><to>Tove</to></note>')).toBe('txt');
  });

  it('detects XML, and SVG by its root element', async () => {
    expect(await detect('<?xml version="1.0" encoding="UTF-8"?>\n<note><to>Tove</to></note>', 'note.txt')).toBe('xml');
    expect(await detect('<?xml version="1.0"?>\n<!-- c -->\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>', 'x.xml')).toBe('svg');
    expect(await detect('<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>')).toBe('svg');
    expect(await detect('<?xml version="1.0" standalone="no"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg/>')).toBe('svg');
    expect(await detect('<?xml version="1.0"?>\n<!DOCTYPE note [ <!ENTITY a "b"> ]>\n<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>')).toBe('svg');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<?xml version="1.0" encoding="UTF-16"?><svg/>', 'utf16le')]);
    expect(await detect(utf16)).toBe('svg');
  });
});

describe('detectFormat: mail', () => {
  const eml = [
    'Return-Path: <alice@example.org>',
    'Received: from mx.example.org (mx.example.org [192.0.2.1])',
    '\tby mail.example.com; Mon, 1 Jan 2024 10:00:00 +0000',
    'From: Alice <alice@example.org>',
    'To: Bob <bob@example.com>',
    'Subject: Quarterly report',
    'Date: Mon, 1 Jan 2024 10:00:00 +0000',
    'Message-ID: <1@example.org>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Hello Bob,',
    'see attached.',
  ].join('\r\n');

  it('detects RFC 822 messages whatever the name', async () => {
    expect(await detect(eml)).toBe('eml');
    expect(await detect(eml, 'message.txt')).toBe('eml');
    expect(await detect(`From alice@example.org Mon Jan  1 10:00:00 2024\n${eml}`)).toBe('eml');
    expect(await detect('From: a@example.org\nSubject: hi\n\nbody')).toBe('eml');
  });

  it('does not take ordinary text with a colon for mail', async () => {
    expect(await detect('Subject: only one known header\n\nbody')).toBe('txt');
    expect(await detect('Note: remember\nFrom: me\nThis line is no header\nTo: you\n')).toBe('txt');
    expect(await detect('from: alice\nto: bob\nsubject: yaml, not mail\n', 'config.yaml')).toBe('txt');
  });
});

describe('detectFormat: plain text', () => {
  const csv = 'name,amount\nAlice,10\nBob,20\n';

  it('uses the client extension among the text family', async () => {
    expect(await detect(csv, 'data.csv')).toBe('csv');
    expect(await detect(csv, 'DATA.CSV')).toBe('csv');
    expect(await detect('a\tb\n1\t2\n', 'data.tsv')).toBe('tsv');
    expect(await detect('# Title\n\nSome *markdown*.\n', 'README.md')).toBe('md');
    expect(await detect('{"a": [1, 2, 3]}\n', 'data.json')).toBe('json');
    expect(await detect('2024-01-01 INFO started\n', 'server.log')).toBe('txt');
  });

  it('falls back to txt when the name says nothing (or something non-textual)', async () => {
    expect(await detect(csv)).toBe('txt');
    expect(await detect(csv, 'data')).toBe('txt');
    expect(await detect(csv, 'data.pdf')).toBe('txt');
    expect(await detect(csv, 'data.docx')).toBe('txt');
  });

  it('reads UTF-16 with BOM (which file-type reports as audio)', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Hello, world!\r\nGrüße\r\n', 'utf16le')]);
    const be = Buffer.from(le.subarray(2)).swap16();
    expect(await detect(le)).toBe('txt');
    expect(await detect(Buffer.concat([Buffer.from([0xfe, 0xff]), be]), 'x.csv')).toBe('csv');
    const html = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<!DOCTYPE html><html></html>', 'utf16le')]);
    expect(await detect(html)).toBe('html');
  });

  it('rejects UTF-16 without BOM (NULs) as binary', async () => {
    expect(await detect(Buffer.from('Hello world, this is text.', 'utf16le'), 'a.txt')).toBe('unknown');
  });

  it('reads legacy single-byte text', async () => {
    expect(await detect(Buffer.from('Grüße aus München, Übermaß an Äpfeln.\n', 'latin1'))).toBe('txt');
    // windows-1252 smart quotes and euro sign (0x93, 0x94, 0x80)
    expect(await detect(Buffer.from([0x93, 0x48, 0x69, 0x94, 0x20, 0x80, 0x35, 0x0a]))).toBe('txt');
    expect(await detect('UTF-8 text: Grüße, 日本語, emoji 😀\n')).toBe('txt');
  });

  it('does not mistake text for an image because of a short signature', async () => {
    expect(await detect('BMW sales 2024\nQ1: 100\n')).toBe('txt');
    expect(await detect('GIFs are fun\n', 'gifs.md')).toBe('md');
  });

  it('rejects text-looking data with many control characters', async () => {
    expect(await detect('abc\u0001\u0002\u0003def\u0004\u0005ghi\u0006', 'a.txt')).toBe('unknown');
  });

  it('copes with a multi-byte character cut at the 64 KB sample boundary', async () => {
    const body = `${'a'.repeat(64 * 1024 - 1)}ü and more text after the sample\n`;
    expect(await detect(body, 'long.csv')).toBe('csv');
  });
});
