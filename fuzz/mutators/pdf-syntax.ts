/**
 * A small, forgiving PDF tokenizer and object parser for structure-aware mutations. It works on the
 * file as latin1 text (one char per byte), finds "N G obj … endobj" bodies and trailer dictionaries,
 * and lists every dictionary entry with the byte range of its value, so that a mutator can replace a
 * count, a reference or a whole value without understanding the rest. Stream data is skipped.
 */

export type TokenType = 'number' | 'name' | 'string' | 'hex' | 'dictOpen' | 'dictClose' | 'arrayOpen' | 'arrayClose' | 'keyword';

export interface Token {
  type: TokenType;
  start: number;
  end: number;
  text: string;
}

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([...'()<>[]{}/%'].map((c) => c.charCodeAt(0)));

function isRegular(code: number): boolean {
  return !WHITESPACE.has(code) && !DELIMITERS.has(code);
}

/** Tokens of text[from, to); stops after `limit` tokens (bodies of hostile files can be huge). */
export function tokenize(text: string, from = 0, to = text.length, limit = 1_000_000): Token[] {
  const tokens: Token[] = [];
  let i = from;
  while (i < to && tokens.length < limit) {
    const c = text.charCodeAt(i);
    if (WHITESPACE.has(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === 0x25 /* % */) {
      while (i < to && text[i] !== '\n' && text[i] !== '\r') i++;
      continue;
    }
    if (c === 0x2f /* / */) {
      i++;
      while (i < to && isRegular(text.charCodeAt(i))) i++;
      tokens.push({ type: 'name', start, end: i, text: text.slice(start, i) });
      continue;
    }
    if (c === 0x28 /* ( */) {
      let depth = 0;
      for (; i < to; i++) {
        const ch = text[i];
        if (ch === '\\') i++;
        else if (ch === '(') depth++;
        else if (ch === ')' && --depth === 0) break;
      }
      i = Math.min(to, i + 1);
      tokens.push({ type: 'string', start, end: i, text: text.slice(start, i) });
      continue;
    }
    if (c === 0x3c /* < */) {
      if (text[i + 1] === '<') {
        tokens.push({ type: 'dictOpen', start, end: i + 2, text: '<<' });
        i += 2;
      } else {
        const close = text.indexOf('>', i);
        i = close < 0 || close > to ? to : close + 1;
        tokens.push({ type: 'hex', start, end: i, text: text.slice(start, i) });
      }
      continue;
    }
    if (c === 0x3e /* > */) {
      i += text[i + 1] === '>' ? 2 : 1;
      tokens.push({ type: 'dictClose', start, end: i, text: '>>' });
      continue;
    }
    if (c === 0x5b || c === 0x5d) {
      i++;
      tokens.push({ type: c === 0x5b ? 'arrayOpen' : 'arrayClose', start, end: i, text: text[start]! });
      continue;
    }
    if (c === 0x7b || c === 0x7d) {
      i++;
      continue;
    }
    while (i < to && isRegular(text.charCodeAt(i))) i++;
    const word = text.slice(start, i);
    if (word === 'stream') {
      // Skip the data: to the next "endstream" (a lying /Length must not derail the tokenizer).
      const end = text.indexOf('endstream', i);
      tokens.push({ type: 'keyword', start, end: i, text: word });
      i = end < 0 || end > to ? to : end;
      continue;
    }
    tokens.push({ type: /^[+-]?(\d+\.?\d*|\.\d+)$/.test(word) ? 'number' : 'keyword', start, end: i, text: word });
  }
  return tokens;
}

export type ValueKind = 'number' | 'ref' | 'name' | 'string' | 'array' | 'dict' | 'other';

export interface Entry {
  /** e.g. "/Count" */
  key: string;
  valueStart: number;
  valueEnd: number;
  kind: ValueKind;
  /** For refs: the object number referred to; for arrays: the numbers of the refs inside (top level). */
  refs: number[];
  /** Offset of the dictionary's "<<". */
  dictStart: number;
  /** Offset just after the dictionary's ">>" (or the end of the body when unbalanced). */
  dictEnd: number;
  depth: number;
}

export interface PdfObjectSpan {
  /** -1 for a trailer dictionary. */
  num: number;
  start: number;
  bodyStart: number;
  bodyEnd: number;
  /** Offset of the data after "stream\r?\n" and of "endstream", when the object is a stream. */
  stream?: { dataStart: number; dataEnd: number };
}

/** Objects ("N G obj") and trailer dictionaries of a file, in file order. */
export function findObjects(text: string): PdfObjectSpan[] {
  const spans: PdfObjectSpan[] = [];
  const pattern = /(\d{1,10})\s+(\d{1,5})\s+obj\b|trailer\s*(?=<<)/g;
  const starts: { num: number; start: number; bodyStart: number }[] = [];
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    starts.push({ num: m[1] === undefined ? -1 : Number(m[1]), start: m.index, bodyStart: m.index + m[0].length });
  }
  for (let k = 0; k < starts.length; k++) {
    const { num, start, bodyStart } = starts[k]!;
    const next = starts[k + 1]?.start ?? text.length;
    let bodyEnd: number;
    if (num === -1) {
      const end = text.indexOf('startxref', bodyStart);
      bodyEnd = end < 0 || end > next ? next : end;
    } else {
      const end = text.indexOf('endobj', bodyStart);
      bodyEnd = end < 0 || end > next ? next : end;
    }
    const span: PdfObjectSpan = { num, start, bodyStart, bodyEnd };
    const streamAt = text.indexOf('stream', bodyStart);
    if (num !== -1 && streamAt >= 0 && streamAt < bodyEnd && text.slice(streamAt - 3, streamAt) !== 'end') {
      let dataStart = streamAt + 6;
      if (text[dataStart] === '\r') dataStart++;
      if (text[dataStart] === '\n') dataStart++;
      const endstream = text.indexOf('endstream', dataStart);
      if (endstream >= 0 && endstream <= bodyEnd) span.stream = { dataStart, dataEnd: endstream };
    }
    spans.push(span);
  }
  return spans;
}

