import type { FileType } from '../../core/file-types.js';
import type { Session } from '../../sessions/session.js';
import type { WorkFile } from '../transaction/document-transaction.js';
import type { ToolboxEngines } from './engines.js';

/** The 22 toolbox operations of webPDF (reference §10.9), in the order the reference lists them. */
export const TOOLBOX_OPERATIONS = [
  'annotation',
  'attachment',
  'delete',
  'description',
  'extraction',
  'forms',
  'image',
  'merge',
  'move',
  'options',
  'print',
  'rotate',
  'security',
  'split',
  'watermark',
  'xmp',
  'outline',
  'redact',
  'portfolio',
  'scale',
  'compress',
  'transcribe',
] as const;

export type ToolboxOperationName = (typeof TOOLBOX_OPERATIONS)[number];

/** The document as a toolbox chain passes it from step to step: the document transaction's work file. */
export type { WorkFile };

/** Another document of the session (merge by `id`), hard-linked into the scratch directory. */
export interface SessionFile {
  path: string;
  type: FileType;
  fileName: string;
  /** Remembered credentials of that document, if any. */
  password?: string;
}

export interface ToolboxContext {
  session: Session;
  /** The call's scratch directory (removed afterwards). */
  workDir: string;
  /** A fresh, unused path in the scratch directory ending in `.<extension>`. */
  scratch(extension: string): string;
  /**
   * Runs `work` with a fresh directory for many small intermediate files: in memory (tmpfs) when about
   * `estimatedBytes` fit the memory scratch budget, else on disk. Should the memory attempt fail (the
   * estimate was too low and tmpfs filled up, say), `work` runs again in a disk directory. The
   * directory lives until the call ends.
   */
  inFastDirectory<T>(estimatedBytes: number, work: (dir: string) => Promise<T>): Promise<T>;
  /**
   * The open password of the document the chain started from, from the call's `password` or
   * remembered by `PUT documents/{id}/security/password`. The chain works on a decrypted copy; this is
   * for operations that must know it (security), not for opening `input`.
   */
  password: string | undefined;
  /** A stored document of the same session, by id (throws DOCUMENT_NOT_FOUND, -70, for others). */
  sessionDocument(documentId: string): Promise<SessionFile>;
  engines: ToolboxEngines;
  /** Epoch milliseconds by which the whole call must be done. */
  deadline: number;
  /** `{ deadline }`: the per-call options the engines' methods take. */
  readonly call: { readonly deadline: number };
  /** Bytes a result may have (the session's upload limit; 0 = none). */
  maxResultBytes: number;
}

/**
 * One toolbox operation: reads `input`, writes its result to a new scratch file and returns it. It
 * must not modify `input` (an earlier step's result may be needed for the error path). It throws
 * QuireError (PARAMETER naming the field as `toolbox[i].<op>.<field>`, OPTION_UNSUPPORTED, ...) or an
 * engine error that `fromToolboxEngine` maps.
 */
export interface ToolboxOperation<O = unknown> {
  readonly name: ToolboxOperationName;
  /** False for operations that accept any input (none so far); true: the input must be a PDF. */
  readonly needsPdf: boolean;
  run(input: WorkFile, options: O, context: ToolboxContext, field: string): Promise<WorkFile>;
}
