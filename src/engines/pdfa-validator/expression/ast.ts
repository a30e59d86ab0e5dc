/**
 * The syntax tree of an expression. Names are resolved while parsing: a `param` is a lambda's parameter
 * (by nesting level), an `identifier` is a free name (a profile variable or a property of the model
 * object, decided at evaluation), `Math.*` is a `math` node; no other global exists.
 */
export type Literal = string | number | boolean | null | undefined;

export type UnaryOperator = '!' | '-' | '+' | '~';
export type BinaryOperator = '==' | '!=' | '===' | '!==' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '<<' | '>>' | '>>>';

export type Node =
  | { kind: 'literal'; value: Literal }
  | { kind: 'regex'; regex: RegExp }
  | { kind: 'identifier'; name: string }
  | { kind: 'param'; name: string; level: number }
  | { kind: 'unary'; operator: UnaryOperator; operand: Node }
  | { kind: 'binary'; operator: BinaryOperator; left: Node; right: Node }
  /** `a && b && c` as one node: chains of 70 `||` (the CMap name rules) stay shallow. */
  | { kind: 'logical'; operator: '&&' | '||'; operands: Node[] }
  | { kind: 'conditional'; test: Node; consequent: Node; alternate: Node }
  /** `x.length`, the only property read on a value. */
  | { kind: 'length'; object: Node }
  | { kind: 'call'; object: Node; method: string; args: Argument[] }
  | { kind: 'math'; method: string; args: Node[] };

/** `elem => body`: only as a method argument (`filter`), never a value of its own. */
export interface Lambda {
  kind: 'lambda';
  param: string;
  body: Node;
}

export type Argument = Node | Lambda;
