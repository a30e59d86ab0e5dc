import type { Argument as ArgumentNode, BinaryOperator, Node } from './ast.js';
import { type Argument, type Budget, callMath, callMethod, checkedLength, lengthOf } from './builtins.js';
import { ExpressionError } from './errors.js';
import { LIMITS } from './limits.js';
import { parse } from './parse.js';
import { NO_VARIABLES, type PropertyScope, type Value, type VariableScope } from './value.js';

/**
 * Compile once, evaluate many times. No `eval`, no `new Function`: the tree of parse.ts becomes a tree of
 * closures (one per node, made once per expression: a validation evaluates tens of thousands of tests, and
 * walking the syntax tree each time cost more than the model objects they read); names resolve only to
 * lambda parameters, profile variables and the model object's own properties (through its `has`/`get`),
 * and only the methods of builtins.ts can be called. Each node still costs one step of the budget.
 */
export interface CompiledExpression {
  readonly source: string;
  readonly ast: Node;
  /** Free names read: profile variables or model properties (sorted). */
  readonly names: readonly string[];
  /** Builtins called (`.split()`, `.length`, `Math.abs()`…), sorted. */
  readonly builtins: readonly string[];
  /** The tree as closures over an evaluation (closures below). */
  readonly run: Step;
}

export function compile(source: string): CompiledExpression {
  const trimmed = source.trim();
  const { ast, names, builtins } = parse(trimmed);
  return Object.freeze({ source: trimmed, ast, names: Object.freeze(names), builtins: Object.freeze(builtins), run: closure(ast) });
}

/**
 * The value of the expression for one model object. A name is a profile variable when `variables` has
 * it, otherwise a property of `scope`; a property `scope` does not implement throws an
 * `unknownProperty` ExpressionError (the caller decides what that means: a rule is then not-checked).
 */
export function evaluate(compiled: CompiledExpression, scope: PropertyScope, variables: VariableScope = NO_VARIABLES): Value {
  return compiled.run(new Evaluation(scope, variables));
}

/** JavaScript's truthiness (ToBoolean), which decides a rule's test. */
export function truthy(value: Value): boolean {
  return Boolean(value);
}

/** One node of a compiled expression: its value in an evaluation. */
type Step = (e: Evaluation) => Value;

class Evaluation implements Budget {
  private steps = 0;
  /** Values of the enclosing lambdas' parameters, by nesting level. */
  readonly frames: Value[] = [];

  constructor(
    private readonly scope: PropertyScope,
    private readonly variables: VariableScope,
  ) {}

  charge(steps: number): void {
    this.steps += steps;
    if (this.steps > LIMITS.steps) throw new ExpressionError('limit', `the evaluation took more than ${LIMITS.steps} steps`);
  }

  name(name: string): Value {
    if (this.variables.has(name)) return this.variables.get(name);
    if (!this.scope.has(name)) throw new ExpressionError('unknownProperty', `the model does not implement the property ${name}`);
    const value = this.scope.get(name);
    if (value === undefined) return null;
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    throw new ExpressionError('type', `the property ${name} holds a ${typeof value}, not a string, number, boolean or null`);
  }
}

/**
 * A node as a closure: each charges its step first, then evaluates its operands left to right, as the
 * tree walk did. The frequent comparisons get closures of their own (a shared one would switch on the operator each time).
 */
function closure(node: Node): Step {
  switch (node.kind) {
    case 'literal': {
      const value = node.value;
      return (e) => {
        e.charge(1);
        return value;
      };
    }
    case 'regex': {
      const regex = node.regex;
      return (e) => {
        e.charge(1);
        return regex;
      };
    }
    case 'param': {
      const level = node.level;
      return (e) => {
        e.charge(1);
        return e.frames[level];
      };
    }
    case 'identifier': {
      const name = node.name;
      return (e) => {
        e.charge(1);
        return e.name(name);
      };
    }
    case 'unary': {
      const operator = node.operator;
      const operand = closure(node.operand);
      return (e) => {
        e.charge(1);
        return unary(operator, operand(e));
      };
    }
    case 'binary':
      return binaryClosure(node.operator, closure(node.left), closure(node.right));
    case 'logical': {
      // JavaScript's short-circuit: the value of the operand that decided, not a boolean.
      const operands = node.operands.map(closure);
      if (node.operator === '&&') {
        return (e) => {
          e.charge(1);
          let result: Value = undefined;
          for (const operand of operands) {
            result = operand(e);
            if (!result) return result;
          }
          return result;
        };
      }
      return (e) => {
        e.charge(1);
        let result: Value = undefined;
        for (const operand of operands) {
          result = operand(e);
          if (result) return result;
        }
        return result;
      };
    }
    case 'conditional': {
      const test = closure(node.test);
      const consequent = closure(node.consequent);
      const alternate = closure(node.alternate);
      return (e) => {
        e.charge(1);
        return test(e) ? consequent(e) : alternate(e);
      };
    }
    case 'length': {
      const object = closure(node.object);
      return (e) => {
        e.charge(1);
        return lengthOf(object(e));
      };
    }
    case 'call': {
      const object = closure(node.object);
      const method = node.method;
      const args = node.args.map(argumentClosure);
      if (args.length === 0) {
        // `.length()`, `.toString()`: no argument list to build (the methods never change it).
        return (e) => {
          e.charge(1);
          return callMethod(object(e), method, NO_ARGUMENTS, e);
        };
      }
      return (e) => {
        e.charge(1);
        const receiver = object(e);
        return callMethod(
          receiver,
          method,
          args.map((arg) => arg(e)),
          e,
        );
      };
    }
    case 'math': {
      const method = node.method;
      const args = node.args.map(closure);
      return (e) => {
        e.charge(1);
        return callMath(
          method,
          args.map((arg) => arg(e)),
        );
      };
    }
  }
}

const NO_ARGUMENTS: Argument[] = [];

/** A method argument: a value, or a lambda (`elem => body`) as a callback that binds its parameter's frame. */
function argumentClosure(arg: ArgumentNode): (e: Evaluation) => Argument {
  if (arg.kind !== 'lambda') return closure(arg);
  const body = closure(arg.body);
  return (e) => {
    const level = e.frames.length;
    return (element: Value) => {
      e.frames[level] = element;
      try {
        return body(e);
      } finally {
        e.frames.length = level;
      }
    };
  };
}

function binaryClosure(operator: BinaryOperator, left: Step, right: Step): Step {
  switch (operator) {
    case '==':
      // Loose equality on purpose: the profiles are JavaScript (`null == undefined`, `"1" == 1`).
      return (e) => {
        e.charge(1);
        const a = left(e);
        return a == right(e);
      };
    case '!=':
      return (e) => {
        e.charge(1);
        const a = left(e);
        return a != right(e);
      };
    case '<=':
      return (e) => {
        e.charge(1);
        const a = left(e) as number;
        return a <= (right(e) as number);
      };
    case '>=':
      return (e) => {
        e.charge(1);
        const a = left(e) as number;
        return a >= (right(e) as number);
      };
    default:
      return (e) => {
        e.charge(1);
        const a = left(e);
        return binary(operator, a, right(e));
      };
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
