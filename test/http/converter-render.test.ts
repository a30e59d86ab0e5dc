import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeImageFixtures } from '../engines/image/image-fixtures.js';
import { sampleEml } from '../engines/mail/fixtures.js';
import { convert, convertOk, pageText, pdfFacts } from '../helpers/converter.js';
import { info, uploadFile } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';

const DOCX = readFileSync(path.resolve(import.meta.dirname, '../fixtures/office/sample.docx'));

function attachments(file: string): string[] {
  const out = execFileSync('pdfdetach', ['-list', file], { encoding: 'utf8' });
  return out
    .split('\n')
    .slice(1)
    .map((l) => l.replace(/^\d+:\s*/, '').trim())
    .filter(Boolean);
}

function imageList(file: string): { width: number; height: number; enc: string }[] {
  return execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter((l) => l.trim() !== '')
    .map((l) => l.trim().split(/\s+/))
    .map((c) => ({ width: Number(c[3]), height: Number(c[4]), enc: c[8]! }));
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

describe('converter: HTML, text, images and e-mail (Chromium, sharp)', () => {
  const { server, session, download } = useTestServer({ engines: true, env: { QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false' } });
  let images: (name: string) => string;
  let resources: Server;
  let resourceHits: string[];
  let resourceOrigin: string;

  beforeAll(async () => {
    images = await makeImageFixtures(mkdtempSync(path.join(os.tmpdir(), 'quire-render-images-')));
    resourceHits = [];
    resources = createServer((request, response) => {
      resourceHits.push(request.url ?? '');
      response.setHeader('content-type', 'image/svg+xml');
      response.end('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="red"/></svg>');
    });
    await new Promise<void>((resolve) => resources.listen(0, '127.0.0.1', resolve));
    resourceOrigin = `http://127.0.0.1:${(resources.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    resources?.close();
  });

  const upload = (content: Buffer | string, name: string) => uploadFile(server.rest, session.token, Buffer.from(content), name);

  it('renders HTML on the given page with header and footer; umlauts and CJK intact', async () => {
    const html = '<html><body><p>QUIREHTML</p><p>Grüße aus Köln — 日本語テキスト</p></body></html>';
    const uploaded = await upload(html, 'page.html');
    await convertOk(server.rest, session.token, uploaded.documentId, {
      converter: {
        page: {
          width: 100,
          height: 150,
          left: 10,
          right: 10,
          top: 25,
          bottom: 25,
          metrics: 'mm',
          header: { source: 'value', value: base64('<div style="font-size:10px">QUIRE-HEADER</div>') },
          footer: { source: 'value', value: base64('<div style="font-size:10px">Page <span class="pageNumber"></span></div>') },
        },
      },
    });
    const facts = pdfFacts(await download(uploaded.documentId));
    // 100 x 150 mm = 283.5 x 425.2 pt; Chromium rounds page sizes to whole CSS pixels.
    expect(Math.abs(facts.width - 283.5)).toBeLessThanOrEqual(1);
    expect(Math.abs(facts.height - 425.2)).toBeLessThanOrEqual(1);
    expect(facts.text).toContain('QUIREHTML');
    expect(facts.text).toContain('Grüße aus Köln');
    expect(facts.text).toContain('日本語テキスト');
    expect(facts.text).toContain('QUIRE-HEADER');
    expect(facts.text).toMatch(/Page 1/);
  });

  it('renders A4 by default and honours preferCSSPageSize', async () => {
    const plain = await upload('<p>QUIRE-A4</p>', 'a4.html');
    await convertOk(server.rest, session.token, plain.documentId);
    const a4 = pdfFacts(await download(plain.documentId));
    expect(Math.abs(a4.width - 595.3)).toBeLessThanOrEqual(1);
    expect(Math.abs(a4.height - 841.9)).toBeLessThanOrEqual(1);

    const css = await upload('<style>@page { size: 148mm 105mm; }</style><p>QUIRE-CSS-SIZE</p>', 'css.html');
    await convertOk(server.rest, session.token, css.documentId, { converter: { html: { preferCSSPageSize: true } } });
    const sized = pdfFacts(await download(css.documentId));
    expect(Math.abs(sized.width - 419.5)).toBeLessThanOrEqual(1);
    expect(Math.abs(sized.height - 297.6)).toBeLessThanOrEqual(1);
  });

  it('loads nothing from the network for uploaded HTML unless downloadImages allows it, and never internal addresses by default', async () => {
    const html = `<p>QUIRE-NET</p><img src="${resourceOrigin}/blocked.svg"><iframe src="file:///etc/passwd"></iframe>`;
    const closed = await upload(html, 'net.html');
    await convertOk(server.rest, session.token, closed.documentId);
    const allowedButInternal = await upload(html, 'net2.html');
    await convertOk(server.rest, session.token, allowedButInternal.documentId, { converter: { html: { downloadImages: true } } });
    expect(resourceHits).toEqual([]);
    const text = pdfFacts(await download(closed.documentId)).text;
    expect(text).toContain('QUIRE-NET');
    expect(text).not.toMatch(/root:x:0:0/);
  });

  it('converts plain text: legacy encodings decoded, long lines wrapped, markup shown as text', async () => {
    const latin = Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65, 0x20, 0x80, 0x20, 0x4b, 0xf6, 0x6c, 0x6e, 0x0a]); // "Grüße € Köln" in windows-1252
    const long = `${'A'.repeat(3000)}QUIRE-LINE-END`;
    const text = Buffer.concat([latin, Buffer.from(`<script>alert(1)</script>\n${long}\n日本語テキスト\n`, 'utf8')]);
    // Mixed bytes are not valid UTF-8: the whole file is taken as windows-1252, so send the parts apart.
    const legacy = await upload(latin, 'legacy.txt');
    await convertOk(server.rest, session.token, legacy.documentId);
    expect(pdfFacts(await download(legacy.documentId)).text).toContain('Grüße € Köln');

    const utf8 = await upload(Buffer.from(`<script>alert(1)</script>\n${long}\n日本語テキスト\n`, 'utf8'), 'notes.txt');
    await convertOk(server.rest, session.token, utf8.documentId, { converter: { text: { textHighlight: { fontSize: '9pt', lineNumbers: true } } } });
    const facts = pdfFacts(await download(utf8.documentId));
    expect(facts.text).toContain('<script>alert(1)</script>');
    expect(facts.text).toContain('QUIRE-LINE-END'); // the end of the long line is on the page, not cut off
    expect(facts.text).toContain('日本語テキスト');
    expect(facts.pages).toBeGreaterThanOrEqual(1);
    expect(text.length).toBeGreaterThan(0);

    const bad = await convert(server.rest, session.token, (await upload('x', 'bad.txt')).documentId, {
      converter: { text: { textHighlight: { fontSize: '10px;}body{display:none' } } },
    });
    expect(bad.error).toMatchObject({ errorCode: -14 });
  });

  it('converts images: natural size, EXIF orientation, multi-page TIFF, JPEG kept as it is, page fit', async () => {
    const png = await upload(readFileSync(images('scan300.png')), 'scan.png');
    await convertOk(server.rest, session.token, png.documentId);
    const scan = pdfFacts(await download(png.documentId));
    expect([scan.width, scan.height]).toEqual([144, 72]); // 600 x 300 px at 300 dpi = 2 x 1 in

    const rotated = await upload(readFileSync(images('rotated.jpg')), 'rotated.jpg');
    await convertOk(server.rest, session.token, rotated.documentId);
    const portrait = pdfFacts(await download(rotated.documentId));
    expect(portrait.height).toBeGreaterThan(portrait.width);

    const tiff = await upload(readFileSync(images('three.tif')), 'three.tif');
    await convertOk(server.rest, session.token, tiff.documentId, { converter: { pages: '2-3' } });
    expect(pdfFacts(await download(tiff.documentId)).pages).toBe(2);

    const jpeg = await upload(readFileSync(images('photo.jpg')), 'photo.jpg');
    await convertOk(server.rest, session.token, jpeg.documentId, {
      converter: { page: { width: 210, height: 297 }, image: { maintainAspectRatio: true } },
    });
    const file = await download(jpeg.documentId);
    expect(pdfFacts(file)).toMatchObject({ width: 595, height: 842 });
    expect(imageList(file)).toEqual([{ width: 320, height: 240, enc: 'jpeg' }]);
  });

  it('refuses a corrupt GIF with -106 and leaves it as it was', async () => {
    for (const name of ['truncated.gif', 'garbled.gif']) {
      const gif = await upload(readFileSync(images(name)), name);
      const outcome = await convert(server.rest, session.token, gif.documentId);
      expect(outcome).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -106 } });
      expect(await info(server.rest, session.token, gif.documentId)).toMatchObject({ mimeType: 'image/gif', isFileLocked: false });
    }
  });

  it('converts an e-mail with its header and embeds the attachment (default), merges it with convertMerge, drops it with remove', async () => {
    const eml = sampleEml();
    const embedded = await upload(eml, 'mail.eml');
    await convertOk(server.rest, session.token, embedded.documentId);
    const file = await download(embedded.documentId);
    const facts = pdfFacts(file);
    expect(facts.text).toContain('Grüße');
    expect(facts.text).toMatch(/Jörg Müller/);
    expect(facts.text).not.toMatch(/alert\(/);
    expect(attachments(file)).toEqual(['report.pdf']);

    const merged = await upload(eml, 'merge.eml');
    await convertOk(server.rest, session.token, merged.documentId, { converter: { mail: { attachmentMode: 'convertMerge' } } });
    const mergedFile = await download(merged.documentId);
    expect(pdfFacts(mergedFile).pages).toBe(facts.pages + 1);
    expect(attachments(mergedFile)).toEqual([]);

    const removed = await upload(eml, 'remove.eml');
    await convertOk(server.rest, session.token, removed.documentId, { converter: { mail: { attachmentMode: 'remove' } } });
    expect(attachments(await download(removed.documentId))).toEqual([]);
  });

  it('converts an Outlook .msg', async () => {
    const msg = await upload(readFileSync(path.resolve(import.meta.dirname, '../fixtures/mail/sample.msg')), 'outlook.msg');
    await convertOk(server.rest, session.token, msg.documentId);
    const file = await download(msg.documentId);
    expect(pdfFacts(file).text).toContain('Grüße aus Outlook');
    expect(attachments(file)).toEqual(['report.pdf']);
  });

  it('answers ENGINE_UNAVAILABLE for Office input on this server (LibreOffice disabled), even inside a mail', async () => {
    const docx = await upload(DOCX, 'office.docx');
    expect((await convert(server.rest, session.token, docx.documentId)).error).toMatchObject({ errorCode: -107 });
  });

  it('keeps pages of an HTML document with `pages`', async () => {
    const html = '<p>ONE</p><p style="break-before:page">TWO</p><p style="break-before:page">THREE</p>';
    const uploaded = await upload(html, 'three.html');
    await convertOk(server.rest, session.token, uploaded.documentId, { converter: { pages: '2' } });
    const file = await download(uploaded.documentId);
    expect(pdfFacts(file).pages).toBe(1);
    expect(pageText(file, 1)).toContain('TWO');
  });
});
