/**
 * The mail engine: reads e-mails (.eml with mailparser, Outlook .msg with msgreader) into one form and
 * renders them as a self-contained, sanitised HTML document for Chromium to print.
 */
export { MailEngineError } from './errors.js';
export type { MailEngineErrorKind } from './errors.js';
export { readMail } from './read-mail.js';
export { mailToHtml } from './render.js';
export type { MailToHtmlOptions } from './render.js';
export { sanitizeHtml, serializeHtml } from './sanitize-html.js';
export type { MailAttachment, MailLimits, MailMessage } from './types.js';
