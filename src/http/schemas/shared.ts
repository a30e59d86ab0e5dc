import Type, { type Static, type TSchema } from 'typebox';

/**
 * Schemas shared by many routes are registered once under their webPDF component name ($id) and
 * referenced from routes; they become `components.schemas` of the OpenAPI document.
 */
export const shared: TSchema[] = [];

export function component<T extends TSchema>(schema: T): T {
  shared.push(schema);
  return schema;
}

/** A reference to a registered component that keeps the component's static type. */
export function ref<T extends TSchema & { $id?: string }>(schema: T) {
  if (!schema.$id) throw new Error('ref() needs a schema with $id');
  return Type.Unsafe<Static<T>>({ $ref: `${schema.$id}#` } as unknown as TSchema);
}

export const WebserviceException = component(
  Type.Object(
    {
      errorCode: Type.Integer({ format: 'int32', description: 'negative error number; 0 = no error (see docs/errors.md)' }),
      errorMessage: Type.String(),
      stackTrace: Type.String({ description: 'server-side trace; empty unless the server runs in debug mode' }),
    },
    { $id: 'Webservice_Exception', description: 'The error structure of every failed call.' },
  ),
);

export const DocumentIdParams = Type.Object({
  documentId: Type.String({ description: 'id of a document in the session storage' }),
});
