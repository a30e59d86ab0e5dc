import type { Argument, BinaryOperator, Node, UnaryOperator } from './ast.js';
import { MATH_METHODS, METHODS } from './builtins.js';
import { ExpressionError } from './errors.js';
import { LIMITS } from './limits.js';
import { tokenize, type Token } from './tokenize.js';

/**
 * A Pratt parser for the expression subset of the veraPDF profiles (a JavaScript subset): literals,
 * names, unary and binary operators with JavaScript's precedence, `?:`, grouping, `.length`, calls
 * of the whitelisted methods (builtins.ts), `Math.*`, and `name => body` as a method argument.
 * Nothing else parses: no assignment, no indexing, no `new`, no other property of any value.
 */
export interface ParsedExpression {
  ast: Node;
  /** Free names the expression reads (profile variables or model properties), sorted. */
  names: string[];
  /** The builtins it calls, as `.method()`, `.length` or `Math.method()`, sorted. */
  builtins: string[];
}

/**
 * Binding power of the binary operators (JavaScript's precedence). Maps, not object literals: a name such as
 * `toString` or `constructor` must not find Object.prototype's members.
 */
const BINARY = new Map<string, number>([
  ['||', 3],
  ['&&', 4],
  ['|', 5],
  ['^', 6],
  ['&', 7],
  ['==', 8],
  ['!=', 8],
  ['===', 8],
  ['!==', 8],
  ['<', 9],
  ['<=', 9],
  ['>', 9],
  ['>=', 9],
  ['<<', 10],
  ['>>', 10],
  ['>>>', 10],
  ['+', 11],
  ['-', 11],
  ['*', 12],
  ['/', 12],
  ['%', 12],
]);
const CONDITIONAL = 2;
const UNARY = new Set(['!', '-', '+', '~']);
const KEYWORDS = new Map<string, Node>([
  ['true', { kind: 'literal', value: true }],
  ['false', { kind: 'literal', value: false }],
  ['null', { kind: 'literal', value: null }],
  ['undefined', { kind: 'literal', value: undefined }],
]);

export function parse(source: string): ParsedExpression {
  if (source.length > LIMITS.sourceLength) throw syntax(`the expression is longer than ${LIMITS.sourceLength} characters`);
  return new Parser(tokenize(source)).parseAll();
}

class Parser {
  private position = 0;
  private depth = 0;
  private readonly params: string[] = [];
  private readonly names = new Set<string>();
  private readonly builtins = new Set<string>();

  constructor(private readonly tokens: Token[]) {}

  parseAll(): ParsedExpression {
    const ast = this.expression(0);
    const rest = this.peek();
    if (rest.type !== 'end') throw syntax(`unexpected ${describe(rest)} at ${rest.at}`);
    return { ast, names: [...this.names].sort(), builtins: [...this.builtins].sort() };
  }

  private expression(minPower: number): Node {
    this.enter();
    let left = this.prefix();
    for (;;) {
      const token = this.peek();
      if (token.type !== 'punctuator') break;
      if (token.value === '?' && minPower <= CONDITIONAL) {
        this.next();
        const consequent = this.expression(0);
        this.expect(':');
        // Right-associative: `a ? b : c ? d : e` is `a ? b : (c ? d : e)`.
        const alternate = this.expression(CONDITIONAL);
        left = { kind: 'conditional', test: left, consequent, alternate };
        continue;
      }
      const power = BINARY.get(token.value);
      if (power === undefined || power <= minPower) break;
      this.next();
      const right = this.expression(power);
      if (token.value === '&&' || token.value === '||') {
        left = left.kind === 'logical' && left.operator === token.value ? { ...left, operands: [...left.operands, right] } : { kind: 'logical', operator: token.value, operands: [left, right] };
      } else {
        left = { kind: 'binary', operator: token.value as BinaryOperator, left, right };
      }
    }
    this.depth--;
    return left;
  }

  private prefix(): Node {
    const token = this.next();
    if (token.type === 'punctuator' && UNARY.has(token.value)) {
      // Unary operators bind tighter than every binary one (`-a * b` is `(-a) * b`).
      this.enter();
      const operand = this.postfix(this.prefix());
      this.depth--;
      return { kind: 'unary', operator: token.value as UnaryOperator, operand };
    }
    return this.postfix(this.primary(token));
  }

