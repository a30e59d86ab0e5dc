import { createRequire } from 'node:module';
import type msgreader from '@kenjiuno/msgreader';
import type { FieldsData } from '@kenjiuno/msgreader';
import { fileTypeByExtension } from '../../core/file-types.js';
import { decodeBytes, readBounded } from '../text/index.js';
import { codepageEncoding } from './codepages.js';
import { MailEngineError } from './errors.js';
import { formatMailbox, parseMailDate } from './fields.js';
import type { MailAttachment, MailLimits, MailMessage } from './types.js';

// msgreader is CommonJS compiled from TypeScript, with the class as `exports.default`. An ESM default
// import yields the exports object under Node but the class under vitest's interop, so the module is
// loaded with require, which means the same everywhere.
const { default: MsgReader } = createRequire(import.meta.url)('@kenjiuno/msgreader') as typeof msgreader;
type Reader = InstanceType<typeof MsgReader>;

/**
 * Reads an Outlook item (.msg, a compound file) with msgreader. It needs the whole file in memory,
 * which the byte limit bounds. Bodies: the HTML body (PidTagHtml, in the message's code page) if there
 * is one, and the plain-text body; an RTF-only body is not converted.
 */
export async function readMsg(path: string, limits: MailLimits): Promise<MailMessage> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readBounded(path, limits.maxBytes);
  } catch (error) {
    throw new MailEngineError('unreadable', 'The Outlook message file cannot be read.', { cause: error });
  }
  if (bytes === undefined) throw new MailEngineError('tooLarge', `The Outlook message file is larger than the limit of ${limits.maxBytes} bytes.`);

  let reader: Reader;
  let data: FieldsData;
  try {
    reader = new MsgReader(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    data = reader.getFileData();
  } catch (error) {
    throw notMsg(error);
  }
  if (data.dataType !== 'msg' || data.error !== undefined) throw notMsg(data.error);
  const fields = data.attachments ?? [];
  if (fields.length > limits.maxAttachments) {
    throw new MailEngineError('tooLarge', `The Outlook message has ${fields.length} attachments; the limit is ${limits.maxAttachments}.`);
  }

  const recipients = data.recipients ?? [];
  return {
    subject: data.subject ?? '',
    from: formatMailbox(data.senderName, data.senderSmtpAddress ?? data.senderEmail),
    to: recipientList(recipients, 'to'),
    cc: recipientList(recipients, 'cc'),
    date: parseMailDate(data.clientSubmitTime ?? data.messageDeliveryTime),
    html: data.html === undefined ? data.bodyHtml : decodeBytes(data.html, codepageEncoding(data.internetCodepage)).text,
    text: data.body,
    attachments: fields.map((field, index) => toAttachment(reader, field, index)),
  };
}

function notMsg(cause: unknown): MailEngineError {
  return new MailEngineError('unreadable', 'The file is not a readable Outlook message (.msg).', { cause });
}

function recipientList(recipients: FieldsData[], type: 'to' | 'cc'): string {
  return recipients
    .filter((recipient) => recipient.recipType === type)
    .map((recipient) => formatMailbox(recipient.name, recipient.smtpAddress ?? recipient.email))
    .filter((text) => text !== '')
    .join(', ');
}

/**
 * An attached file, or an attached Outlook item, which msgreader writes out as a .msg file of its own.
 * An attachment whose content it cannot extract (e.g. an OLE object) is kept, empty, so it is still listed.
 */
function toAttachment(reader: Reader, field: FieldsData, index: number): MailAttachment {
  let content: Buffer = Buffer.alloc(0);
  let fileName = field.fileName || field.name || field.fileNameShort;
  try {
    const extracted = reader.getAttachment(field);
    content = Buffer.from(extracted.content.buffer, extracted.content.byteOffset, extracted.content.byteLength);
    fileName = extracted.fileName || fileName;
  } catch {
    // keep the empty content
  }
  return {
    fileName: fileName || `attachment-${index + 1}`,
    contentType: (field.attachMimeTag ?? typeByExtension(field.extension)).toLowerCase(),
    content,
    contentId: field.pidContentId || undefined,
    // Outlook hides the images of the HTML body (PidTagAttachmentHidden) from its attachment list.
    inline: field.attachmentHidden === true && field.pidContentId !== undefined,
    size: content.length,
  };
}

function typeByExtension(extension: string | undefined): string {
  return (extension === undefined ? undefined : fileTypeByExtension(extension)?.mimeType) ?? 'application/octet-stream';
}
