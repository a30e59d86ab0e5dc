import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDate, formatSize } from '../../../src/engines/mail/header.js';
import { MAX_INLINED_BYTES } from '../../../src/engines/mail/inline-images.js';
import { readMail } from '../../../src/engines/mail/read-mail.js';
import { mailToHtml } from '../../../src/engines/mail/render.js';
import type { MailAttachment, MailMessage } from '../../../src/engines/mail/types.js';
import { TextEngineError } from '../../../src/engines/text/errors.js';
import { PNG_1X1, SAMPLE_MSG, sampleEml } from './fixtures.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('mail');

const LIMITS = { maxBytes: 1024 * 1024, maxAttachments: 10 };

async function sampleMessage(): Promise<MailMessage> {
  const file = path.join(dir, 'sample.eml');
  fs.writeFileSync(file, sampleEml());
  return readMail(file, 'eml', LIMITS);
}

function message(overrides: Partial<MailMessage>): MailMessage {
  return { subject: 'S', from: 'a@example.test', to: 'b@example.test', cc: '', attachments: [], ...overrides };
}

function attachment(overrides: Partial<MailAttachment>): MailAttachment {
  const content = overrides.content ?? PNG_1X1;
  return { fileName: 'a.png', contentType: 'image/png', content, inline: false, size: content.length, ...overrides };
}

function body(html: string): string {
  return html.slice(html.indexOf('<body>') + 6, html.lastIndexOf('</body>'));
}

function header(html: string): string {
  const start = html.indexOf('<div class="quire-mail-header">');
  return html.slice(start, html.indexOf('<div class="quire-mail-body">'));
}

const PNG_DATA_URL = `data:image/png;base64,${PNG_1X1.toString('base64')}`;

