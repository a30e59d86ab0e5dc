/**
 * A tolerant reader of PDF object syntax (ISO 32000-1 §7.3) over one buffer. It never throws on bad
 * bytes: what cannot be read becomes null and a problem note, and nesting, token count and search
 * lengths are bounded (limits.ts) so a hostile file cannot make it recurse without end or spin.
 */
import type { CosLimits } from './limits.js';
import { hexValue, isDelimiter, isDigit, isRegular, isWhite } from './syntax.js';
import { COS_NULL, type CosArray, type CosDict, type CosName, type CosString, type CosValue } from './types.js';

/** Shared by every parser of one document: the work budget and what was cut short. */
export interface ParseEnv {
  readonly limits: CosLimits;
  /** Tokens still allowed; at 0 every further read yields null. */
  tokensLeft: number;
  /** Names of the limits reached (e.g. 'maxDepth'): the document could not be read completely. */
  readonly limitsHit: Set<string>;
  /** Human-readable notes on broken syntax, capped in number. */
  readonly problems: string[];
}

const MAX_PROBLEMS = 200;

export function note(env: ParseEnv, problem: string): void {
  if (env.problems.length < MAX_PROBLEMS) env.problems.push(problem);
}

export function newParseEnv(limits: CosLimits): ParseEnv {
  return { limits, tokensLeft: limits.maxTokens, limitsHit: new Set(), problems: [] };
}

/** A bare keyword met where a value was expected (`obj`, `endobj`, `stream`, `R`, an operator…). */
export interface CosKeyword {
  readonly kind: 'keyword';
  readonly value: string;
}

/** Keywords that end the object being read: meeting one inside an array or dictionary means the object is broken. */
const OBJECT_ENDERS = new Set(['obj', 'endobj', 'stream', 'endstream', 'xref', 'trailer', 'startxref']);

const INT_RE = /^[+-]?\d+$/;
const REAL_RE = /^[+-]?(\d+\.\d*|\.\d+)$/;

export class CosParser {
  pos: number;

  constructor(
    readonly buf: Buffer,
    readonly env: ParseEnv,
    start = 0,
  ) {
    this.pos = start;
  }

  /** Skips white-space and comments. */
  skipSpace(): void {
    const buf = this.buf;
    let p = this.pos;
    for (;;) {
      const b = buf[p];
      if (b === undefined) break;
      if (isWhite(b)) {
        p++;
      } else if (b === 0x25 /* % */) {
        while (p < buf.length && buf[p] !== 0x0a && buf[p] !== 0x0d) p++;
      } else {
        break;
      }
    }
    this.pos = p;
  }

  /** Reads a regular token (keyword or number text) at the current position, without skipping space first. */
  private readRegular(): string {
    const start = this.pos;
    let p = start;
    while (p < this.buf.length && isRegular(this.buf[p])) p++;
    this.pos = p;
    return this.buf.toString('latin1', start, p);
  }

  /** The keyword at the current position (after space), without consuming it; null if the next token is not a keyword. */
  peekKeyword(): string | null {
    this.skipSpace();
    const save = this.pos;
    if (!isRegular(this.buf[save])) return null;
    const word = this.readRegular();
    this.pos = save;
    return INT_RE.test(word) || REAL_RE.test(word) ? null : word;
  }

  /** Reads an unsigned integer written with digits only, or null (position unchanged). */
  readUnsigned(): number | null {
    const start = this.pos;
    let p = start;
    while (isDigit(this.buf[p])) p++;
    if (p === start || p - start > 15 || isRegular(this.buf[p])) return null;
    this.pos = p;
    return Number(this.buf.toString('latin1', start, p));
  }

  /** True (and recorded) when the work budget is spent. */
  private outOfBudget(): boolean {
    if (this.env.tokensLeft > 0) return false;
    this.env.limitsHit.add('maxTokens');
    return true;
  }

  private spend(): boolean {
    if (this.env.tokensLeft <= 0) {
      this.env.limitsHit.add('maxTokens');
      return false;
    }
    this.env.tokensLeft--;
    return true;
  }

