import { HtmlEngineError } from './errors.js';

/**
 * HTML templates (converter `html.useAsTemplate` + `templateData`): the subset of the FreeMarker
 * Template Language that webPDF's HTML templates use, filled from a JSON object, without running any
 * code. The data is visible as `custom` (webPDF's name: `<#list custom.data as d>`) and, for
 * convenience, under its own top-level names.
 *
 * Supported: `${expr}` (HTML-escaped; `?no_esc` inserts markup as it is), `<#list seq as x>…<#else>…</#list>`
 * (also over an object's values), `<#if>…<#elseif>…<#else>…</#if>`, `<#-- comments -->`; expressions
 * with paths (`a.b`, `a["b"]`, `a[0]`), string/number/boolean literals, `!` defaults (`x!"none"`, `x!`),
 * `??`, `== != < > <= >= lt gt lte gte`, `&& || !`, parentheses, and the built-ins html, no_esc,
 * upper_case, lower_case, cap_first, trim, size, length, c, string, has_content, and on loop variables
 * index, counter, has_next, is_first, is_last. Anything else is refused with the line it is on.
 * An undefined value without a default fails the conversion, as FreeMarker does.
 */

const MAX_OUTPUT_CHARS = 32 * 1024 * 1024;
const MAX_STEPS = 2_000_000;
const MAX_DEPTH = 64;

type Value = unknown;
type Expr =
  | { kind: 'literal'; value: Value }
  | { kind: 'name'; name: string }
  | { kind: 'member'; object: Expr; key: Expr }
  | { kind: 'builtin'; target: Expr; name: string }
  | { kind: 'default'; target: Expr; fallback: Expr | undefined }
  | { kind: 'exists'; target: Expr }
  | { kind: 'not'; operand: Expr }
  | { kind: 'binary'; op: string; left: Expr; right: Expr };

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'out'; expr: Expr; line: number }
  | { kind: 'list'; seq: Expr; name: string; body: Node[]; otherwise: Node[]; line: number }
  | { kind: 'if'; branches: { cond: Expr; body: Node[] }[]; otherwise: Node[]; line: number };

/** Fills `template` with `data` (parsed JSON); the result is HTML for the renderer. */
export function fillHtmlTemplate(template: string, data: Value): string {
  const nodes = new Parser(template).parseAll();
  const scope: Record<string, Value> = isObject(data) ? { ...data, custom: data } : { custom: data };
  const out = new Output();
  render(nodes, [scope], new Map(), out, { steps: 0 }, 0);
  return out.text();
}

/** The template data: Base64 of a JSON object (webPDF's form), or undefined when none was given. */
export function parseTemplateData(base64: string | undefined): Value {
  if (base64 === undefined || base64.trim() === '') return {};
  if (!/^[A-Za-z0-9+/=\s_-]*$/.test(base64)) throw new HtmlEngineError('invalidOption', 'converter.html.templateData.value is not Base64.');
  const text = Buffer.from(base64, 'base64')
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text) as Value;
  } catch (error) {
    throw new HtmlEngineError('invalidOption', `converter.html.templateData.value is not Base64 of JSON: ${(error as Error).message}`, { cause: error });
  }
}

// ---- parsing --------------------------------------------------------------------------------

class Parser {
  private pos = 0;

  constructor(private readonly src: string) {}

  parseAll(): Node[] {
    const { nodes, end } = this.parseBlock([]);
    if (end !== undefined) throw this.error(`unexpected <#${end}>`, this.pos);
    return nodes;
  }

