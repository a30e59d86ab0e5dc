/**
 * The COS (Carousel Object System, ISO 32000-1 §7.3) values of the PDF/A validator, as read from the raw
 * bytes. Unlike a PDF library's model they keep the syntax facts ISO 19005 rules are about: whether a
 * string was written in hex and how, a number's source text, a name's decoded bytes, a stream's keyword
 * EOLs and real length. See README.md in this folder for the table of veraPDF Cos* properties.
 */

export interface CosNull {
  readonly kind: 'null';
}
export interface CosBool {
  readonly kind: 'bool';
  readonly value: boolean;
}
export interface CosInt {
  readonly kind: 'int';
  /** As a JavaScript number: beyond 2^53 only approximately, which is enough for the range rules. */
  readonly value: number;
}
export interface CosReal {
  readonly kind: 'real';
  readonly value: number;
}
export interface CosName {
  readonly kind: 'name';
  /** The name's bytes after `#xx` decoding, one char per byte (latin1): `value.length` is the byte length ISO 32000-1 Annex C limits. */
  readonly value: string;
}
export interface CosString {
  readonly kind: 'string';
  /** The decoded bytes (escapes resolved for literals, hex pairs for hex strings; an odd last digit padded with 0). */
  readonly bytes: Buffer;
  /** Written as `<…>`. */
  readonly isHex: boolean;
  /** Hex strings: the number of non-white-space characters between `<` and `>` (ISO 19005 6.1.6 wants it even). */
  readonly hexCount: number;
  /** Hex strings: every non-white-space character is 0-9, A-F or a-f. True for literal strings. */
  readonly containsOnlyHex: boolean;
}
export interface CosArray {
  readonly kind: 'array';
  readonly items: CosValue[];
}
export interface CosDict {
  readonly kind: 'dict';
  /** Keys are name values (latin1, without the slash). A repeated key keeps its last value. */
  readonly entries: Map<string, CosValue>;
}
export interface CosRef {
  readonly kind: 'ref';
  readonly num: number;
  readonly gen: number;
}

/** Where a stream's bytes lie and what ISO 19005 6.1.7 asks of its keywords. */
export interface CosStreamFacts {
  /** The /Length value as written (an indirect one resolved); null when absent or not an integer. */
  readonly Length: number | null;
  /**
   * The number of bytes after the EOL that ends the `stream` line and before the EOL that precedes
   * `endstream` (ISO 19005-1 6.1.7); null when no `endstream` was found.
   */
  readonly realLength: number | null;
  /** `stream` is followed by CR LF or by a single LF (and nothing else before the data). */
  readonly streamKeywordCRLFCompliant: boolean;
  /** `endstream` is preceded by an EOL marker (CR or LF). */
  readonly endstreamKeywordEOLCompliant: boolean;
}

export interface CosStream {
  readonly kind: 'stream';
  readonly dict: CosDict;
  readonly facts: CosStreamFacts;
  /** The buffer the raw data lies in (the file, never an object stream: streams cannot be compressed objects). */
  readonly source: Buffer;
  /** Offset of the first data byte in `source`. */
  readonly dataStart: number;
  /** The raw (still encoded) data length used for decoding: /Length when it is plausible, else realLength. */
  readonly dataLength: number;
}

export type CosValue = CosNull | CosBool | CosInt | CosReal | CosName | CosString | CosArray | CosDict | CosRef | CosStream;

/** The syntax facts ISO 19005-1 6.1.8 / -2 6.1.9 check around `n g obj … endobj`. */
export interface CosIndirectSpacing {
  /** The byte before the object number is an EOL marker. */
  readonly numberPrecededByEOL: boolean;
  /** Exactly one white-space byte between object and generation number. */
  readonly singleSpaceNumberGeneration: boolean;
  /** Exactly one white-space byte between generation number and `obj`. */
  readonly singleSpaceGenerationObj: boolean;
  /** `obj` is followed by an EOL marker. */
  readonly objFollowedByEOL: boolean;
  /** `endobj` was found and is preceded by an EOL marker. */
  readonly endobjPrecededByEOL: boolean;
  /** `endobj` was found and is followed by an EOL marker. */
  readonly endobjFollowedByEOL: boolean;
}

export interface CosIndirect {
  readonly num: number;
  readonly gen: number;
  readonly value: CosValue;
  /** Byte offset of the object number in the file; for a compressed object, the object stream's number. */
  readonly offset: number;
  readonly objectStream: number | null;
  /** Null for a compressed object (it has no `obj`/`endobj` syntax of its own to check). */
  readonly spacing: CosIndirectSpacing | null;
}

export const COS_NULL: CosNull = Object.freeze({ kind: 'null' });

export function isDict(v: CosValue | undefined): v is CosDict {
  return v?.kind === 'dict';
}

/** A stream's dictionary or a dictionary itself: what `/Key` lookups apply to. */
export function dictOf(v: CosValue | undefined): CosDict | undefined {
  if (v === undefined) return undefined;
  if (v.kind === 'dict') return v;
  if (v.kind === 'stream') return v.dict;
  return undefined;
}
