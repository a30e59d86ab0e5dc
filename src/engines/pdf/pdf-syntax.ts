/**
 * A minimal reader of PDF object syntax (ISO 32000-1 §7.3) over a buffer: enough to read a trailer,
 * an xref stream's dictionary and an encryption dictionary without a PDF library. It is used where
 * qpdf cannot help (qpdf refuses to open files with an encryption handler it does not know).
 */
import { PdfEngineError } from './errors.js';

export interface PdfName {
  readonly kind: 'name';
  /** Without the slash, `#xx` escapes decoded (as latin1). */
  readonly name: string;
}
export interface PdfString {
  readonly kind: 'string';
  readonly bytes: Buffer;
}
export interface PdfRef {
  readonly kind: 'ref';
  readonly num: number;
  readonly gen: number;
}
export interface PdfDict {
  readonly kind: 'dict';
  readonly entries: Map<string, PdfValue>;
}
export type PdfValue = null | boolean | number | PdfName | PdfString | PdfRef | PdfDict | PdfValue[];

/** The buffer ended inside an object: read more bytes and try again. */
export class PdfSyntaxIncomplete extends Error {
  constructor() {
    super('PDF object runs past the end of the bytes read');
    this.name = 'PdfSyntaxIncomplete';
  }
}

/**
 * The bytes are not PDF syntax, or break one of the reader's bounds (nesting): the document is
 * unreadable (`invalidPdf`, -7 for the client), never a server fault.
 */
export class PdfSyntaxError extends PdfEngineError {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super('invalidPdf', `${message} at offset ${position}`);
    this.name = 'PdfSyntaxError';
  }
}

const MAX_DEPTH = 64;

/** The one-letter escapes of a literal string: \n \r \t \b \f (PDF 32000-1, 7.3.4.2). */
const ESCAPES = new Map<number, number>([
  [0x6e, 0x0a],
  [0x72, 0x0d],
  [0x74, 0x09],
  [0x62, 0x08],
  [0x66, 0x0c],
]);

function isWhite(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
}