/** Deeper structures are skipped as a whole, without recursion (hostile files nest 100,000 deep). */
const MAX_DEPTH = 64;

/** The index after the array or dictionary opened at tokens[i] (or the end when unbalanced). */
function skipNested(tokens: Token[], i: number): number {
  let level = 0;
  for (let j = i; j < tokens.length; j++) {
    const type = tokens[j]!.type;
    if (type === 'arrayOpen' || type === 'dictOpen') level++;
    else if ((type === 'arrayClose' || type === 'dictClose') && --level === 0) return j + 1;
  }
  return tokens.length;
}

/** Parses one value at tokens[i]; returns the index after it, its kind and the refs at its top level. */
function parseValue(tokens: Token[], i: number, text: string, depth: number, entries: Entry[]): { next: number; kind: ValueKind; end: number; refs: number[] } {
  const t = tokens[i];
  if (!t) return { next: i, kind: 'other', end: text.length, refs: [] };
  if ((t.type === 'arrayOpen' || t.type === 'dictOpen') && depth > MAX_DEPTH) {
    const next = skipNested(tokens, i);
    return { next, kind: t.type === 'arrayOpen' ? 'array' : 'dict', end: tokens[next - 1]?.end ?? text.length, refs: [] };
  }
  if (t.type === 'number') {
    const a = tokens[i + 1];
    const b = tokens[i + 2];
    if (a?.type === 'number' && b?.type === 'keyword' && b.text === 'R') return { next: i + 3, kind: 'ref', end: b.end, refs: [Number(t.text)] };
    return { next: i + 1, kind: 'number', end: t.end, refs: [] };
  }
  if (t.type === 'dictOpen') {
    const end = parseDict(tokens, i, text, depth + 1, entries);
    return { next: end.next, kind: 'dict', end: end.end, refs: [] };
  }
  if (t.type === 'arrayOpen') {
    const refs: number[] = [];
    let j = i + 1;
    while (j < tokens.length && tokens[j]!.type !== 'arrayClose') {
      if (tokens[j]!.type === 'dictClose') break;
      const inner = parseValue(tokens, j, text, depth + 1, entries);
      if (inner.kind === 'ref') refs.push(...inner.refs);
      j = inner.next > j ? inner.next : j + 1;
    }
    const close = tokens[j];
    return { next: j + 1, kind: 'array', end: close?.type === 'arrayClose' ? close.end : (tokens[j - 1]?.end ?? t.end), refs };
  }
  const kind: ValueKind = t.type === 'name' ? 'name' : t.type === 'string' || t.type === 'hex' ? 'string' : 'other';
  return { next: i + 1, kind, end: t.end, refs: [] };
}

function parseDict(tokens: Token[], i: number, text: string, depth: number, entries: Entry[]): { next: number; end: number } {
  const open = tokens[i]!;
  const mine: Entry[] = [];
  let j = i + 1;
  while (j < tokens.length && tokens[j]!.type !== 'dictClose') {
    const key = tokens[j]!;
    if (key.type !== 'name') {
      j++;
      continue;
    }
    const valueAt = tokens[j + 1];
    if (!valueAt || valueAt.type === 'dictClose') {
      j++;
      break;
    }
    const value = parseValue(tokens, j + 1, text, depth, entries);
    mine.push({ key: key.text, valueStart: valueAt.start, valueEnd: value.end, kind: value.kind, refs: value.refs, dictStart: open.start, dictEnd: -1, depth });
    j = value.next;
  }
  const close = tokens[j];
  const end = close?.type === 'dictClose' ? close.end : (tokens[j - 1]?.end ?? open.end);
  for (const entry of mine) entry.dictEnd = end;
  entries.push(...mine);
  return { next: j + 1, end };
}

/** Every dictionary entry inside an object's body (nested dictionaries included). */
export function entriesOf(text: string, object: PdfObjectSpan): Entry[] {
  const end = object.stream ? object.stream.dataStart : object.bodyEnd;
  const tokens = tokenize(text, object.bodyStart, end);
  const entries: Entry[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i]!.type === 'dictOpen') {
      i = parseDict(tokens, i, text, 0, entries).next - 1;
    }
  }
  return entries;
}

/** The classic cross-reference rows ("0000012345 00000 n") with their offsets in the file. */
export function xrefRows(text: string): { start: number; end: number }[] {
  const rows: { start: number; end: number }[] = [];
  const pattern = /(\d{10}) (\d{5}) ([nf])/g;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) rows.push({ start: m.index, end: m.index + 10 });
  return rows;
}
