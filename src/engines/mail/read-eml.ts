import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import { simpleParser } from 'mailparser';
import type { AddressObject, ParsedMail } from 'mailparser';
import { MailEngineError } from './errors.js';
import { parseMailDate } from './fields.js';
import type { MailLimits, MailMessage } from './types.js';

/**
 * Header fields of which at least one must be present: mailparser accepts any bytes as a message
 * (garbage becomes a body without headers), so this is what tells a mail from something else.
 */
const MAIL_FIELDS = new Set(['from', 'to', 'cc', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'received', 'return-path', 'sender']);

/** Reads an RFC 822 / MIME message (.eml) with mailparser, streaming the file. */
export async function readEml(path: string, limits: MailLimits): Promise<MailMessage> {
  let size: number;
  try {
    size = (await fsp.stat(path)).size;
  } catch (error) {
    throw new MailEngineError('unreadable', 'The e-mail file cannot be read.', { cause: error });
  }
  if (size > limits.maxBytes) throw tooLarge(limits);

  let mail: ParsedMail;
  try {
    const source = Readable.from(bounded(fs.createReadStream(path), limits));
    // cid: links stay for mailToHtml, which inlines them for .eml and .msg alike; the text that
    // mailparser would derive from an HTML-only body is never used.
    mail = await simpleParser(source, { keepCidLinks: true, skipHtmlToText: true });
  } catch (error) {
    if (error instanceof MailEngineError) throw error;
    throw new MailEngineError('unreadable', 'The e-mail cannot be parsed.', { cause: error });
  }
  if (!mail.headerLines.some((line) => MAIL_FIELDS.has(line.key))) {
    throw new MailEngineError('unreadable', 'The file is not an e-mail message: it has no mail header fields.');
  }
  if (mail.attachments.length > limits.maxAttachments) {
    throw new MailEngineError('tooLarge', `The e-mail has ${mail.attachments.length} attachments; the limit is ${limits.maxAttachments}.`);
  }

  return {
    subject: mail.subject ?? '',
    from: addressText(mail.from),
    to: addressText(mail.to),
    cc: addressText(mail.cc),
    date: parseMailDate(fieldValue(mail, 'date')),
    html: typeof mail.html === 'string' ? mail.html : undefined,
    text: mail.text,
    attachments: mail.attachments.map((attachment, index) => ({
      fileName: attachment.filename ?? `attachment-${index + 1}`,
      contentType: (attachment.contentType || 'application/octet-stream').toLowerCase(),
      content: attachment.content,
      contentId: attachment.cid || undefined,
      inline: attachment.related === true,
      size: attachment.content.length,
    })),
  };
}

/** The file's bytes, failing with `tooLarge` if it grows past the limit while being read. */
async function* bounded(stream: AsyncIterable<Buffer>, limits: MailLimits): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total > limits.maxBytes) throw tooLarge(limits);
    yield chunk;
  }
}

function tooLarge(limits: MailLimits): MailEngineError {
  return new MailEngineError('tooLarge', `The e-mail file is larger than the limit of ${limits.maxBytes} bytes.`);
}

function addressText(value: AddressObject | AddressObject[] | undefined): string {
  return [value ?? []]
    .flat()
    .map((address) => address.text)
    .filter((text) => text !== '')
    .join(', ');
}

/** The raw value of a header field: mailparser replaces an unparsable Date by the current time. */
function fieldValue(mail: ParsedMail, key: string): string | undefined {
  const line = mail.headerLines.find((header) => header.key === key)?.line;
  return line === undefined ? undefined : line.slice(line.indexOf(':') + 1).trim();
}
