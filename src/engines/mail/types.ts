/** A mail message as both readers (.eml and .msg) deliver it: decoded, independent of the file format. */
export interface MailMessage {
  subject: string;
  /** Display form, e.g. `"Alice" <alice@example.com>`; empty when the header is missing. */
  from: string;
  /** Display form of all To recipients, comma separated. */
  to: string;
  /** Display form of all Cc recipients, comma separated. */
  cc: string;
  /** When the message was sent; undefined if the message has no valid date. */
  date?: Date;
  /** The HTML body if any, as the sender wrote it: untrusted, sanitised only when rendered. */
  html?: string;
  /** The plain-text body. */
  text?: string;
  attachments: MailAttachment[];
}

export interface MailAttachment {
  /** The sender's name for the file: display data only, never a path to use. */
  fileName: string;
  /** The declared MIME type, lower case; `application/octet-stream` when unknown. */
  contentType: string;
  content: Buffer;
  /** The Content-ID without angle brackets, which the HTML body references as `cid:...`. */
  contentId?: string;
  /**
   * True for a part that belongs inside the body (an image of the HTML body) rather than being a file
   * of its own. The readers set it from what the message declares; mailToHtml also sets it on every
   * attachment it actually shows in the body, so that it is not listed as an attachment.
   */
  inline: boolean;
  /** Bytes of `content`. */
  size: number;
}

/** Limits a reader enforces; exceeding one is a `tooLarge` error. */
export interface MailLimits {
  /** The largest mail file accepted. */
  maxBytes: number;
  /** The most attachments (inline images included) a message may have. */
  maxAttachments: number;
}
