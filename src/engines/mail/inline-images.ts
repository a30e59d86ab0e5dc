import type { Document } from 'domhandler';
import { DomUtils } from 'htmlparser2';
import type { MailAttachment } from './types.js';

/**
 * Upper bound for the data: URLs written into the body, counted per reference: a small message that
 * references one image thousands of times must not grow the HTML past what Chromium (or a JavaScript
 * string) can hold. References beyond it stay `cid:` links and show as missing images.
 */
export const MAX_INLINED_BYTES = 64 * 1024 * 1024;

/** The attributes through which HTML mail shows images. */
const IMAGE_ATTRIBUTES = ['src', 'background'] as const;

const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/**
 * Replaces `cid:` references (RFC 2392) with data: URLs of the attachments whose Content-ID they
 * name, and sets `inline` on every attachment it shows, so that the attachment list leaves it out.
 */
export function inlineCidImages(document: Document, attachments: readonly MailAttachment[]): void {
  const byContentId = new Map<string, MailAttachment>();
  for (const attachment of attachments) {
    const key = attachment.contentId === undefined ? '' : normalizeContentId(attachment.contentId);
    if (key !== '' && !byContentId.has(key)) byContentId.set(key, attachment);
  }
  if (byContentId.size === 0) return;

  const dataUrls = new Map<MailAttachment, string>();
  let budget = MAX_INLINED_BYTES;
  for (const element of DomUtils.findAll(() => true, document.children)) {
    for (const name of IMAGE_ATTRIBUTES) {
      const reference = /^\s*cid:(.*)$/is.exec(element.attribs[name] ?? '')?.[1];
      const attachment = reference === undefined ? undefined : byContentId.get(normalizeContentId(decodeUrl(reference)));
      if (attachment === undefined) continue;
      const url = dataUrls.get(attachment) ?? dataUrl(attachment);
      dataUrls.set(attachment, url);
      if (url.length > budget) continue;
      budget -= url.length;
      element.attribs[name] = url;
      attachment.inline = true;
    }
  }
}

/** Content-IDs compare without angle brackets and, leniently, without case: mailers disagree on both. */
function normalizeContentId(id: string): string {
  return id.trim().replace(/^<|>$/g, '').trim().toLowerCase();
}

/** A cid: URL carries the Content-ID URL-encoded (RFC 2392); most mailers do not encode at all. */
function decodeUrl(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function dataUrl(attachment: MailAttachment): string {
  // Chromium recognises images by their bytes; the type only has to be well-formed.
  const type = MIME_TYPE.test(attachment.contentType) ? attachment.contentType : 'application/octet-stream';
  return `data:${type};base64,${attachment.content.toString('base64')}`;
}