  private primary(token: Token): Node {
    switch (token.type) {
      case 'number':
      case 'string':
        return { kind: 'literal', value: token.value };
      case 'regex':
        return { kind: 'regex', regex: token.value };
      case 'name':
        return this.name(token);
      case 'punctuator':
        if (token.value === '(') {
          const inner = this.expression(0);
          this.expect(')');
          return inner;
        }
        break;
      case 'end':
        break;
    }
    throw syntax(`unexpected ${describe(token)} at ${token.at}`);
  }

  private name(token: Token & { type: 'name' }): Node {
    const keyword = KEYWORDS.get(token.value);
    if (keyword !== undefined) return keyword;
    if (token.value === 'Math') {
      this.expect('.');
      const method = this.next();
      if (method.type !== 'name' || !MATH_METHODS.has(method.value)) throw syntax(`Math.${method.value} is not supported (at ${method.at})`);
      this.builtins.add(`Math.${method.value}()`);
      return { kind: 'math', method: method.value, args: this.arguments(false) as Node[] };
    }
    const level = this.params.lastIndexOf(token.value);
    if (level >= 0) return { kind: 'param', name: token.value, level };
    this.names.add(token.value);
    return { kind: 'identifier', name: token.value };
  }

  /** `.length`, `.method(args)`, in any sequence. */
  private postfix(object: Node): Node {
    let node = object;
    const depth = this.depth;
    while (this.peekPunctuator('.')) {
      // Each link of a chain nests the tree one level deeper.
      this.enter();
      this.next();
      const member = this.next();
      if (member.type !== 'name') throw syntax(`a name must follow "." at ${member.at}`);
      if (this.peekPunctuator('(')) {
        if (!METHODS.has(member.value)) throw syntax(`the method ${member.value}() is not supported (at ${member.at})`);
        this.builtins.add(`.${member.value}()`);
        node = { kind: 'call', object: node, method: member.value, args: this.arguments(true) };
      } else if (member.value === 'length') {
        this.builtins.add('.length');
        node = { kind: 'length', object: node };
      } else {
        throw syntax(`the property .${member.value} is not supported (at ${member.at}); only .length is`);
      }
    }
    this.depth = depth;
    return node;
  }

  private arguments(lambdas: boolean): Argument[] {
    this.expect('(');
    const args: Argument[] = [];
    if (this.peekPunctuator(')')) {
      this.next();
      return args;
    }
    for (;;) {
      args.push(lambdas ? this.argument() : this.expression(0));
      const token = this.next();
      if (token.type === 'punctuator' && token.value === ')') return args;
      if (token.type !== 'punctuator' || token.value !== ',') throw syntax(`expected "," or ")" at ${token.at}`);
    }
  }

  /** An argument: an expression, or `name => body` (a lambda sees the names of the lambdas around it). */
  private argument(): Argument {
    const first = this.peek();
    const second = this.tokens[this.position + 1];
    if (first.type !== 'name' || second?.type !== 'punctuator' || second.value !== '=>') return this.expression(0);
    if (KEYWORDS.has(first.value) || first.value === 'Math') throw syntax(`${first.value} cannot name a parameter (at ${first.at})`);
    this.position += 2;
    this.params.push(first.value);
    this.enter();
    const body = this.expression(0);
    this.depth--;
    this.params.pop();
    return { kind: 'lambda', param: first.value, body };
  }

  private enter(): void {
    if (++this.depth > LIMITS.depth) throw syntax(`the expression is nested deeper than ${LIMITS.depth} levels`);
  }

  private peek(): Token {
    return this.tokens[this.position]!;
  }

  private peekPunctuator(value: string): boolean {
    const token = this.peek();
    return token.type === 'punctuator' && token.value === value;
  }

  private next(): Token {
    const token = this.tokens[this.position]!;
    if (token.type !== 'end') this.position++;
    return token;
  }

  private expect(value: string): void {
    const token = this.next();
    if (token.type !== 'punctuator' || token.value !== value) throw syntax(`expected "${value}" at ${token.at}, found ${describe(token)}`);
  }
}

function describe(token: Token): string {
  return token.type === 'end' ? 'end of expression' : `${token.type} ${JSON.stringify(String(token.value))}`;
}

function syntax(message: string): ExpressionError {
  return new ExpressionError('syntax', message);
}
