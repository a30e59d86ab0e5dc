import { ExpressionError } from '../expression/errors.js';
import { evaluate } from '../expression/evaluate.js';
import { NO_PROPERTIES, type Value, type VariableScope } from '../expression/value.js';
import type { ModelObject, Variable } from './model.js';

/**
 * The values of a profile's variables during one validation (veraPDF's `<variables>`; model.ts).
 * Feed every object of a variable's type to `observe` before checking the rules that read it (those
 * rules are `deferred` in the profiles, or the model visits the variable's objects first).
 *
 * A value that could not be established stays unknown for the rest of the validation: its type is
 * not implemented by the model (so "no such object" cannot be told from "not looked for"), or an
 * evaluation read an unimplemented property or failed. Reading an unknown variable throws an
 * `unknownVariable` ExpressionError, which makes the rule not-checked: the default value is never
 * passed off as the document's.
 */
export class ProfileVariables implements VariableScope {
  private readonly values = new Map<string, Value>();
  private readonly unknown = new Map<string, string>();
  private readonly names: ReadonlySet<string>;
  /** The variables computed over each types array: objects of one kind share theirs (one lookup per kind, not per object). */
  private readonly byTypes = new WeakMap<readonly string[], readonly Variable[]>();

  /** `implementsType`: whether the model enumerates every object of a type (false: the variable is unknown from the start). */
  constructor(
    private readonly variables: readonly Variable[],
    implementsType: (type: string) => boolean,
  ) {
    this.names = new Set(variables.map((variable) => variable.name));
    for (const variable of variables) {
      if (!implementsType(variable.object)) {
        this.unknown.set(variable.name, `the model does not implement ${variable.object}, over which ${variable.name} is computed`);
        continue;
      }
      this.assign(variable, () => evaluate(variable.defaultValue, NO_PROPERTIES, this));
    }
  }

  /** Updates the variables computed over one of `object`'s types (the last object observed wins). */
  observe(object: ModelObject): void {
    let variables = this.byTypes.get(object.types);
    if (variables === undefined) {
      variables = this.variables.filter((variable) => object.types.includes(variable.object));
      this.byTypes.set(object.types, variables);
    }
    for (const variable of variables) {
      if (this.unknown.has(variable.name)) continue;
      this.assign(variable, () => evaluate(variable.value, object, this));
    }
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  get(name: string): Value {
    const reason = this.unknown.get(name);
    if (reason !== undefined) throw new ExpressionError('unknownVariable', `the variable ${name} is unknown: ${reason}`);
    if (!this.values.has(name)) throw new ExpressionError('unknownVariable', `the variable ${name} has no value yet`);
    return this.values.get(name);
  }

  /** Why a variable is unknown, or undefined when its value is known. */
  unknownReason(name: string): string | undefined {
    return this.unknown.get(name);
  }

  private assign(variable: Variable, compute: () => Value): void {
    try {
      this.values.set(variable.name, compute());
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      this.values.delete(variable.name);
      this.unknown.set(variable.name, error.message);
    }
  }
}
