import type { Argument as ArgumentNode, Node } from './ast.js';
import { type Argument, type Budget, callMath, callMethod, checkedLength, lengthOf } from './builtins.js';
import { ExpressionError } from './errors.js';
import { LIMITS } from './limits.js';
import { parse } from './parse.js';
import { NO_VARIABLES, type PropertyScope, type Value, type VariableScope } from './value.js';

/**
 * Compile once, evaluate many times. No `eval`, no `new Function`: the tree of parse.ts is walked by
 * hand, names resolve only to lambda parameters, profile variables and the model object's own
 * properties (through its `has`/`get`), and only the methods of builtins.ts can be called.
 */
export interface CompiledExpression {
  readonly source: string;
  readonly ast: Node;
  /** Free names read: profile variables or model properties (sorted). */
  readonly names: readonly string[];
  /** Builtins called (`.split()`, `.length`, `Math.abs()`…), sorted. */
  readonly builtins: readonly string[];
}

export function compile(source: string): CompiledExpression {
  const trimmed = source.trim();
  const { ast, names, builtins } = parse(trimmed);
  return Object.freeze({ source: trimmed, ast, names: Object.freeze(names), builtins: Object.freeze(builtins) });
}

/**
 * The value of the expression for one model object. A name is a profile variable when `variables` has
 * it, otherwise a property of `scope`; a property `scope` does not implement throws an
 * `unknownProperty` ExpressionError (the caller decides what that means: a rule is then not-checked).
 */
export function evaluate(compiled: CompiledExpression, scope: PropertyScope, variables: VariableScope = NO_VARIABLES): Value {
  return new Evaluation(scope, variables).run(compiled.ast);
}

/** JavaScript's truthiness (ToBoolean), which decides a rule's test. */
export function truthy(value: Value): boolean {
  return Boolean(value);
}

class Evaluation implements Budget {
  private steps = 0;
  /** Values of the enclosing lambdas' parameters, by nesting level. */
  private readonly frames: Value[] = [];

  constructor(
    private readonly scope: PropertyScope,
    private readonly variables: VariableScope,
  ) {}

  run(ast: Node): Value {
    return this.node(ast);
  }

  charge(steps: number): void {
    this.steps += steps;
    if (this.steps > LIMITS.steps) throw new ExpressionError('limit', `the evaluation took more than ${LIMITS.steps} steps`);
  }

  private node(node: Node): Value {
    this.charge(1);
    switch (node.kind) {
      case 'literal':
        return node.value;
      case 'regex':
        return node.regex;
      case 'param':
        return this.frames[node.level];
      case 'identifier':
        return this.name(node.name);
      case 'unary':
        return unary(node.operator, this.node(node.operand));
      case 'binary':
        return binary(node.operator, this.node(node.left), this.node(node.right));
      case 'logical': {
        // JavaScript's short-circuit: the value of the operand that decided, not a boolean.
        let result: Value = undefined;
        for (const operand of node.operands) {
          result = this.node(operand);
          if (node.operator === '&&' ? !result : result) return result;
        }
        return result;
      }
      case 'conditional':
        return this.node(node.test) ? this.node(node.consequent) : this.node(node.alternate);
      case 'length':
        return lengthOf(this.node(node.object));
      case 'call': {
        const receiver = this.node(node.object);
        return callMethod(
          receiver,
          node.method,
          node.args.map((arg) => this.argument(arg)),
          this,
        );
      }
      case 'math':
        return callMath(
          node.method,
          node.args.map((arg) => this.node(arg)),
        );
    }
  }

  private argument(arg: ArgumentNode): Argument {
    if (arg.kind !== 'lambda') return this.node(arg);
    const level = this.frames.length;
    return (element: Value) => {
      this.frames[level] = element;
      try {
        return this.node(arg.body);
      } finally {
        this.frames.length = level;
      }
    };
  }

  private name(name: string): Value {
    if (this.variables.has(name)) return this.variables.get(name);
    if (!this.scope.has(name)) throw new ExpressionError('unknownProperty', `the model does not implement the property ${name}`);
    const value = this.scope.get(name);
    if (value === undefined) return null;
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    throw new ExpressionError('type', `the property ${name} holds a ${typeof value}, not a string, number, boolean or null`);
  }
}

function unary(operator: string, operand: Value): Value {
  // Native operators on values that can only be primitives, arrays and regexes: JavaScript's coercions, exactly.
  const v = operand as number;
  switch (operator) {
    case '!':
      return !operand;
    case '-':
      return -v;
    case '+':
      return +v;
    default:
      return ~v;
  }
}

function binary(operator: string, left: Value, right: Value): Value {
  const a = left as number;
  const b = right as number;
  switch (operator) {
    case '==':
      // Loose equality on purpose: the profiles are JavaScript (`null == undefined`, `"1" == 1`).
      return left == right;
    case '!=':
      return left != right;
    case '===':
      return left === right;
    case '!==':
      return left !== right;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '+':
      return checkedLength(a + b);
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    case '%':
      return a % b;
    case '&':
      return a & b;
    case '|':
      return a | b;
    case '^':
      return a ^ b;
    case '<<':
      return a << b;
    case '>>':
      return a >> b;
    default:
      return a >>> b;
  }
}
