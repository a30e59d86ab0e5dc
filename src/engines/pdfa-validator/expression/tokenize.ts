import { ExpressionError } from './errors.js';

/**
 * The tokens of the expression subset: numbers, strings in either quote, regex literals, names and
 * the operators of ast.ts. A `/` starts a regex literal where a value is expected (at the start, after an
 * operator or an opening parenthesis) and divides after a value, as in JavaScript.
 */
export type Token =
  | { type: 'number'; value: number; at: number }
  | { type: 'string'; value: string; at: number }
  | { type: 'regex'; value: RegExp; at: number }
  | { type: 'name'; value: string; at: number }
  | { type: 'punctuator'; value: string; at: number }
  | { type: 'end'; value: ''; at: number };

/** Longest first, so `===` is not read as `==` `=`. */
const PUNCTUATORS = ['>>>', '===', '!==', '==', '!=', '<=', '>=', '&&', '||', '<<', '>>', '=>', '(', ')', '.', ',', '?', ':', '!', '~', '+', '-', '*', '/', '%', '<', '>', '&', '|', '^'];

/**
 * Flags that do not change what a pattern matches between calls: `y` (sticky) and a `g` kept between
 * calls would make a pattern compiled once depend on the previous evaluation. `g` is allowed because
 * the evaluator resets `lastIndex` before every use.
 */
const REGEX_FLAGS = /^(?!.*(.).*\1)[gimsu]*$/;

const NAME_START = /[A-Za-z_$]/;
const NAME_PART = /[A-Za-z0-9_$]/;
const NUMBER = /^(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/;
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (NAME_START.test(c)) {
      while (i < source.length && NAME_PART.test(source[i]!)) i++;
      tokens.push({ type: 'name', value: source.slice(at, i), at });
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const match = NUMBER.exec(source.slice(i))!;
      i += match[0].length;
      if (NAME_START.test(source[i] ?? '')) throw syntax(`a name cannot follow the number at ${at}`);
      tokens.push({ type: 'number', value: Number(match[0]), at });
    } else if (c === '"' || c === "'") {
      const { value, end } = readString(source, i);
      tokens.push({ type: 'string', value, at });
      i = end;
    } else if (c === '/' && expectsValue(tokens.at(-1))) {
      const { value, end } = readRegex(source, i);
      tokens.push({ type: 'regex', value, at });
      i = end;
    } else {
      const punctuator = PUNCTUATORS.find((p) => source.startsWith(p, i));
      if (punctuator === undefined) throw syntax(`unexpected character ${JSON.stringify(c)} at ${at}`);
      tokens.push({ type: 'punctuator', value: punctuator, at });
      i += punctuator.length;
    }
  }
  tokens.push({ type: 'end', value: '', at: source.length });
  return tokens;
}

function expectsValue(previous: Token | undefined): boolean {
  if (previous === undefined) return true;
  if (previous.type === 'punctuator') return previous.value !== ')';
  return false;
}

function readString(source: string, start: number): { value: string; end: number } {
  const quote = source[start];
  let value = '';
  let i = start + 1;
  while (i < source.length) {
    const c = source[i]!;
    if (c === quote) return { value, end: i + 1 };
    if (c === '\n' || c === '\r') break;
    if (c !== '\\') {
      value += c;
      i++;
      continue;
    }
    const e = source[i + 1];
    if (e === undefined) break;
    if (e === 'u' || e === 'x') {
      const digits = e === 'u' ? 4 : 2;
      const hex = source.slice(i + 2, i + 2 + digits);
      if (hex.length !== digits || !/^[0-9a-fA-F]+$/.test(hex)) throw syntax(`bad \\${e} escape at ${i}`);
      value += String.fromCharCode(Number.parseInt(hex, 16));
      i += 2 + digits;
      continue;
    }
    value += ESCAPES[e] ?? e;
    i += 2;
  }
  throw syntax(`unterminated string at ${start}`);
}

function readRegex(source: string, start: number): { value: RegExp; end: number } {
  let i = start + 1;
  let inClass = false;
  for (; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\n' || c === '\r') break;
    if (c === '\\') i++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) break;
  }
  if (source[i] !== '/') throw syntax(`unterminated regular expression at ${start}`);
  const pattern = source.slice(start + 1, i);
  let end = i + 1;
  while (end < source.length && NAME_PART.test(source[end]!)) end++;
  const flags = source.slice(i + 1, end);
  if (!REGEX_FLAGS.test(flags)) throw syntax(`regular expression flags ${JSON.stringify(flags)} are not supported (allowed: g i m s u, each once)`);
  try {
    return { value: new RegExp(pattern, flags), end };
  } catch (error) {
    throw syntax(`invalid regular expression at ${start}: ${(error as Error).message}`);
  }
}

function syntax(message: string): ExpressionError {
  return new ExpressionError('syntax', message);
}
