import { EngineError } from '../engine-error.js';

/**
 * The pdf-lib engine's error and its fault test, without loading pdf-lib: the error tables
 * (operations/engine-errors.ts, operations/toolbox/engine-errors.ts) are loaded at server start,
 * pdf-lib (~345 modules with culori, ~12 MB of resident memory) only with the first toolbox
 * operation that edits with it (pdf-lib-io.ts, which registers pdf-lib's error classes here as it
 * loads; every operation that uses pdf-lib loads pdf-lib-io.ts).
 */
export type PdfLibErrorKind = 'unreadable' | 'tooLarge';

export class PdfLibError extends EngineError<PdfLibErrorKind> {}

/** pdf-lib's error classes that mean "the document is not what pdf-lib expected" (registered by pdf-lib-io.ts). */
let documentErrors: readonly (abstract new (...args: never[]) => Error)[] = [];

export function registerDocumentErrors(types: readonly (abstract new (...args: never[]) => Error)[]): void {
  documentErrors = types;
}

/**
 * Whether an error was raised by pdf-lib itself while it read the document's objects: one of its own
 * error classes, or any error thrown from inside its code (a TypeError on an object of an unexpected
 * shape, a failed range assertion, a stack overflow on a deep structure). pdf-lib reads objects
 * lazily, long after loading, so such failures surface in the middle of an edit; they are the
 * document's fault (a 4xx), not the server's. The toolbox maps them at its engine boundary.
 */
export function isPdfLibFault(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (documentErrors.some((type) => error instanceof type)) return true;
  // The frames below the message line; only those with a source location say whose code threw.
  const frames = (error.stack ?? '')
    .split('\n')
    .slice(1)
    .filter((line) => /\(?\/|file:/.test(line));
  const inLibrary = (line: string) => /[\\/]@cantoo[\\/]pdf-lib[\\/]/.test(line);
  if (error instanceof RangeError && /call stack/i.test(error.message)) return frames.some(inLibrary);
  return frames.length > 0 && inLibrary(frames[0]!);
}

/** The first line of an error's message (pdf-lib's messages can carry dumps of objects). */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300);
}
