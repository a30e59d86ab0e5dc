/**
 * A tokenizer for page content streams (PDF 32000-1, 7.2 and 8.2), just enough to find operators
 * with their byte positions and operands: used to find and cut out marked-content blocks and
 * `Do` calls without re-serialising anything else in the stream.
 */

export type Operand =
  | { type: 'name'; value: string }
  | { type: 'number' }
  | { type: 'string' }
  | { type: 'dict'; entries: Map<string, Operand> }
  | { type: 'array'; items: Operand[] }
  | { type: 'other' };

export interface ContentOperation {
  operator: string;
  operands: Operand[];
  /** Byte offset of the first operand (or of the operator). */
  start: number;
  /** Byte offset just past the operator (past EI for inline images). */
  end: number;
}

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

type Token =
  | { kind: 'name'; value: string; start: number; end: number }
  | { kind: 'number'; start: number; end: number }
  | { kind: 'string'; start: number; end: number }
  | { kind: 'dictStart' | 'dictEnd' | 'arrayStart' | 'arrayEnd' | 'braceStart' | 'braceEnd'; start: number; end: number }
  | { kind: 'keyword'; value: string; start: number; end: number };

class Lexer {
  pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  next(): Token | undefined {
    const b = this.bytes;
    for (;;) {
      while (this.pos < b.length && WHITESPACE.has(b[this.pos]!)) this.pos++;
      if (this.pos >= b.length) return undefined;
      if (b[this.pos] !== 0x25) break;
      while (this.pos < b.length && b[this.pos] !== 0x0a && b[this.pos] !== 0x0d) this.pos++;
    }
    const start = this.pos;
    const c = b[this.pos]!;
    if (c === 0x28) {
      let depth = 0;
      while (this.pos < b.length) {
        const ch = b[this.pos++]!;
        if (ch === 0x5c) this.pos++;
        else if (ch === 0x28) depth++;
        else if (ch === 0x29 && --depth === 0) break;
      }
      return { kind: 'string', start, end: this.pos };
    }
    if (c === 0x3c) {
      if (b[this.pos + 1] === 0x3c) {
        this.pos += 2;
        return { kind: 'dictStart', start, end: this.pos };
      }
      while (this.pos < b.length && b[this.pos] !== 0x3e) this.pos++;
      this.pos++;
      return { kind: 'string', start, end: this.pos };
    }
    if (c === 0x3e) {
      this.pos += b[this.pos + 1] === 0x3e ? 2 : 1;
      return { kind: 'dictEnd', start, end: this.pos };
    }
    if (c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d) {
      this.pos++;
      const kind = c === 0x5b ? 'arrayStart' : c === 0x5d ? 'arrayEnd' : c === 0x7b ? 'braceStart' : 'braceEnd';
      return { kind, start, end: this.pos };
    }
    if (c === 0x2f) {
      this.pos++;
      while (this.pos < b.length && !WHITESPACE.has(b[this.pos]!) && !DELIMITERS.has(b[this.pos]!)) this.pos++;
      const raw = Buffer.from(b.subarray(start + 1, this.pos)).toString('latin1');
      return { kind: 'name', value: raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), start, end: this.pos };
    }
    while (this.pos < b.length && !WHITESPACE.has(b[this.pos]!) && !DELIMITERS.has(b[this.pos]!)) this.pos++;
    if (this.pos === start) this.pos++; // a stray delimiter such as ')'
    // Numbers start with a digit, sign or point; their values are never needed here.
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) return { kind: 'number', start, end: this.pos };
    let text = '';
    for (let i = start; i < this.pos; i++) text += String.fromCharCode(b[i]!);
    return { kind: 'keyword', value: text, start, end: this.pos };
  }

  /** After `ID`: skips the binary data of an inline image, to just past its `EI`. */
  skipInlineImage(): void {
    const b = this.bytes;
    let i = this.pos + 1; // one whitespace byte follows ID
    for (; i + 1 < b.length; i++) {
      if (b[i] === 0x45 && b[i + 1] === 0x49 && WHITESPACE.has(b[i - 1]!) && (i + 2 >= b.length || WHITESPACE.has(b[i + 2]!))) {
        this.pos = i + 2;
        return;
      }
    }
    this.pos = b.length;
  }
}

/** Operands nest this deep at most; deeper nesting is malformed input. */
const MAX_NESTING = 256;

