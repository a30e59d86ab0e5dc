import { EngineError } from '../engine-error.js';

/**
 * The one error type of the archive engine. `kind` says what went wrong so the caller can map it onto
 * the errors catalogue; `message` names the entry or rule and is safe to show the client (entry names
 * are JSON-quoted, so control characters and odd Unicode cannot forge log lines or headers).
 */
export type ArchiveErrorKind =
  /** An entry name could escape a target folder or is otherwise not a plain relative path. */
  | 'unsafePath'
  /** Two file entries carry the same name (case-sensitive). */
  | 'duplicate'
  /** The archive has more entries than allowed. */
  | 'tooManyEntries'
  /** A member, or all selected members together, exceed the byte limits. */
  | 'tooLarge'
  /** A member's compression ratio is beyond the limit (zip bomb). */
  | 'ratio'
  /** A member is itself an archive and nesting is not allowed. */
  | 'nested'
  /** A member is encrypted. */
  | 'encrypted'
  /** A member uses a compression method other than STORE/DEFLATE, is a symbolic link, or the archive spans disks. */
  | 'unsupported'
  /** A member inflates to a different number of bytes than its central directory declares. */
  | 'sizeMismatch'
  /** The archive is not a readable ZIP: truncated, bad signatures, overlapping members, CRC or inflate errors. */
  | 'corrupt'
  /** No member with the requested path. */
  | 'notFound'
  /** A file filter rule is invalid, unsafe (ReDoS) or took too long to evaluate. */
  | 'badFilter';

export class ArchiveError extends EngineError<ArchiveErrorKind> {
  /** The entry the error is about, when there is one. */
  readonly entryName: string | undefined;

  constructor(kind: ArchiveErrorKind, message: string, options?: { entryName?: string; cause?: unknown }) {
    super(kind, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = `ArchiveError(${kind})`;
    this.entryName = options?.entryName;
  }
}

/** An entry name for messages: quoted and escaped, and cut if absurdly long. */
export function quoteName(name: string): string {
  const shown = name.length > 200 ? `${name.slice(0, 200)}…` : name;
  return JSON.stringify(shown);
}
