import Type, { type Static, type TArray, type TObject, type TOptional, type TProperties, type TSchema } from 'typebox';
import { withDefaults } from '../core/schema-defaults.js';

/**
 * Options are declared once: an operation's TypeBox schema is the validation, the OpenAPI document,
 * the TypeScript type and the defaults. Every call reaches an operation through the HTTP layer's
 * validation (Fastify's ajv with `useDefaults`, also for queued calls, which are replayed through
 * `app.inject`), so a member with a `default` is always present when the operation runs, in the
 * objects the schema describes directly (ajv fills no defaults inside `anyOf` branches, and neither
 * does `Options<>`).
 */

/** Type-level mark of a schema with a `default`: ajv fills the member when it is missing. */
export type TWithDefault<T extends TSchema = TSchema> = T & { default: Static<T> };

/** `schema`, marked for `Options<>` as carrying its `default` (checked when the module loads). */
export function withDefault<T extends TSchema>(schema: T): TWithDefault<T> {
  if ((schema as { default?: unknown }).default === undefined) throw new Error('withDefault(): the schema has no default');
  return schema as TWithDefault<T>;
}

/**
 * An optional member with a default: `Type.Optional(schema)`, and the operation's type (`Options<>`)
 * sees it as always present.
 */
export function defaulted<T extends TSchema>(schema: T): TOptional<TWithDefault<T>> {
  return Type.Optional(withDefault(schema)) as TOptional<TWithDefault<T>>;
}

type Evaluate<T> = { [K in keyof T]: T[K] } & {};

type DefaultedKeys<P extends TProperties> = { [K in keyof P]: P[K] extends { default: unknown } ? K : never }[keyof P];
type OptionalKeys<P extends TProperties> = { [K in keyof P]: P[K] extends { default: unknown } ? never : P[K] extends TOptional<TSchema> ? K : never }[keyof P];
type RequiredKeys<P extends TProperties> = Exclude<keyof P, DefaultedKeys<P> | OptionalKeys<P>>;

type OptionsObject<P extends TProperties> = Evaluate<{ [K in DefaultedKeys<P>]-?: Options<P[K]> } & { [K in OptionalKeys<P>]?: Options<P[K]> } & { [K in RequiredKeys<P>]: Options<P[K]> }>;

/**
 * The options as an operation receives them: `Static<>` of the schema, with every member marked
 * `defaulted` present (inside objects and array items; unions are taken as `Static<>` gives them).
 */
export type Options<S extends TSchema> = S extends TObject<infer P extends TProperties> ? OptionsObject<P> : S extends TArray<infer I extends TSchema> ? Options<I>[] : Static<S>;

/**
 * What an absent object member stands for: its schema's defaults (ajv fills defaults only inside
 * members the client sent). Computed from the schema, so the values are not written twice.
 */
export function defaultsOf<S extends TSchema>(schema: S): Options<S> {
  return Object.freeze(withDefaults(schema, {})) as Options<S>;
}
