import { htmlDocument, renderTextBlock } from '../text/index.js';
import type { TextRenderOptions } from '../text/index.js';
import { renderHeader } from './header.js';
import { inlineCidImages } from './inline-images.js';
import { sanitizeHtml, serializeHtml } from './sanitize-html.js';
import type { MailMessage } from './types.js';

export interface MailToHtmlOptions {
  /** Scale images down to the page width (webPDF `resizeImages`). */
  resizeImages?: boolean;
  /** Fit tables to the page width with fixed layout and wrap their cells' words (webPDF `resizeTables`). */
  resizeTables?: boolean;
  /** Layout of a plain-text body, as for text files; validated the same way (TextEngineError `invalidOption`). */
  text?: TextRenderOptions;
}

/**
 * No script, plug-in, frame, form submission or <base>, whatever the mail's markup says: a second line
 * of defence behind sanitizeHtml. Images, style sheets and fonts may load from anywhere; whether the
 * network is reachable at all is the Chromium job's decision.
 */
const MAIL_CSP = "script-src 'none'; object-src 'none'; frame-src 'none'; child-src 'none'; worker-src 'none'; form-action 'none'; base-uri 'none'";

/** Our header, and the defaults for a body that sets no font (mail clients show sans-serif, not the browser's serif). */
const BASE_CSS = `body { margin: 0; }
.quire-mail-header { font-family: "DejaVu Sans", "Liberation Sans", "Noto Sans CJK JP", sans-serif; font-size: 12px; color: #000000;
  border-bottom: 1px solid #999999; padding-bottom: 8px; margin-bottom: 12px; }
.quire-mail-header table { border-collapse: collapse; }
.quire-mail-header th { text-align: left; vertical-align: top; font-weight: bold; padding: 1px 12px 1px 0; white-space: nowrap; }
.quire-mail-header td { padding: 1px 0; overflow-wrap: anywhere; }
.quire-mail-attachments { margin-top: 6px; overflow-wrap: anywhere; }
.quire-mail-body { font-family: "DejaVu Sans", "Liberation Sans", "Noto Sans CJK JP", sans-serif; overflow-wrap: break-word; }
`;

const RESIZE_IMAGES_CSS = '.quire-mail-body img { max-width: 100% !important; height: auto !important; }\n';

const RESIZE_TABLES_CSS = '.quire-mail-body table { max-width: 100% !important; table-layout: fixed !important; }\n' + '.quire-mail-body td, .quire-mail-body th { overflow-wrap: anywhere; }\n';

/**
 * Renders a message as one self-contained HTML document: the header block, then the body: the HTML
 * body sanitised with its `cid:` images inlined, or else the plain-text body laid out like a text file.
 * Sets `inline` on the attachments the body shows (see MailAttachment.inline).
 */
export function mailToHtml(message: MailMessage, options: MailToHtmlOptions = {}): string {
  let body: string;
  let css = BASE_CSS;
  if (message.html !== undefined && message.html.trim() !== '') {
    const document = sanitizeHtml(message.html);
    inlineCidImages(document, message.attachments);
    body = serializeHtml(document);
  } else {
    const block = renderTextBlock((message.text ?? '').replace(/\r\n?/g, '\n'), options.text);
    body = block.html;
    css += block.css;
  }
  if (options.resizeImages === true) css += RESIZE_IMAGES_CSS;
  if (options.resizeTables === true) css += RESIZE_TABLES_CSS;
  // The header is rendered last: only now is it known which attachments the body shows.
  return htmlDocument({
    title: message.subject,
    css,
    body: `${renderHeader(message)}<div class="quire-mail-body">${body}</div>`,
    contentSecurityPolicy: MAIL_CSP,
  });
}
