/**
 * The base of the engines' own failures: a kind the operations layer maps to its error catalogue,
 * and a message safe to show a client. Engines know nothing of HTTP; each names its kinds.
 */
export class EngineError<K extends string> extends Error {
  readonly kind: K;
  /** A tool's own diagnostics (its stderr), for the server log; never shown to clients, never holds a password. */
  readonly detail: string;

  constructor(kind: K, message: string, options?: { detail?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = kind;
    this.detail = options?.detail ?? '';
  }
}
