/**
 * Why the auto-tagger cannot structure a document: content beyond its bounds (`tooLarge`), content
 * it cannot read or mark safely (`unsupported`). Apart from the tagger so the conversion can test for
 * it without loading pdf-lib.
 */
export type AutoTagErrorKind = 'tooLarge' | 'unsupported';

export class AutoTagError extends Error {
  constructor(
    readonly kind: AutoTagErrorKind,
    message: string,
  ) {
    super(message);
  }
}
