import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A 1x1 red PNG. */
export const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC', 'base64');

/** A one-page PDF, small enough to read in a failure message. */
export const MINIMAL_PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
  'latin1',
);

export const SAMPLE_MSG = path.resolve(import.meta.dirname, '../../fixtures/mail/sample.msg');

export function makeTempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'quire-mail-'));
}

/** Base64 in 76-character lines, as MIME writes it. */
export function base64Lines(content: Buffer | string): string {
  return Buffer.from(content)
    .toString('base64')
    .replace(/.{76}(?=.)/g, '$&\r\n');
}

/** Joins lines with CRLF, as RFC 5322 requires on the wire. */
export function crlf(lines: string[]): string {
  return `${lines.join('\r\n')}\r\n`;
}

/** The HTML body of the full sample: hostile parts next to the harmless ones. */
export const SAMPLE_HTML =
  '<html><head><title>Ignored title</title><meta http-equiv="refresh" content="0;url=https://evil.example/">' +
  '<style>p.greeting { color: #204080; }</style><script>alert("head")</script></head>' +
  '<body onload="steal()" style="background-color: #ffffee"><p class="greeting" onclick="alert(1)">Grüße aus <b>München</b></p>' +
  '<p><img src="cid:logo@example.test" alt="Logo" width="16" height="16"></p>' +
  '<p><a href=" javascript:alert(2)">bad link</a> <a href="https://example.com/">good link</a></p>' +
  '<iframe src="https://evil.example/"></iframe><object data="x.swf"><p>object fallback</p></object><embed src="x.swf">' +
  '<form action="https://evil.example/"><label>Name <input name="q"></label></form>' +
  '<img src="https://images.example.com/remote.png" alt="remote">' +
  '</body></html>';

/**
 * A message as mail clients send one with an HTML body, an embedded image and an attachment:
 * multipart/mixed [ multipart/alternative [ text/plain (quoted-printable),
 * multipart/related [ text/html (base64), image/png with Content-ID ] ], application/pdf ],
 * with an ISO-8859-1 encoded-word subject and sender name.
 */
export function sampleEml(): string {
  return crlf([
    'Return-Path: <joerg@example.test>',
    'From: =?ISO-8859-1?Q?J=F6rg_M=FCller?= <joerg@example.test>',
    'To: "Bob" <bob@example.test>, carol@example.test',
    'Cc: Dave <dave@example.test>',
    'Subject: =?ISO-8859-1?Q?Gr=FC=DFe?=',
    'Date: Tue, 05 Mar 2024 14:07:09 +0100',
    'Message-ID: <sample-1@example.test>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="mixed-boundary"',
    '',
    'This is a multi-part message in MIME format.',
    '--mixed-boundary',
    'Content-Type: multipart/alternative; boundary="alt-boundary"',
    '',
    '--alt-boundary',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    'Gr=C3=BC=C3=9Fe aus M=C3=BCnchen (plain text part)',
    '',
    '--alt-boundary',
    'Content-Type: multipart/related; boundary="rel-boundary"',
    '',
    '--rel-boundary',
    'Content-Type: text/html; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    base64Lines(SAMPLE_HTML),
    '--rel-boundary',
    'Content-Type: image/png; name="logo.png"',
    'Content-Transfer-Encoding: base64',
    'Content-ID: <logo@example.test>',
    'Content-Disposition: inline; filename="logo.png"',
    '',
    base64Lines(PNG_1X1),
    '--rel-boundary--',
    '',
    '--alt-boundary--',
    '',
    '--mixed-boundary',
    'Content-Type: application/pdf; name="report.pdf"',
    'Content-Transfer-Encoding: base64',
    'Content-Disposition: attachment; filename="report.pdf"',
    '',
    base64Lines(MINIMAL_PDF),
    '--mixed-boundary--',
  ]);
}