  /** Nodes up to one of the `stops` tags (list, if), which is consumed and returned with its argument. */
  private parseBlock(stops: string[]): { nodes: Node[]; end?: string; arg?: string; at?: number } {
    const nodes: Node[] = [];
    let text = '';
    const flush = () => {
      if (text !== '') nodes.push({ kind: 'text', text });
      text = '';
    };
    while (this.pos < this.src.length) {
      const next = this.nextSpecial();
      if (next < 0) {
        text += this.src.slice(this.pos);
        this.pos = this.src.length;
        break;
      }
      text += this.src.slice(this.pos, next);
      this.pos = next;
      if (this.src.startsWith('<#--', next)) {
        const close = this.src.indexOf('-->', next + 4);
        if (close < 0) throw this.error('a comment <#-- is not closed', next);
        this.pos = close + 3;
        continue;
      }
      if (this.src.startsWith('${', next)) {
        flush();
        const close = this.closing(next + 2, '}');
        nodes.push({ kind: 'out', expr: new ExprParser(this.src.slice(next + 2, close), this.line(next)).parseWhole(), line: this.line(next) });
        this.pos = close + 1;
        continue;
      }
      // <#name …> or </#name>
      const closingTag = this.src.startsWith('</#', next);
      const nameStart = next + (closingTag ? 3 : 2);
      const name = /^[a-z_]+/i.exec(this.src.slice(nameStart, nameStart + 20))?.[0] ?? '';
      const tagEnd = this.closing(nameStart + name.length, '>');
      const arg = this.src
        .slice(nameStart + name.length, tagEnd)
        .trim()
        .replace(/\/$/, '')
        .trim();
      this.pos = tagEnd + 1;
      const tag = closingTag ? `/${name}` : name;
      if (stops.includes(tag)) {
        flush();
        return { nodes, end: tag, arg, at: next };
      }
      flush();
      if (tag === 'list') nodes.push(this.parseList(arg, next));
      else if (tag === 'if') nodes.push(this.parseIf(arg, next));
      else throw this.error(`<${closingTag ? '/' : ''}#${name}> is not supported in HTML templates (list, if, elseif, else and comments are)`, next);
    }
    flush();
    if (stops.length > 0) throw this.error(`<#${stops.find((s) => s.startsWith('/'))?.slice(1) ?? stops[0]}> is not closed`, this.src.length);
    return { nodes };
  }

  private parseList(arg: string, at: number): Node {
    const match = /^([\s\S]+?)\s+as\s+([A-Za-z_][A-Za-z0-9_]*)$/.exec(arg);
    if (!match) throw this.error('<#list> needs "<#list sequence as name>"', at);
    const seq = new ExprParser(match[1]!, this.line(at)).parseWhole();
    const body = this.parseBlock(['else', '/list']);
    let otherwise: Node[] = [];
    if (body.end === 'else') otherwise = this.parseBlock(['/list']).nodes;
    return { kind: 'list', seq, name: match[2]!, body: body.nodes, otherwise, line: this.line(at) };
  }

  private parseIf(arg: string, at: number): Node {
    const branches: { cond: Expr; body: Node[] }[] = [];
    let cond = new ExprParser(arg, this.line(at)).parseWhole();
    for (;;) {
      const block = this.parseBlock(['elseif', 'else', '/if']);
      branches.push({ cond, body: block.nodes });
      if (block.end === '/if') return { kind: 'if', branches, otherwise: [], line: this.line(at) };
      if (block.end === 'else') return { kind: 'if', branches, otherwise: this.parseBlock(['/if']).nodes, line: this.line(at) };
      cond = new ExprParser(block.arg ?? '', this.line(block.at ?? at)).parseWhole();
    }
  }

  private nextSpecial(): number {
    const candidates = [this.src.indexOf('${', this.pos), this.src.indexOf('<#', this.pos), this.src.indexOf('</#', this.pos)].filter((i) => i >= 0);
    return candidates.length === 0 ? -1 : Math.min(...candidates);
  }

  /** The index of `close` after `from`, outside string literals and parentheses. */
  private closing(from: number, close: string): number {
    let depth = 0;
    for (let i = from; i < this.src.length; i++) {
      const c = this.src[i]!;
      if (c === '"' || c === "'") {
        const end = this.src.indexOf(c, i + 1);
        if (end < 0) break;
        i = end;
      } else if (c === '(' || c === '[' || (c === '{' && close === '}')) depth++;
      else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
      else if (c === close && depth === 0) return i;
    }
    throw this.error(`"${close}" is missing`, from);
  }

