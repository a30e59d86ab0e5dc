/**
 * The base of the engines' own failures: a kind the operations layer maps to its error catalogue,
 * and a message safe to show a client. Engines know nothing of HTTP; each names its kinds.
 */
export class EngineError<K extends string> extends Error {
  readonly kind: K;

  constructor(kind: K, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = kind;
  }
}
