import { escapeHtml } from '../text/index.js';
import type { MailAttachment, MailMessage } from './types.js';

/**
 * The block above the body: Subject, From, To, Cc and Date, then the attachments that the body does
 * not show. Every value is escaped; empty fields other than the subject are left out.
 */
export function renderHeader(message: MailMessage): string {
  const rows: Array<[string, string]> = [
    ['Subject', message.subject],
    ['From', message.from],
    ['To', message.to],
    ['Cc', message.cc],
    ['Date', message.date === undefined ? '' : formatDate(message.date)],
  ];
  const table = rows
    .filter(([label, value]) => label === 'Subject' || value !== '')
    .map(([label, value]) => `<tr><th>${label}</th><td>${escapeHtml(value)}</td></tr>`)
    .join('');
  const listed = message.attachments.filter((attachment) => !attachment.inline);
  const attachments = listed.length === 0 ? '' : `<div class="quire-mail-attachments"><b>Attachments:</b> ${listed.map(describeAttachment).join(', ')}</div>`;
  return `<div class="quire-mail-header"><table>${table}</table>${attachments}</div>`;
}

/** ISO 8601 order in UTC, e.g. `2024-03-05 13:07:09 UTC`: no day/month ambiguity, no local time zone. */
export function formatDate(date: Date): string {
  if (Number.isNaN(date.getTime())) return '';
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** Sizes as mail clients show them, in binary units: `512 B`, `12 KB`, `3.4 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const kilobytes = Math.round(bytes / 1024);
  return kilobytes < 1024 ? `${kilobytes} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function describeAttachment(attachment: MailAttachment): string {
  return `${escapeHtml(attachment.fileName)} (${formatSize(attachment.size)})`;
}
