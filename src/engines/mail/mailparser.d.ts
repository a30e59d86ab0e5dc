/**
 * Type declarations for the part of mailparser 3.9 (which ships none) that the mail engine uses,
 * written from its lib/simple-parser.js and lib/mail-parser.js. Remove this file if @types/mailparser
 * is ever added as a dependency.
 */
declare module 'mailparser' {
  import type { Readable } from 'node:stream';

  export interface SimpleParserOptions {
    /** Leave `cid:` references in the HTML as they are instead of inlining them as data: URLs. */
    keepCidLinks?: boolean;
    /** Do not derive a text body from an HTML-only message. */
    skipHtmlToText?: boolean;
  }

  export interface EmailAddress {
    name: string;
    address?: string;
    group?: EmailAddress[];
  }

  export interface AddressObject {
    value: EmailAddress[];
    html: string;
    /** e.g. `"Alice" <alice@example.com>, bob@example.com` */
    text: string;
  }

  export interface HeaderLine {
    /** Lower-case field name. */
    key: string;
    /** The whole raw field, name included, unfolded. */
    line: string;
  }

  export interface Attachment {
    filename?: string;
    contentType: string;
    contentDisposition?: string;
    content: Buffer;
    size: number;
    /** The Content-ID without angle brackets. */
    cid?: string;
    /** Set when the part has a Content-ID and sits inside multipart/related. */
    related?: boolean;
  }

  export interface ParsedMail {
    headerLines: HeaderLine[];
    subject?: string;
    from?: AddressObject;
    to?: AddressObject | AddressObject[];
    cc?: AddressObject | AddressObject[];
    date?: Date;
    html?: string | false;
    text?: string;
    attachments: Attachment[];
  }

  export function simpleParser(source: Readable | Buffer | string, options?: SimpleParserOptions): Promise<ParsedMail>;
}
