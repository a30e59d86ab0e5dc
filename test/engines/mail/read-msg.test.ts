import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MailEngineError } from '../../../src/engines/mail/errors.js';
import { readMail } from '../../../src/engines/mail/read-mail.js';
import { MINIMAL_PDF, PNG_1X1, SAMPLE_MSG } from './fixtures.js';
import { rejectionOf } from '../../helpers/rejection.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('mail');

const LIMITS = { maxBytes: 1024 * 1024, maxAttachments: 10 };

const failure = (promise: Promise<unknown>): Promise<MailEngineError> => rejectionOf(promise, MailEngineError);

// test/fixtures/mail/sample.msg: see the README there for how it was made and what it holds.
describe('readMail (msg)', () => {
  it('reads the header fields, bodies and attachments of an Outlook message', async () => {
    const mail = await readMail(SAMPLE_MSG, 'msg', LIMITS);
    expect(mail.subject).toBe('Grüße aus Outlook');
    expect(mail.from).toBe('"Alice Sender" <alice@example.test>');
    expect(mail.to).toBe('"Bob Empfänger" <bob@example.test>');
    expect(mail.cc).toBe('"Carol" <carol@example.test>');
    expect(mail.date?.toISOString()).toBe('2024-03-05T13:07:09.000Z');
    expect(mail.text).toBe('Hallo aus Outlook, schöne Grüße!\r\n');
    expect(mail.html).toContain('<p>Hallo aus Outlook, schöne Grüße!</p>');
    expect(mail.html).toContain('<img src="cid:logo@quire.test" alt="Logo">');
    expect(mail.attachments).toEqual([
      { fileName: 'logo.png', contentType: 'image/png', content: PNG_1X1, contentId: 'logo@quire.test', inline: true, size: PNG_1X1.length },
      { fileName: 'report.pdf', contentType: 'application/pdf', content: MINIMAL_PDF, contentId: undefined, inline: false, size: MINIMAL_PDF.length },
    ]);
  });

  it('refuses a file that is not a compound file, and an empty one', async () => {
    for (const content of [Buffer.from('From: a@example.test\r\n\r\nnot an Outlook file'), Buffer.alloc(0)]) {
      const target = path.join(dir, 'not.msg');
      fs.writeFileSync(target, content);
      expect((await failure(readMail(target, 'msg', LIMITS))).kind).toBe('unreadable');
    }
  });

  it('refuses a file larger than maxBytes', async () => {
    const size = fs.statSync(SAMPLE_MSG).size;
    const error = await failure(readMail(SAMPLE_MSG, 'msg', { ...LIMITS, maxBytes: size - 1 }));
    expect(error.kind).toBe('tooLarge');
  });

  it('refuses more attachments than maxAttachments', async () => {
    const error = await failure(readMail(SAMPLE_MSG, 'msg', { ...LIMITS, maxAttachments: 1 }));
    expect(error.kind).toBe('tooLarge');
    expect(error.message).toBe('The Outlook message has 2 attachments; the limit is 1.');
  });
});
