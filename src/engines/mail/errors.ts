import { EngineError } from '../engine-error.js';

/**
 * Failures of the mail engine, by kind. The engine knows nothing of HTTP or the errors catalogue; the
 * operations layer maps the kinds. Messages are safe to show the client: they never carry a path.
 */
export type MailEngineErrorKind =
  /** Not a parsable RFC 822 message or Outlook .msg file, or the file cannot be read. */
  | 'unreadable'
  /** The file is larger than the limit, or the message has more attachments than allowed. */
  | 'tooLarge';

export class MailEngineError extends EngineError<MailEngineErrorKind> {}