  private line(at: number): number {
    let line = 1;
    for (let i = 0; i < at && i < this.src.length; i++) if (this.src.charCodeAt(i) === 10) line++;
    return line;
  }

  private error(message: string, at: number): HtmlEngineError {
    return templateError(this.line(at), message);
  }
}

const TOKEN = /\s*(?:("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(\?\?|==|!=|<=|>=|&&|\|\||[.[\]()?!<>=]))/y;

class ExprParser {
  private readonly tokens: string[] = [];
  private at = 0;

  constructor(
    source: string,
    private readonly line: number,
  ) {
    TOKEN.lastIndex = 0;
    while (TOKEN.lastIndex < source.length) {
      if (/^\s*$/.test(source.slice(TOKEN.lastIndex))) break;
      const start = TOKEN.lastIndex;
      const match = TOKEN.exec(source);
      if (!match) throw templateError(line, `cannot read the expression "${source.trim()}" at "${source.slice(start).trim().slice(0, 20)}"`);
      this.tokens.push(match[0].trim());
    }
  }

  parseWhole(): Expr {
    if (this.tokens.length === 0) throw templateError(this.line, 'an empty expression');
    const expr = this.or();
    if (this.at < this.tokens.length) throw templateError(this.line, `unexpected "${this.tokens[this.at]}" in the expression`);
    return expr;
  }

  private peek(): string | undefined {
    return this.tokens[this.at];
  }

  private take(expected?: string): string {
    const token = this.tokens[this.at];
    if (token === undefined || (expected !== undefined && token !== expected)) throw templateError(this.line, `expected ${expected ?? 'more'} in the expression`);
    this.at++;
    return token;
  }

  private or(): Expr {
    let left = this.and();
    while (this.peek() === '||') {
      this.take();
      left = { kind: 'binary', op: '||', left, right: this.and() };
    }
    return left;
  }

  private and(): Expr {
    let left = this.not();
    while (this.peek() === '&&') {
      this.take();
      left = { kind: 'binary', op: '&&', left, right: this.not() };
    }
    return left;
  }

  private not(): Expr {
    if (this.peek() === '!') {
      this.take();
      return { kind: 'not', operand: this.not() };
    }
    return this.comparison();
  }

  private comparison(): Expr {
    const left = this.postfix();
    const op = this.peek();
    const ops: Record<string, string> = { '==': '==', '=': '==', '!=': '!=', '<': '<', '>': '>', '<=': '<=', '>=': '>=', lt: '<', gt: '>', lte: '<=', gte: '>=' };
    if (op !== undefined && op in ops) {
      this.take();
      return { kind: 'binary', op: ops[op]!, left, right: this.postfix() };
    }
    return left;
  }

  private postfix(): Expr {
    let expr = this.primary();
    for (;;) {
      const token = this.peek();
      if (token === '.') {
        this.take();
        expr = { kind: 'member', object: expr, key: { kind: 'literal', value: this.identifier() } };
      } else if (token === '[') {
        this.take();
        const key = this.or();
        this.take(']');
        expr = { kind: 'member', object: expr, key };
      } else if (token === '??') {
        this.take();
        expr = { kind: 'exists', target: expr };
      } else if (token === '?') {
        this.take();
        expr = { kind: 'builtin', target: expr, name: this.identifier() };
      } else if (token === '!') {
        this.take();
        const next = this.peek();
        const startsValue = next !== undefined && (/^["'\d(]/.test(next) || /^[A-Za-z_]/.test(next)) && !['lt', 'gt', 'lte', 'gte'].includes(next);
        expr = { kind: 'default', target: expr, fallback: startsValue ? this.primary() : undefined };
      } else {
        return expr;
      }
    }
  }

  private primary(): Expr {
    const token = this.take();
    if (token === '(') {
      const inner = this.or();
      this.take(')');
      return inner;
    }
    if (/^["']/.test(token)) return { kind: 'literal', value: token.slice(1, -1).replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t' })[c] ?? c) };
    if (/^\d/.test(token)) return { kind: 'literal', value: Number(token) };
    if (token === 'true' || token === 'false') return { kind: 'literal', value: token === 'true' };
    if (/^[A-Za-z_]/.test(token)) return { kind: 'name', name: token };
    throw templateError(this.line, `unexpected "${token}" in the expression`);
  }

  private identifier(): string {
    const token = this.take();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(token)) throw templateError(this.line, `expected a name, not "${token}"`);
    return token;
  }
}

// ---- rendering ------------------------------------------------------------------------------

interface Loop {
  index: number;
  size: number;
}

class Output {
  private readonly parts: string[] = [];
  private length = 0;

  push(text: string): void {
    this.length += text.length;
    if (this.length > MAX_OUTPUT_CHARS) throw new HtmlEngineError('renderFailed', `The filled HTML template is larger than ${MAX_OUTPUT_CHARS} characters.`);
    this.parts.push(text);
  }

  text(): string {
    return this.parts.join('');
  }
}

/** Marks a value inserted without escaping (`?no_esc`). */
class Markup {
  constructor(readonly html: string) {}
}

function render(nodes: Node[], scopes: Record<string, Value>[], loops: Map<string, Loop>, out: Output, budget: { steps: number }, depth: number): void {
  if (depth > MAX_DEPTH) throw new HtmlEngineError('renderFailed', `The HTML template nests deeper than ${MAX_DEPTH} levels.`);
  for (const node of nodes) {
    if (++budget.steps > MAX_STEPS) throw new HtmlEngineError('renderFailed', `The HTML template takes more than ${MAX_STEPS} steps to fill.`);
    if (node.kind === 'text') {
      out.push(node.text);
    } else if (node.kind === 'out') {
      const value = evaluate(node.expr, scopes, loops, node.line);
      if (value === undefined || value === null) throw templateError(node.line, `${describe(node.expr)} is undefined (give a default: ${describe(node.expr)}!"")`);
      out.push(value instanceof Markup ? value.html : escapeHtml(display(value, node.line)));
    } else if (node.kind === 'list') {
      const seq = evaluate(node.seq, scopes, loops, node.line);
      if (seq === undefined || seq === null) throw templateError(node.line, `${describe(node.seq)} is undefined`);
      const items = Array.isArray(seq) ? seq : isObject(seq) ? Object.values(seq) : undefined;
      if (!items) throw templateError(node.line, `${describe(node.seq)} is not a list`);
      if (items.length === 0) render(node.otherwise, scopes, loops, out, budget, depth + 1);
      items.forEach((item, index) => {
        const inner = new Map(loops);
        inner.set(node.name, { index, size: items.length });
        render(node.body, [...scopes, { [node.name]: item }], inner, out, budget, depth + 1);
      });
    } else {
      const branch = node.branches.find((b) => truthy(evaluate(b.cond, scopes, loops, node.line), node.line, b.cond));
      render(branch ? branch.body : node.otherwise, scopes, loops, out, budget, depth + 1);
    }
  }
}

function evaluate(expr: Expr, scopes: Record<string, Value>[], loops: Map<string, Loop>, line: number): Value {
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'name': {
      for (let i = scopes.length - 1; i >= 0; i--) if (Object.hasOwn(scopes[i]!, expr.name)) return scopes[i]![expr.name];
      return undefined;
    }
    case 'member': {
      const object = evaluate(expr.object, scopes, loops, line);
      const key = evaluate(expr.key, scopes, loops, line);
      if (object === undefined || object === null) return undefined;
      if (Array.isArray(object) && typeof key === 'number') return object[key];
      if (isObject(object) && (typeof key === 'string' || typeof key === 'number') && Object.hasOwn(object, String(key))) return object[String(key)];
      return undefined;
    }
    case 'exists':
      return evaluate(expr.target, scopes, loops, line) != null;
    case 'default': {
      const value = evaluate(expr.target, scopes, loops, line);
      if (value != null) return value;
      return expr.fallback ? evaluate(expr.fallback, scopes, loops, line) : '';
    }
    case 'not':
      return !truthy(evaluate(expr.operand, scopes, loops, line), line, expr.operand);
    case 'binary': {
      if (expr.op === '&&') return truthy(evaluate(expr.left, scopes, loops, line), line, expr.left) && truthy(evaluate(expr.right, scopes, loops, line), line, expr.right);
      if (expr.op === '||') return truthy(evaluate(expr.left, scopes, loops, line), line, expr.left) || truthy(evaluate(expr.right, scopes, loops, line), line, expr.right);
      const left = evaluate(expr.left, scopes, loops, line);
      const right = evaluate(expr.right, scopes, loops, line);
      if (left == null || right == null) throw templateError(line, `${describe(left == null ? expr.left : expr.right)} is undefined`);
      if (expr.op === '==') return left === right;
      if (expr.op === '!=') return left !== right;
      if (typeof left !== typeof right || (typeof left !== 'number' && typeof left !== 'string')) throw templateError(line, `cannot compare ${describe(expr.left)} with ${describe(expr.right)}`);
      const l = left as number | string;
      const r = right as number | string;
      return expr.op === '<' ? l < r : expr.op === '>' ? l > r : expr.op === '<=' ? l <= r : l >= r;
    }
    case 'builtin':
      return builtin(expr, scopes, loops, line);
  }
}

function builtin(expr: Extract<Expr, { kind: 'builtin' }>, scopes: Record<string, Value>[], loops: Map<string, Loop>, line: number): Value {
  const loopName = expr.target.kind === 'name' ? expr.target.name : undefined;
  const loop = loopName === undefined ? undefined : loops.get(loopName);
  if (loop && ['index', 'counter', 'has_next', 'is_first', 'is_last'].includes(expr.name)) {
    if (expr.name === 'index') return loop.index;
    if (expr.name === 'counter') return loop.index + 1;
    if (expr.name === 'has_next') return loop.index < loop.size - 1;
    if (expr.name === 'is_first') return loop.index === 0;
    return loop.index === loop.size - 1;
  }
  const value = evaluate(expr.target, scopes, loops, line);
  if (expr.name === 'has_content') return value != null && value !== '' && !(Array.isArray(value) && value.length === 0) && !(isObject(value) && Object.keys(value).length === 0);
  if (value == null) throw templateError(line, `${describe(expr.target)} is undefined`);
  switch (expr.name) {
    case 'html':
      return escapeHtml(display(value, line));
    case 'no_esc':
      return new Markup(value instanceof Markup ? value.html : display(value, line));
    case 'upper_case':
      return display(value, line).toUpperCase();
    case 'lower_case':
      return display(value, line).toLowerCase();
    case 'cap_first': {
      const text = display(value, line);
      return text.charAt(0).toUpperCase() + text.slice(1);
    }
    case 'trim':
      return display(value, line).trim();
    case 'size':
    case 'length':
      if (Array.isArray(value)) return value.length;
      if (isObject(value)) return Object.keys(value).length;
      return display(value, line).length;
    case 'c':
    case 'string':
      return display(value, line);
    default:
      throw templateError(line, `?${expr.name} is not supported in HTML templates`);
  }
}

function truthy(value: Value, line: number, expr: Expr): boolean {
  if (typeof value === 'boolean') return value;
  if (value == null) throw templateError(line, `${describe(expr)} is undefined`);
  throw templateError(line, `${describe(expr)} is not true or false`);
}

function display(value: Value, line: number): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Markup) return value.html;
  throw templateError(line, 'a list or object cannot be inserted as text (list it with <#list>, or name one of its members)');
}

function describe(expr: Expr): string {
  switch (expr.kind) {
    case 'name':
      return expr.name;
    case 'member':
      return expr.key.kind === 'literal' && typeof expr.key.value === 'string' ? `${describe(expr.object)}.${expr.key.value}` : `${describe(expr.object)}[…]`;
    case 'literal':
      return JSON.stringify(expr.value);
    default:
      return 'the expression';
  }
}

function isObject(value: Value): value is Record<string, Value> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Markup);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function templateError(line: number, message: string): HtmlEngineError {
  return new HtmlEngineError('renderFailed', `The HTML template cannot be filled (line ${line}): ${message}.`);
}