  /**
   * Reads one value. An indirect reference `n g R` is recognised here; a keyword other than
   * true/false/null is returned as such for the caller to judge. Null at the end of the buffer.
   */
  readValue(depth = 0): CosValue | CosKeyword {
    this.skipSpace();
    if (!this.spend()) {
      this.pos = this.buf.length;
      return COS_NULL;
    }
    const buf = this.buf;
    const b = buf[this.pos];
    if (b === undefined) return COS_NULL;
    switch (b) {
      case 0x2f /* / */:
        return this.readName();
      case 0x28 /* ( */:
        return this.readLiteral();
      case 0x3c /* < */:
        if (buf[this.pos + 1] === 0x3c) return this.readDict(depth);
        return this.readHex();
      case 0x5b /* [ */:
        return this.readArray(depth);
      case 0x5d /* ] */:
      case 0x3e /* > */:
      case 0x29 /* ) */:
      case 0x7b /* { */:
      case 0x7d /* } */:
        this.pos++;
        return { kind: 'keyword', value: String.fromCharCode(b) };
      default:
        break;
    }
    const word = this.readRegular();
    if (word === '') {
      // A lone delimiter the cases above do not take: step over it.
      this.pos++;
      return { kind: 'keyword', value: String.fromCharCode(b) };
    }
    if (INT_RE.test(word)) {
      const value = Number(word);
      // `n g R`: look ahead for a second unsigned integer and R; otherwise leave the position after n.
      if (word[0] !== '+' && word[0] !== '-') {
        const save = this.pos;
        this.skipSpace();
        const gen = this.readUnsigned();
        if (gen !== null) {
          this.skipSpace();
          if (buf[this.pos] === 0x52 /* R */ && !isRegular(buf[this.pos + 1])) {
            this.pos++;
            return { kind: 'ref', num: value, gen };
          }
        }
        this.pos = save;
      }
      return { kind: 'int', value };
    }
    if (REAL_RE.test(word)) return { kind: 'real', value: Number(word) };
    if (word === 'true') return { kind: 'bool', value: true };
    if (word === 'false') return { kind: 'bool', value: false };
    if (word === 'null') return COS_NULL;
    return { kind: 'keyword', value: word };
  }

  /** Reads a value and turns a keyword into null (with a note): for places where only a value makes sense. */
  readObject(depth = 0): CosValue {
    const v = this.readValue(depth);
    if (v.kind === 'keyword') {
      note(this.env, `unexpected keyword '${v.value.slice(0, 20)}' at ${this.pos}`);
      return COS_NULL;
    }
    return v;
  }

  private readName(): CosName {
    const buf = this.buf;
    let p = this.pos + 1;
    const start = p;
    let escaped = false;
    while (p < buf.length && isRegular(buf[p])) {
      if (buf[p] === 0x23) escaped = true;
      p++;
    }
    this.pos = p;
    if (!escaped) return { kind: 'name', value: buf.toString('latin1', start, p) };
    let out = '';
    for (let i = start; i < p; i++) {
      const c = buf[i] as number;
      const h1 = hexValue(buf[i + 1]);
      const h2 = hexValue(buf[i + 2]);
      if (c === 0x23 && i + 2 < p && h1 >= 0 && h2 >= 0) {
        out += String.fromCharCode(h1 * 16 + h2);
        i += 2;
      } else {
        out += String.fromCharCode(c);
      }
    }
    return { kind: 'name', value: out };
  }

