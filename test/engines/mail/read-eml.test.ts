import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MailEngineError } from '../../../src/engines/mail/errors.js';
import { readMail } from '../../../src/engines/mail/read-mail.js';
import { MINIMAL_PDF, PNG_1X1, crlf, sampleEml } from './fixtures.js';
import { rejectionOf } from '../../helpers/rejection.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('mail');
let counter = 0;

function file(content: string | Buffer): string {
  const target = path.join(dir, `m${counter++}.eml`);
  fs.writeFileSync(target, content);
  return target;
}

const LIMITS = { maxBytes: 1024 * 1024, maxAttachments: 10 };

const failure = (promise: Promise<unknown>): Promise<MailEngineError> => rejectionOf(promise, MailEngineError);

describe('readMail (eml)', () => {
  it('decodes headers, both bodies and the attachments of a multipart message', async () => {
    const mail = await readMail(file(sampleEml()), 'eml', LIMITS);
    expect(mail.subject).toBe('Grüße');
    expect(mail.from).toBe('"Jörg Müller" <joerg@example.test>');
    expect(mail.to).toBe('"Bob" <bob@example.test>, carol@example.test');
    expect(mail.cc).toBe('"Dave" <dave@example.test>');
    expect(mail.date?.toISOString()).toBe('2024-03-05T13:07:09.000Z');
    expect(mail.text).toBe('Grüße aus München (plain text part)\n');
    // The HTML is delivered as sent, cid: reference included; sanitising is the renderer's job.
    expect(mail.html).toContain('<img src="cid:logo@example.test"');
    expect(mail.html).toContain('<script>');
    expect(mail.attachments).toEqual([
      { fileName: 'logo.png', contentType: 'image/png', content: PNG_1X1, contentId: 'logo@example.test', inline: true, size: PNG_1X1.length },
      { fileName: 'report.pdf', contentType: 'application/pdf', content: MINIMAL_PDF, contentId: undefined, inline: false, size: MINIMAL_PDF.length },
    ]);
  });

  it('reads a plain-text message without MIME', async () => {
    const mail = await readMail(file(crlf(['From: a@example.test', 'Subject: Hi', '', 'Line 1', 'Line 2'])), 'eml', LIMITS);
    expect(mail).toMatchObject({ subject: 'Hi', from: 'a@example.test', to: '', cc: '', text: 'Line 1\nLine 2\n', html: undefined, attachments: [] });
    expect(mail.date).toBeUndefined();
  });

  it('leaves out a date that does not parse instead of showing the time of conversion', async () => {
    const mail = await readMail(file(crlf(['From: a@example.test', 'Date: next Tuesday-ish', '', 'x'])), 'eml', LIMITS);
    expect(mail.date).toBeUndefined();
  });

  it('joins repeated To fields', async () => {
    const mail = await readMail(file(crlf(['From: a@example.test', 'To: b@example.test', 'To: c@example.test', '', 'x'])), 'eml', LIMITS);
    expect(mail.to).toBe('b@example.test, c@example.test');
  });

  it('refuses a file without mail header fields as unreadable', async () => {
    const error = await failure(readMail(file(Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 10, 10, 65])), 'eml', LIMITS));
    expect(error.kind).toBe('unreadable');
  });

  it('refuses a missing file as unreadable', async () => {
    expect((await failure(readMail(path.join(dir, 'missing.eml'), 'eml', LIMITS))).kind).toBe('unreadable');
  });

  it('refuses a file larger than maxBytes', async () => {
    const eml = sampleEml();
    const error = await failure(readMail(file(eml), 'eml', { ...LIMITS, maxBytes: eml.length - 1 }));
    expect(error.kind).toBe('tooLarge');
    expect(error.message).toContain(`${eml.length - 1} bytes`);
  });

  it('refuses more attachments than maxAttachments', async () => {
    const error = await failure(readMail(file(sampleEml()), 'eml', { ...LIMITS, maxAttachments: 1 }));
    expect(error.kind).toBe('tooLarge');
    expect(error.message).toBe('The e-mail has 2 attachments; the limit is 1.');
  });
});
