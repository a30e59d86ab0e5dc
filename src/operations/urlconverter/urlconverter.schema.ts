import Type, { type TSchema } from 'typebox';
import { A4_PAGE_BOX } from '../converter/options.schema.js';
import { defaulted, withDefault, type Options } from '../option-schema.js';
import { componentRef } from '../webservice.js';

/**
 * `Operation_UrlConverterOperation` and its members as webPDF defines them (reference §10.7): the one
 * declaration of the urlconverter's options (validation, OpenAPI components, types, defaults). Unknown
 * members are ignored, as everywhere (the official clients send every default explicitly).
 */

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

/** `{"$ref": "<$id>#"}`, typed as the component itself so that `Options<>` sees its members and defaults. */
function refTo<T extends TSchema & { $id?: string }>(schema: T): T {
  if (!schema.$id) throw new Error('refTo() needs a schema with $id');
  return Type.Unsafe({ $ref: `${schema.$id}#` } as unknown as TSchema) as unknown as T;
}

const FileSource = withDefault(Type.Enum(['value', 'uri'], { default: 'value' }));

function headerFooter(id: string) {
  return Type.Object(
    {
      source: defaulted(FileSource),
      uri: defaulted(Type.String({ default: '' })),
      value: opt(Type.String({ description: 'Base64 of the HTML; ${html.pageNumber}, ${html.totalPages} and ${html.title} are filled in' })),
    },
    { $id: id },
  );
}

export const UrlConverterHeader = headerFooter('Operation_UrlConverterHeader');
export const UrlConverterFooter = headerFooter('Operation_UrlConverterFooter');

export const UrlConverterPage = Type.Object(
  {
    ...A4_PAGE_BOX,
    metrics: defaulted(Type.Enum(['pt', 'pc', 'px', 'mm', 'in'], { default: 'mm' })),
    header: opt(refTo(UrlConverterHeader)),
    footer: opt(refTo(UrlConverterFooter)),
  },
  { $id: 'Operation_UrlConverterPage' },
);

export const HttpBasicAuth = Type.Object(
  {
    userName: defaulted(Type.String({ default: '' })),
    password: defaulted(Type.String({ default: '' })),
  },
  { $id: 'Operation_HttpBasicAuth', description: 'credentials sent to the page’s own origin only' },
);

export const HttpProxy = Type.Object(
  {
    address: defaulted(Type.String({ default: '' })),
    port: defaulted(Type.Integer({ format: 'int32', minimum: 0, default: 0 })),
    userName: defaulted(Type.String({ default: '' })),
    password: defaulted(Type.String({ default: '' })),
  },
  { $id: 'Operation_HttpProxy' },
);

export const UrlConverter = Type.Object(
  {
    url: defaulted(Type.String({ default: '', description: 'the http(s) page to convert; it and everything it loads must pass the address policy' })),
    page: opt(refTo(UrlConverterPage)),
    basicAuth: opt(refTo(HttpBasicAuth)),
    proxy: opt(refTo(HttpProxy)),
  },
  { $id: 'Operation_UrlConverter' },
);

export type UrlConverterOptions = Options<typeof UrlConverter>;
export type UrlConverterPageOptions = Options<typeof UrlConverterPage>;

/** `settings` (Operation_Settings) is an open object registered by the converter; `settings.http` is read by http-settings.ts. */
export interface UrlConverterRequest {
  urlconverter: UrlConverterOptions;
  settings?: { http?: unknown };
}

export const UrlConverterOperation = Type.Object(
  {
    urlconverter: refTo(UrlConverter),
    password: opt(componentRef<unknown>('Operation_PdfPassword')),
    billing: opt(componentRef<unknown>('Operation_Billing')),
    settings: opt(componentRef<unknown>('Operation_Settings')),
  },
  { $id: 'Operation_UrlConverterOperation' },
);

export const UrlConverterQuery = Type.Object({
  history: opt(Type.Boolean({ default: false, description: 'keep a history of the new document' })),
});

/** The named schemas, in the order they become OpenAPI components. */
export const URLCONVERTER_COMPONENTS = [UrlConverterHeader, UrlConverterFooter, UrlConverterPage, HttpBasicAuth, HttpProxy, UrlConverter, UrlConverterOperation] as const;