  private readLiteral(): CosString {
    const buf = this.buf;
    // Most strings have no escape, no nested parenthesis and no CR: their bytes are the file's, as they are (a view, no copy).
    let q = this.pos + 1;
    while (q < buf.length) {
      const c = buf[q];
      if (c === 0x5c || c === 0x28 || c === 0x29 || c === 0x0d) break;
      q++;
    }
    if (buf[q] === 0x29) {
      const bytes = buf.subarray(this.pos + 1, q);
      this.pos = q + 1;
      return { kind: 'string', bytes, isHex: false, hexCount: 0, containsOnlyHex: true };
    }
    let p = this.pos + 1;
    let depth = 1;
    const out: number[] = [];
    while (p < buf.length) {
      const c = buf[p] as number;
      if (c === 0x5c /* \ */) {
        const e = buf[p + 1];
        p += 2;
        switch (e) {
          case 0x6e:
            out.push(0x0a);
            break;
          case 0x72:
            out.push(0x0d);
            break;
          case 0x74:
            out.push(0x09);
            break;
          case 0x62:
            out.push(0x08);
            break;
          case 0x66:
            out.push(0x0c);
            break;
          case 0x0d: // line continuation: backslash EOL is nothing
            if (buf[p] === 0x0a) p++;
            break;
          case 0x0a:
            break;
          case undefined:
            break;
          default:
            if (e >= 0x30 && e <= 0x37) {
              let v = e - 0x30;
              for (let k = 0; k < 2 && (buf[p] ?? 0) >= 0x30 && (buf[p] ?? 0) <= 0x37; k++) v = v * 8 + ((buf[p++] as number) - 0x30);
              out.push(v & 0xff);
            } else {
              out.push(e); // \( \) \\ and any other escaped byte stand for themselves
            }
        }
        continue;
      }
      if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) {
        p++;
        break;
      }
      if (c === 0x0d) {
        // An unescaped EOL in a literal string reads as LF (ISO 32000-1 §7.3.4.2).
        out.push(0x0a);
        if (buf[p + 1] === 0x0a) p++;
      } else {
        out.push(c);
      }
      p++;
    }
    if (depth !== 0) note(this.env, `unterminated literal string at ${this.pos}`);
    this.pos = p;
    return { kind: 'string', bytes: Buffer.from(out), isHex: false, hexCount: 0, containsOnlyHex: true };
  }

  private readHex(): CosString {
    const buf = this.buf;
    let p = this.pos + 1;
    let count = 0;
    let onlyHex = true;
    const out: number[] = [];
    let high = -1;
    while (p < buf.length && buf[p] !== 0x3e) {
      const c = buf[p] as number;
      p++;
      if (isWhite(c)) continue;
      count++;
      const v = hexValue(c);
      if (v < 0) {
        onlyHex = false;
        continue;
      }
      if (high < 0) high = v;
      else {
        out.push(high * 16 + v);
        high = -1;
      }
    }
    if (high >= 0) out.push(high * 16);
    if (p >= buf.length) note(this.env, `unterminated hex string at ${this.pos}`);
    this.pos = Math.min(p + 1, buf.length);
    return { kind: 'string', bytes: Buffer.from(out), isHex: true, hexCount: count, containsOnlyHex: onlyHex };
  }

  private tooDeep(depth: number): boolean {
    if (depth < this.env.limits.maxDepth) return false;
    this.env.limitsHit.add('maxDepth');
    note(this.env, `nesting deeper than ${this.env.limits.maxDepth} at ${this.pos}`);
    return true;
  }

  /** Skips a too-deep container without recursion: counts brackets until they balance or an object ends. */
  private skipContainer(): void {
    const buf = this.buf;
    let level = 0;
    let p = this.pos;
    while (p < buf.length) {
      const c = buf[p];
      if (c === 0x5b || (c === 0x3c && buf[p + 1] === 0x3c)) {
        level++;
        p += c === 0x5b ? 1 : 2;
      } else if (c === 0x5d || (c === 0x3e && buf[p + 1] === 0x3e)) {
        level--;
        p += c === 0x5d ? 1 : 2;
        if (level <= 0) break;
      } else if (c === 0x65 /* e */ && buf.toString('latin1', p, p + 6) === 'endobj') {
        break;
      } else {
        p++;
      }
    }
    this.pos = p;
  }

  private readArray(depth: number): CosArray | CosValue {
    if (this.tooDeep(depth)) {
      this.skipContainer();
      return COS_NULL;
    }
    this.pos++;
    const items: CosValue[] = [];
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.buf.length) {
        note(this.env, 'array runs past the end of the data');
        break;
      }
      if (this.buf[this.pos] === 0x5d) {
        this.pos++;
        break;
      }
      const save = this.pos;
      const v = this.readValue(depth + 1);
      if (v.kind === 'keyword') {
        if (OBJECT_ENDERS.has(v.value)) {
          this.pos = save;
          note(this.env, `array not closed before '${v.value}' at ${save}`);
          break;
        }
        note(this.env, `stray '${v.value.slice(0, 20)}' in array at ${save}`);
        continue;
      }
      items.push(v);
      if (this.outOfBudget()) break;
    }
    return { kind: 'array', items };
  }

  private readDict(depth: number): CosDict | CosValue {
    if (this.tooDeep(depth)) {
      this.skipContainer();
      return COS_NULL;
    }
    this.pos += 2;
    const entries = new Map<string, CosValue>();
    for (;;) {
      this.skipSpace();
      const buf = this.buf;
      if (this.pos >= buf.length) {
        note(this.env, 'dictionary runs past the end of the data');
        break;
      }
      if (buf[this.pos] === 0x3e && buf[this.pos + 1] === 0x3e) {
        this.pos += 2;
        break;
      }
      const save = this.pos;
      const key = this.readValue(depth + 1);
      if (key.kind !== 'name') {
        if (key.kind === 'keyword' && OBJECT_ENDERS.has(key.value)) {
          this.pos = save;
          note(this.env, `dictionary not closed before '${key.value}' at ${save}`);
          break;
        }
        note(this.env, `dictionary key is not a name at ${save}`);
        if (this.outOfBudget()) break;
        continue;
      }
      this.skipSpace();
      // A key directly followed by `>>` has no value: it reads as null, as most readers do.
      if (buf[this.pos] === 0x3e && buf[this.pos + 1] === 0x3e) {
        entries.set(key.value, COS_NULL);
        continue;
      }
      const valueStart = this.pos;
      const v = this.readValue(depth + 1);
      if (v.kind === 'keyword') {
        if (OBJECT_ENDERS.has(v.value)) {
          this.pos = valueStart;
          entries.set(key.value, COS_NULL);
          note(this.env, `dictionary not closed before '${v.value}' at ${valueStart}`);
          break;
        }
        note(this.env, `stray '${v.value.slice(0, 20)}' as dictionary value at ${valueStart}`);
        entries.set(key.value, COS_NULL);
        continue;
      }
      entries.set(key.value, v);
      if (this.outOfBudget()) break;
    }
    return { kind: 'dict', entries };
  }
}

export function isDelimiterOrEnd(buf: Buffer, pos: number): boolean {
  return pos >= buf.length || isWhite(buf[pos]) || isDelimiter(buf[pos]);
}
