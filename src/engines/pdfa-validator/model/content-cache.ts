/**
 * Content streams are read twice by the model walk: by the PD layer (operators with graphics state and
 * resources: pd/content.ts) and by the COS layer (every operand is a COS object: cos/walk.ts). Decoding and
 * parsing them is a fifth of a validation, so the PD read keeps the tokens of what it read and the COS walk
 * takes them (and so forgets them: the PD walk is over by then, model/index.ts).
 *
 * Bounded: tokens are kept only for MAX_CACHED_CONTENT_BYTES of decoded content per document (~200 pages of
 * text; the tokens weigh about ten times their bytes), beyond which a stream is read afresh each time, as
 * it was before. A stream that cannot be decoded is remembered with its reason (nothing to keep).
 */
import { type ContentToken, type CosDocument, type CosStream, contentTokens, type DecodeResult } from '../cos/index.js';

/** Decoded content bytes whose tokens are kept at once. */
export const MAX_CACHED_CONTENT_BYTES = 1024 * 1024;

export type ContentRead = { readonly ok: true; readonly tokens: Iterable<ContentToken> } | Extract<DecodeResult, { ok: false }>;

export class ContentCache {
  private readonly kept = new Map<CosStream, ContentRead>();
  private keptBytes = 0;

  constructor(
    private readonly doc: CosDocument,
    private readonly maxBytes = MAX_CACHED_CONTENT_BYTES,
  ) {}

  /** The stream's tokens (kept for the next reader while the budget has room), or why it cannot be decoded. */
  read(stream: CosStream): ContentRead {
    const known = this.kept.get(stream);
    if (known !== undefined) return known;
    const decoded = this.doc.decodeStream(stream);
    if (!decoded.ok) {
      this.kept.set(stream, decoded);
      return decoded;
    }
    if (this.keptBytes + decoded.data.length > this.maxBytes) return { ok: true, tokens: contentTokens(decoded.data, this.doc.env) };
    this.keptBytes += decoded.data.length;
    const read: ContentRead = { ok: true, tokens: [...contentTokens(decoded.data, this.doc.env)] };
    this.kept.set(stream, read);
    return read;
  }

  /** As `read`, for the last reader: what was kept for the stream is forgotten. */
  take(stream: CosStream): ContentRead {
    const known = this.kept.get(stream);
    if (known === undefined) {
      const decoded = this.doc.decodeStream(stream);
      return decoded.ok ? { ok: true, tokens: contentTokens(decoded.data, this.doc.env) } : decoded;
    }
    this.kept.delete(stream);
    return known;
  }
}