/** Every operation of a content stream, in order. Malformed input ends the scan early, never throws. */
export function scanContent(bytes: Uint8Array): ContentOperation[] {
  const lexer = new Lexer(bytes);
  const operations: ContentOperation[] = [];
  let operands: Operand[] = [];
  let operandStart = -1;
  // Containers under construction (dictionaries keep their entries as a flat list until closed).
  const stack: { kind: 'dict' | 'array'; items: Operand[] }[] = [];

  const push = (operand: Operand) => {
    const top = stack[stack.length - 1];
    if (top) top.items.push(operand);
    else operands.push(operand);
  };

  for (let token = lexer.next(); token; token = lexer.next()) {
    if (operandStart < 0) operandStart = token.start;
    switch (token.kind) {
      case 'name':
        push({ type: 'name', value: token.value });
        break;
      case 'number':
        push({ type: 'number' });
        break;
      case 'string':
        push({ type: 'string' });
        break;
      case 'dictStart':
      case 'arrayStart':
        // A stream of brackets would otherwise build one container per byte (hundreds of MB of them).
        if (stack.length >= MAX_NESTING) return operations;
        stack.push({ kind: token.kind === 'dictStart' ? 'dict' : 'array', items: [] });
        break;
      case 'dictEnd':
      case 'arrayEnd': {
        const container = stack.pop();
        if (!container) break;
        if (container.kind === 'array') {
          push({ type: 'array', items: container.items });
        } else {
          const entries = new Map<string, Operand>();
          for (let i = 0; i + 1 < container.items.length; i += 2) {
            const key = container.items[i]!;
            if (key.type === 'name') entries.set(key.value, container.items[i + 1]!);
          }
          push({ type: 'dict', entries });
        }
        break;
      }
      case 'braceStart':
      case 'braceEnd':
        push({ type: 'other' });
        break;
      case 'keyword': {
        if (token.value === 'true' || token.value === 'false' || token.value === 'null') {
          push({ type: 'other' });
          break;
        }
        if (stack.length > 0) {
          stack.length = 0; // an operator inside a dictionary: malformed, drop what was open
        }
        if (token.value === 'BI') {
          // Inline image: key/value pairs up to ID, then binary data up to EI.
          for (let t = lexer.next(); t; t = lexer.next()) {
            if (t.kind === 'keyword' && t.value === 'ID') {
              lexer.skipInlineImage();
              break;
            }
          }
          operations.push({ operator: 'BI', operands, start: operandStart, end: lexer.pos });
        } else {
          operations.push({ operator: token.value, operands, start: operandStart, end: token.end });
        }
        operands = [];
        operandStart = -1;
        break;
      }
    }
  }
  return operations;
}

/** Byte ranges to cut out of a stream. */
export type Range = [start: number, end: number];

/**
 * Marked-content blocks (`BDC`/`BMC` … matching `EMC`) whose tag and properties `matches` accepts,
 * and `Do` calls of XObjects `matchesXObject` accepts outside such blocks. Nested matches are
 * covered by the outer block. Unbalanced blocks (no EMC) are left alone.
 */
export function findBlocks(operations: readonly ContentOperation[], matches: (tag: string, properties: Operand | undefined) => boolean, matchesXObject: (name: string) => boolean): Range[] {
  const ranges: Range[] = [];
  const open: { start: number; matched: boolean }[] = [];
  let insideMatch = 0;
  for (const op of operations) {
    if (op.operator === 'BDC' || op.operator === 'BMC') {
      const tag = op.operands[0]?.type === 'name' ? op.operands[0].value : '';
      const matched = insideMatch === 0 && matches(tag, op.operator === 'BDC' ? op.operands[1] : undefined);
      open.push({ start: op.start, matched });
      if (matched) insideMatch++;
    } else if (op.operator === 'EMC') {
      const block = open.pop();
      if (block?.matched) {
        insideMatch--;
        ranges.push([block.start, op.end]);
      }
    } else if (op.operator === 'Do' && insideMatch === 0) {
      const name = op.operands[0];
      if (name?.type === 'name' && matchesXObject(name.value)) ranges.push([op.start, op.end]);
    }
  }
  return ranges.sort((a, b) => a[0] - b[0]);
}

/** The stream without the given ranges (each replaced by a line break, so tokens stay apart). */
export function cutRanges(bytes: Uint8Array, ranges: readonly Range[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start < at) continue;
    parts.push(bytes.subarray(at, start), Uint8Array.of(0x0a));
    at = end;
  }
  parts.push(bytes.subarray(at));
  return Buffer.concat(parts);
}