describe('mailToHtml with an HTML body', () => {
  it('renders the sample: header decoded, scripts gone, the cid: image inlined, the PDF listed', async () => {
    const mail = await sampleMessage();
    const html = mailToHtml(mail);

    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<title>Grüße</title>');
    expect(header(html)).toContain('<tr><th>Subject</th><td>Grüße</td></tr>');
    expect(header(html)).toContain('<tr><th>From</th><td>&quot;Jörg Müller&quot; &lt;joerg@example.test&gt;</td></tr>');
    expect(header(html)).toContain('<tr><th>To</th><td>&quot;Bob&quot; &lt;bob@example.test&gt;, carol@example.test</td></tr>');
    expect(header(html)).toContain('<tr><th>Cc</th><td>&quot;Dave&quot; &lt;dave@example.test&gt;</td></tr>');
    expect(header(html)).toContain('<tr><th>Date</th><td>2024-03-05 13:07:09 UTC</td></tr>');
    expect(header(html)).toContain('<div class="quire-mail-attachments"><b>Attachments:</b> report.pdf (193 B)</div>');
    expect(header(html)).not.toContain('logo.png');

    const content = body(html);
    expect(content).toContain('<p class="greeting">Grüße aus <b>München</b></p>');
    expect(content).toContain(`<img src="${PNG_DATA_URL}" alt="Logo" width="16" height="16">`);
    expect(content).not.toContain('cid:');
    expect(content).toContain('<style>p.greeting { color: #204080; }</style>');
    expect(content).toContain('<div style="background-color: #ffffee">');
    expect(content).toContain('<a>bad link</a> <a href="https://example.com/">good link</a>');
    expect(content).toContain('<label>Name <input name="q"></label>');
    expect(content).toContain('<img src="https://images.example.com/remote.png" alt="remote">');
    for (const gone of ['<script', 'alert(', 'onclick', 'onload', 'javascript:', '<iframe', '<object', '<embed', '<form', '<meta', 'refresh', 'Ignored title', 'evil.example']) {
      expect(content, gone).not.toContain(gone);
    }
    expect(html.match(/<script/gi)).toBeNull();

    expect(mail.attachments.map((a) => [a.fileName, a.inline])).toEqual([
      ['logo.png', true],
      ['report.pdf', false],
    ]);
  });

  it('runs nothing even with JavaScript on: a Content-Security-Policy without script', async () => {
    const html = mailToHtml(await sampleMessage());
    expect(html).toContain('<meta http-equiv="Content-Security-Policy" content="script-src &#39;none&#39;; object-src &#39;none&#39;;');
    expect(html).toContain('form-action &#39;none&#39;; base-uri &#39;none&#39;">');
  });

  it('adds the resize rules only when asked', async () => {
    const mail = await sampleMessage();
    const plain = mailToHtml(mail);
    expect(plain).not.toContain('max-width: 100%');
    const resized = mailToHtml(mail, { resizeImages: true, resizeTables: true });
    expect(resized).toContain('.quire-mail-body img { max-width: 100% !important; height: auto !important; }');
    expect(resized).toContain('.quire-mail-body table { max-width: 100% !important; table-layout: fixed !important; }');
    expect(resized).toContain('.quire-mail-body td, .quire-mail-body th { overflow-wrap: anywhere; }');
  });

  it('inlines a referenced image even when the mail did not mark it as inline, and lists unreferenced ones', () => {
    const used = attachment({ fileName: 'used.png', contentId: '<Image001@Example>' });
    const unused = attachment({ fileName: 'unused.png', contentId: 'other@example' });
    const html = mailToHtml(
      message({
        html: '<p><img src="cid:image001%40example"><img background="cid:missing@example" src="cid:missing@example"></p>',
        attachments: [used, unused],
      }),
    );
    expect(body(html)).toContain(`<img src="${PNG_DATA_URL}">`);
    expect(body(html)).toContain('<img background="cid:missing@example" src="cid:missing@example">');
    expect(used.inline).toBe(true);
    expect(unused.inline).toBe(false);
    expect(header(html)).toContain('<b>Attachments:</b> unused.png (69 B)</div>');
  });

  it('stops inlining at MAX_INLINED_BYTES: the rest stay cid: links', () => {
    const big = attachment({ content: Buffer.alloc(1024 * 1024, 1), contentType: 'image/png', contentId: 'big@example' });
    const references = Math.ceil(MAX_INLINED_BYTES / (1.34 * 1024 * 1024)) + 5;
    const html = mailToHtml(message({ html: '<img src="cid:big@example">'.repeat(references), attachments: [big] }));
    const inlined = html.split('data:image/png;base64,').length - 1;
    expect(inlined).toBeGreaterThan(0);
    expect(inlined).toBeLessThan(references);
    expect(html.split('src="cid:big@example"').length - 1).toBe(references - inlined);
  });

  it('writes a malformed content type of an inlined image as application/octet-stream', () => {
    const odd = attachment({ contentType: 'image/png"><script>', contentId: 'x@example' });
    const html = mailToHtml(message({ html: '<img src="cid:x@example">', attachments: [odd] }));
    expect(body(html)).toContain('<img src="data:application/octet-stream;base64,');
  });

  it('escapes the header fields and attachment names', () => {
    const html = mailToHtml(
      message({
        subject: '<script>alert(1)</script>',
        from: '"Evil" <evil@example.test>',
        text: 'x',
        attachments: [attachment({ fileName: '<img src=x onerror=alert(1)>.pdf', contentType: 'application/pdf' })],
      }),
    );
    expect(html).toContain('<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>');
    expect(header(html)).toContain('<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>');
    expect(header(html)).toContain('&lt;img src=x onerror=alert(1)&gt;.pdf (69 B)');
    expect(html).not.toMatch(/<script|<img src=x/);
  });

  it('leaves out empty header fields but always shows the subject', () => {
    const html = header(mailToHtml(message({ subject: '', to: '', text: 'x' })));
    expect(html).toBe('<div class="quire-mail-header"><table><tr><th>Subject</th><td></td></tr><tr><th>From</th><td>a@example.test</td></tr></table></div>');
  });

  it('renders the Outlook sample the same way', async () => {
    const mail = await readMail(SAMPLE_MSG, 'msg', LIMITS);
    const html = mailToHtml(mail);
    expect(header(html)).toContain('<tr><th>Subject</th><td>Grüße aus Outlook</td></tr>');
    expect(header(html)).toContain('<tr><th>Date</th><td>2024-03-05 13:07:09 UTC</td></tr>');
    expect(header(html)).toContain('<b>Attachments:</b> report.pdf (193 B)</div>');
    expect(body(html)).toContain(`<p><img src="${PNG_DATA_URL}" alt="Logo"></p>`);
    expect(body(html)).toContain('<div><p>Hallo aus Outlook, schöne Grüße!</p>');
    expect(body(html)).toContain('<a>Link</a>');
    expect(html).not.toMatch(/<script|onload|javascript:|alert\(/);
  });
});

describe('mailToHtml with a plain-text body', () => {
  it('escapes and wraps the text like the text renderer', () => {
    const html = mailToHtml(message({ text: 'Hallo <b>Welt</b>\r\nGrüße & 日本語\r\n', html: undefined }));
    expect(body(html)).toContain('<div class="quire-mail-body"><div class="quire-text">Hallo &lt;b&gt;Welt&lt;/b&gt;\nGrüße &amp; 日本語\n</div></div>');
    expect(html).toMatch(/\.quire-text \{[^}]*white-space: pre-wrap;[^}]*overflow-wrap: anywhere;/);
  });

  it('uses the plain-text body when the HTML body is blank, with the given text options', () => {
    const html = mailToHtml(message({ html: '  \n', text: 'one\ntwo' }), { text: { lineNumbers: true, fontSize: '9pt' } });
    expect(body(html)).toContain('<div class="quire-text quire-numbered"><span>one\n</span><span>two\n</span></div>');
    expect(html).toContain('font-size: 9pt;');
  });

  it('validates the text options', () => {
    expect(() => mailToHtml(message({ text: 'x' }), { text: { color: 'red;}' } })).toThrow(TextEngineError);
  });

  it('renders a message without any body', () => {
    expect(body(mailToHtml(message({})))).toContain('<div class="quire-mail-body"><div class="quire-text"></div></div>');
  });
});

describe('formatting', () => {
  it('formats dates in UTC, ISO order', () => {
    expect(formatDate(new Date('2024-12-31T23:59:59+01:00'))).toBe('2024-12-31 22:59:59 UTC');
    expect(formatDate(new Date('not a date'))).toBe('');
  });

  it('formats sizes in binary units', () => {
    expect([0, 1023, 1024, 12 * 1024 + 100, 1024 * 1024 - 1, 3.44 * 1024 * 1024].map(formatSize)).toEqual(['0 B', '1023 B', '1 KB', '12 KB', '1.0 MB', '3.4 MB']);
  });
});
