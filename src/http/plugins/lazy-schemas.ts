import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

/**
 * Route schemas are compiled when a route first needs them, not at start.
 *
 * Fastify compiles every route's body/query/params validator (ajv) and every response serializer
 * (fast-json-stringify) while the server starts. With the toolbox's and converter's option schemas
 * that was ~4.5 s of CPU and ~60 MB of start-up heap on a 2-vCPU VM (idle RSS 205 MB instead of
 * ~140 MB); most routes of a given server are never called. The compilers below are Fastify's own,
 * with the same options and shared schemas: only *when* they run changes. A schema ajv cannot compile
 * therefore fails the first call of its route (500) instead of the start; the route tests call the
 * routes (test/http/plugins/lazy-schemas.test.ts shows the behaviour).
 */

/** The part of an Ajv instance this plugin touches (Fastify's private instance, see @fastify/ajv-compiler). */
interface AjvLike {
  compile(schema: unknown): ValidateLike;
  getSchema(id: string): ValidateLike | undefined;
}

interface ValidateLike {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- ajv's own signature (data, data context)
  (this: unknown, ...args: any[]): unknown;
  errors?: unknown;
}

/**
 * An ajv plugin (Fastify's `ajv.plugins`) that makes `ajv.compile` return a validator that compiles
 * on its first call. Being a plugin of the default compiler keeps everything else of Fastify's
 * default path (header-name lowercasing, ajv-formats, the shared schemas).
 */
export function compileValidatorsOnFirstUse<A extends AjvLike>(ajv: A): A {
  const compile = ajv.compile.bind(ajv);
  ajv.compile = (schema: unknown): ValidateLike => {
    let validate: ValidateLike | undefined;
    const onFirstUse: ValidateLike = function (this: unknown, ...args: unknown[]) {
      // A schema with an $id may have been compiled (or added) under that id meanwhile: ajv refuses
      // a second compile of the same id, so the stored one is used, as Fastify does at start.
      const id = typeof schema === 'object' && schema !== null ? (schema as { $id?: unknown }).$id : undefined;
      validate ??= (typeof id === 'string' ? ajv.getSchema(id) : undefined) ?? compile(schema);
      const valid = validate.apply(this, args);
      // Fastify reads the errors from the function it was given.
      onFirstUse.errors = validate.errors;
      return valid;
    };
    return onFirstUse;
  };
  return ajv;
}

/** Fastify's default response-serializer factory, with each serializer built on its first use. */
export function serializersOnFirstUse(): SerializerFactory {
  const factory = SerializerSelector();
  return (externalSchemas, serializerOptions) => {
    const compiler = factory(externalSchemas, serializerOptions);
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) => (serialize ??= compiler(route))(data);
    };
  };
}