function isDelimiter(byte: number): boolean {
  // ( ) < > [ ] { } / %
  return byte === 0x28 || byte === 0x29 || byte === 0x3c || byte === 0x3e || byte === 0x5b || byte === 0x5d || byte === 0x7b || byte === 0x7d || byte === 0x2f || byte === 0x25;
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

export class PdfParser {
  position: number;

  constructor(
    private readonly bytes: Buffer,
    position = 0,
  ) {
    this.position = position;
  }

  get length(): number {
    return this.bytes.length;
  }

  /** Skips white space and comments. */
  skipWhite(): void {
    const bytes = this.bytes;
    while (this.position < bytes.length) {
      const byte = bytes[this.position]!;
      if (isWhite(byte)) {
        this.position++;
      } else if (byte === 0x25) {
        while (this.position < bytes.length && bytes[this.position] !== 0x0a && bytes[this.position] !== 0x0d) this.position++;
      } else {
        return;
      }
    }
  }

  /** Reads a regular token (keyword or number) without consuming what follows. */
  private peekToken(): string {
    this.skipWhite();
    let end = this.position;
    while (end < this.bytes.length && !isWhite(this.bytes[end]!) && !isDelimiter(this.bytes[end]!)) end++;
    if (end === this.bytes.length) throw new PdfSyntaxIncomplete();
    return this.bytes.toString('latin1', this.position, end);
  }

  /** Consumes `keyword` if it comes next (after white space); returns whether it did. */
  acceptKeyword(keyword: string): boolean {
    const save = this.position;
    try {
      if (this.peekToken() === keyword) {
        this.position += keyword.length;
        return true;
      }
    } catch (error) {
      if (!(error instanceof PdfSyntaxIncomplete)) throw error;
    }
    this.position = save;
    return false;
  }

  /** Reads `num gen obj` and returns the object number and generation. */
  readObjectHeader(): { num: number; gen: number } {
    const num = this.readValue();
    const gen = this.readValue();
    if (typeof num !== 'number' || typeof gen !== 'number' || !this.acceptKeyword('obj')) {
      throw new PdfSyntaxError('expected "N G obj"', this.position);
    }
    return { num, gen };
  }

  readValue(depth = 0): PdfValue {
    if (depth > MAX_DEPTH) throw new PdfSyntaxError('objects nested too deeply', this.position);
    this.skipWhite();
    const bytes = this.bytes;
    if (this.position >= bytes.length) throw new PdfSyntaxIncomplete();
    const byte = bytes[this.position]!;
    if (byte === 0x2f) return this.readName();
    if (byte === 0x28) return this.readLiteralString();
    if (byte === 0x3c) {
      if (this.position + 1 >= bytes.length) throw new PdfSyntaxIncomplete();
      return bytes[this.position + 1] === 0x3c ? this.readDict(depth) : this.readHexString();
    }
    if (byte === 0x5b) return this.readArray(depth);
    const token = this.peekToken();
    if (token.length === 0) throw new PdfSyntaxError(`unexpected character ${JSON.stringify(String.fromCharCode(byte))}`, this.position);
    this.position += token.length;
    if (token === 'true') return true;
    if (token === 'false') return false;
    if (token === 'null') return null;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(token)) throw new PdfSyntaxError(`unexpected token ${JSON.stringify(token)}`, this.position - token.length);
    const value = Number(token);
    if (/^\d+$/.test(token)) {
      // Maybe "num gen R".
      const save = this.position;
      try {
        const gen = this.peekToken();
        if (/^\d+$/.test(gen)) {
          this.position += gen.length;
          if (this.peekToken() === 'R') {
            this.position += 1;
            return { kind: 'ref', num: value, gen: Number(gen) };
          }
        }
      } catch (error) {
        if (!(error instanceof PdfSyntaxIncomplete)) throw error;
        this.position = save;
        throw error;
      }
      this.position = save;
    }
    return value;
  }

  private readName(): PdfName {
    const bytes = this.bytes;
    this.position++; // '/'
    const out: number[] = [];
    while (this.position < bytes.length) {
      const byte = bytes[this.position]!;
      if (isWhite(byte) || isDelimiter(byte)) return { kind: 'name', name: Buffer.from(out).toString('latin1') };
      if (byte === 0x23 && this.position + 2 < bytes.length) {
        const high = hexValue(bytes[this.position + 1]!);
        const low = hexValue(bytes[this.position + 2]!);
        if (high >= 0 && low >= 0) {
          out.push(high * 16 + low);
          this.position += 3;
          continue;
        }
      }
      out.push(byte);
      this.position++;
    }
    throw new PdfSyntaxIncomplete();
  }

  private readLiteralString(): PdfString {
    const bytes = this.bytes;
    this.position++; // '('
    const out: number[] = [];
    let nesting = 1;
    while (this.position < bytes.length) {
      const byte = bytes[this.position++]!;
      if (byte === 0x5c) {
        if (this.position >= bytes.length) break;
        const next = bytes[this.position++]!;
        const escaped = ESCAPES.get(next);
        if (escaped !== undefined) {
          out.push(escaped);
          continue;
        }
        switch (next) {
          case 0x0d: // line continuation
            if (bytes[this.position] === 0x0a) this.position++;
            break;
          case 0x0a:
            break;
          default:
            if (next >= 0x30 && next <= 0x37) {
              let code = next - 0x30;
              for (let i = 0; i < 2 && this.position < bytes.length; i++) {
                const digit = bytes[this.position]!;
                if (digit < 0x30 || digit > 0x37) break;
                code = code * 8 + (digit - 0x30);
                this.position++;
              }
              out.push(code & 0xff);
            } else {
              out.push(next); // \( \) \\ and unknown escapes: the character itself
            }
        }
        continue;
      }
      if (byte === 0x28) nesting++;
      if (byte === 0x29 && --nesting === 0) return { kind: 'string', bytes: Buffer.from(out) };
      out.push(byte);
    }
    throw new PdfSyntaxIncomplete();
  }

  private readHexString(): PdfString {
    const bytes = this.bytes;
    this.position++; // '<'
    const digits: number[] = [];
    while (this.position < bytes.length) {
      const byte = bytes[this.position++]!;
      if (byte === 0x3e) {
        if (digits.length % 2 === 1) digits.push(0);
        const out = Buffer.alloc(digits.length / 2);
        for (let i = 0; i < out.length; i++) out[i] = digits[2 * i]! * 16 + digits[2 * i + 1]!;
        return { kind: 'string', bytes: out };
      }
      if (isWhite(byte)) continue;
      const value = hexValue(byte);
      if (value < 0) throw new PdfSyntaxError('bad character in hex string', this.position - 1);
      digits.push(value);
    }
    throw new PdfSyntaxIncomplete();
  }

  private readArray(depth: number): PdfValue[] {
    this.position++; // '['
    const items: PdfValue[] = [];
    for (;;) {
      this.skipWhite();
      if (this.position >= this.bytes.length) throw new PdfSyntaxIncomplete();
      if (this.bytes[this.position] === 0x5d) {
        this.position++;
        return items;
      }
      items.push(this.readValue(depth + 1));
    }
  }

  private readDict(depth: number): PdfDict {
    this.position += 2; // '<<'
    const entries = new Map<string, PdfValue>();
    for (;;) {
      this.skipWhite();
      if (this.position + 1 >= this.bytes.length) throw new PdfSyntaxIncomplete();
      if (this.bytes[this.position] === 0x3e && this.bytes[this.position + 1] === 0x3e) {
        this.position += 2;
        return { kind: 'dict', entries };
      }
      const key = this.readValue(depth + 1);
      if (key === null || typeof key !== 'object' || Array.isArray(key) || key.kind !== 'name') {
        throw new PdfSyntaxError('dictionary key is not a name', this.position);
      }
      entries.set(key.name, this.readValue(depth + 1));
    }
  }
}

// ---- typed accessors ----

export function isDict(value: PdfValue | undefined): value is PdfDict {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && value.kind === 'dict';
}
export function isRef(value: PdfValue | undefined): value is PdfRef {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && value.kind === 'ref';
}
export function isName(value: PdfValue | undefined): value is PdfName {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && value.kind === 'name';
}
export function isString(value: PdfValue | undefined): value is PdfString {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && value.kind === 'string';
}
export function nameOf(value: PdfValue | undefined): string | undefined {
  return isName(value) ? value.name : undefined;
}
export function numberOf(value: PdfValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
