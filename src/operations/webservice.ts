import type { Static, TSchema } from 'typebox';
import Type from 'typebox';
import type { Config } from '../config/load.js';
import { OPERATION_COMPONENTS, type WebserviceName } from '../core/webservices.js';
import type { Session } from '../sessions/session.js';
import type { CallPassword } from './transaction/password.js';
import type { MemoryScratch } from '../storage/memory-scratch.js';
import type { FieldRow } from './admin/configuration-fields.js';
import type { ConverterEngines } from './converter/converter-service.js';
import type { UrlEngine } from './urlconverter/urlconverter-service.js';
import type { RememberedCredentials } from './documents/credentials.js';
import type { DocumentService } from './documents/document-service.js';
import type { DocumentStep, NestedSteps } from './transaction/document-transaction.js';
import type { PdfStructureTool } from '../engines/contracts.js';
import type { PopplerRunner } from '../engines/poppler/tool.js';
import type { BarcodeDetector } from '../engines/barcode/index.js';
import type { TesseractEngine } from '../engines/tesseract/tesseract-engine.js';

/**
 * A web-service module: everything about one web-service group of reference §7 in one descriptor.
 * The registry (operations/webservices.ts) lists the modules this server offers; from it come the
 * routes (http/routes/webservices.ts registers them all), the OpenAPI tags, `admin/server/status`
 * (the engines each needs), the application configuration's `webservices.<name>.*`, the statistics,
 * and the nested steps other services run (`converter.pdfa` is the pdfa module's step). A group that
 * is not in the registry does not exist on this server: it is shown as disabled and refused when
 * switched on.
 *
 * Adding a group: a folder `operations/<name>/` with its service (on the document transaction,
 * operations/transaction), its options schema and a `module.ts` exporting a `WebServiceModule`,
 * plus one line in operations/webservices.ts.
 */
export interface WebServiceModule<S = unknown> {
  /**
   * One of the reference's seven names (core/webservices.ts): the wire enumeration of statuses and
   * statistics. It also gives its routes' prefix under the REST base (`/<name>`: the reference puts
   * every operation there), their OpenAPI tag (the reference's: `referenceTag(name)`) and the name its
   * calls are counted under in the statistics and metrics.
   */
  readonly name: WebserviceName;
  /** The engines it needs, by the health check's names: `admin/server/status` reports them and adds up their pools. */
  readonly engines: readonly EngineName[];
  /** Application configuration rows beyond `webservices.<name>.enabled` (which the registry derives). */
  readonly configuration?: readonly FieldRow[];
  /** Builds the service once per server instance. */
  create(deps: WebServiceDeps): S;
  /**
   * A step this service offers to other services' transactions (pdfa → `converter.pdfa`, `ocr.pdfa`),
   * taken from the built service, so that the step and the routes share one instance (its key stores,
   * its caches).
   */
  nestedStep?(service: S): DocumentStep;
  /** Its HTTP routes as data; the HTTP layer adds the REST base, validation, the 303 and the error answers. */
  readonly routes: readonly WebServiceRoute<S>[];
  /**
   * The named schemas (each with its `$id`, e.g. `Operation_PdfaOperation`) its routes reference with
   * `componentRef`: the HTTP layer registers them for validation and as OpenAPI components, in this
   * order, so a new group needs no file under http/. (converter and toolbox register theirs through
   * http/schemas/converter.ts and toolbox.ts, which fixes the order of the published document.)
   */
  readonly components?: readonly TSchema[];
}

/**
 * The engines a health check covers (engines-wiring.ts checks them): the pools, and the tools that
 * run as one process per call.
 */
export type EngineName = 'libreoffice' | 'chromium' | 'images' | 'ghostscript' | 'qpdf' | 'poppler' | 'tesseract' | 'barcode';

/** What a module's service is built from (server.ts provides it). */
export interface WebServiceDeps {
  config: Config;
  documents: DocumentService;
  credentials: RememberedCredentials;
  /** The started engines (engines-wiring.ts). */
  engines: {
    converter: ConverterEngines;
    fonts: { env: Record<string, string> };
    qpdf: PdfStructureTool;
    poppler: PopplerRunner;
    /** The Chromium pool once started (absent when switched off): the urlconverter's browsers. */
    chromium?: UrlEngine;
    /** The Tesseract pool (absent when switched off or not started): the ocr service's engine. */
    tesseract?: TesseractEngine;
    /** The barcode detector's pool of worker threads. */
    barcode: BarcodeDetector;
  };
  /** tmpfs scratch for many-small-file intermediates; absent: the disk scratch only. */
  memoryScratch?: MemoryScratch;
  /** The steps the registered modules offer (`nestedStep`), by the offering service's name. */
  steps: NestedSteps;
}

/** What a route's `run` answers: the document the 303 points to, and findings for Warning headers. */
export interface RouteAnswer {
  documentId: string;
  /** Human-readable findings (converter `report`): each becomes a `Warning: 299` header and a log line. */
  warnings?: string[];
}

/** What `run` gets: the validated path parameters, query and body. */
export interface RouteInput<P extends TSchema, Q extends TSchema, B extends TSchema> {
  params: Static<P>;
  query: Static<Q>;
  body: Static<B>;
}

/**
 * One route of a web service, as data. The answer is the webPDF one for calls that produce or change a
 * document: 303 See Other to the document's information (http/replies.ts `seeDocumentInfo`).
 */
export interface WebServiceRoute<S, P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema> {
  method: 'POST';
  /** Under the module's prefix, e.g. `/:documentId` (`''`: the prefix itself, as `POST urlconverter`). */
  path: string;
  operationId: string;
  summary: string;
  params?: P;
  querystring?: Q;
  body?: B;
  /** Instead of `body`: the group's own operation component (`OPERATION_COMPONENTS`), as its standard routes take. */
  operationBody?: true;
  /** The OpenAPI description of the 303 answer (its Location); none: the 303 is documented bare. */
  seeOther?: string;
  run(service: S, session: Session, input: RouteInput<P, Q, B>): Promise<RouteAnswer>;
}

/** Declares a route with its input types inferred from its schemas (a route list mixes several). */
export function route<S>() {
  return <P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema>(definition: WebServiceRoute<S, P, Q, B>): WebServiceRoute<S> =>
    definition as unknown as WebServiceRoute<S>;
}

/**
 * A schema registered by the HTTP layer under its component name (`Operation_ConverterOperation`),
 * referenced here with the type the service takes. The OpenAPI components stay in http/schemas until
 * they move next to their operations (issue 12, item 3); the reference is the same `$ref` as before.
 */
export function componentRef<T>(id: string) {
  return Type.Unsafe<T>({ $ref: `${id}#` } as unknown as TSchema);
}

/** `{documentId}`: the path segment after the service name on every operation on a stored document. */
export const DocumentIdParams = Type.Object({
  documentId: Type.String({ description: 'id of a document in the session storage' }),
});

/** `{documentId}` and `/new` answer the document a service call made or changed, and its findings. */
export type Outcome = { id: string } | { record: { id: string }; warnings?: string[] };

function answer(outcome: Outcome): RouteAnswer {
  if (!('record' in outcome)) return { documentId: outcome.id };
  return outcome.warnings ? { documentId: outcome.record.id, warnings: outcome.warnings } : { documentId: outcome.record.id };
}

/**
 * What a group's standard routes declare; the rest (method, path, parameters, and the body: the group's
 * `Operation_<Name>Operation` component) is the same for every group.
 */
interface OperationRoute<S, B, Q extends TSchema, A> {
  operationId: string;
  summary: string;
  /** The OpenAPI description of the 303 answer (its Location); default: the changed or the new document. */
  seeOther?: string;
  querystring?: Q;
  /** What the call does; default: the service's own `run` or `runNew` (below). */
  run?: Run<S, B, Q, A>;
}

type Run<S, B, Q extends TSchema, A> = (service: S, session: Session, target: A, body: B, query: Static<Q>) => Promise<Outcome>;

/**
 * The methods a service's standard routes call unless they say otherwise: `run` for `{documentId}`,
 * `runNew` for `new`. A route of a service without them must give its own `run` (the compiler asks).
 */
export interface RunsOnDocuments<B> {
  run(session: Session, documentId: string, body: B): Promise<Outcome>;
}
export interface RunsOnNewDocuments<B> {
  runNew(session: Session, body: B, target: NewDocument): Promise<Outcome>;
}

/** `run` may be left out where the service has the method the route would call. */
type RunGiven<S, D, R> = S extends D ? unknown : { run: R };

/** `POST <name>/{documentId}`: the group's operation on a stored document; answers 303 to the document it changed or made. */
export function documentOperation<S, B, Q extends TSchema = TSchema>(spec: OperationRoute<S, B, Q, string> & RunGiven<S, RunsOnDocuments<B>, Run<S, B, Q, string>>): WebServiceRoute<S> {
  const run: Run<S, B, Q, string> = spec.run ?? ((service, session, documentId, body) => (service as RunsOnDocuments<B>).run(session, documentId, body));
  return route<S>()({
    ...routeHeader({ seeOther: 'Location: the DocumentFile of the changed document', ...spec }),
    path: '/:documentId',
    params: DocumentIdParams,
    async run(service, session, { params, query, body }) {
      return answer(await run(service, session, params.documentId, body as B, query as Static<Q>));
    },
  });
}

/** `new`: the file name and history mode of a document a call makes from nothing (reference: name default "empty.pdf"). */
export const NewDocumentQuery = Type.Object({
  name: Type.Optional(Type.String({ default: 'empty.pdf', description: 'file name of the new document' })),
  history: Type.Optional(Type.Boolean({ default: false })),
});

/** What `POST <name>/new` makes: a document of this name and history mode. */
export interface NewDocument {
  name: string;
  history: boolean;
}

/** `POST <name>/new`: the group's operation on a new document; answers 303 to it. */
export function newDocumentOperation<S, B>(
  spec: Omit<OperationRoute<S, B, typeof NewDocumentQuery, NewDocument>, 'querystring'> & RunGiven<S, RunsOnNewDocuments<B>, Run<S, B, typeof NewDocumentQuery, NewDocument>>,
): WebServiceRoute<S> {
  const run: Run<S, B, typeof NewDocumentQuery, NewDocument> = spec.run ?? ((service, session, target, body) => (service as RunsOnNewDocuments<B>).runNew(session, body, target));
  return route<S>()({
    ...routeHeader({ seeOther: 'Location: the DocumentFile of the new document', ...spec, querystring: NewDocumentQuery }),
    path: '/new',
    async run(service, session, { query, body }) {
      return answer(await run(service, session, { name: query.name ?? 'empty.pdf', history: query.history ?? false }, body as B, query));
    },
  });
}

function routeHeader<Q extends TSchema>(spec: Pick<OperationRoute<unknown, unknown, Q, unknown>, 'operationId' | 'summary' | 'querystring'> & { seeOther: string }) {
  return {
    method: 'POST' as const,
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.querystring ? { querystring: spec.querystring } : {}),
    operationBody: true as const,
    seeOther: spec.seeOther,
  };
}

/** A call's body as the service receives it: its options under the group's key, and the call's password. */
export type OperationRequest<K extends WebserviceName, O> = { [P in K]: O } & { password?: CallPassword };

/**
 * `Operation_<Name>Operation` (reference §10): the group's options under its key, and the password,
 * billing and settings members every web service shares (components the HTTP layer registers).
 */
export function operationEnvelope<O>(key: WebserviceName, optionsId: string) {
  return Type.Object(
    {
      [key]: componentRef<O>(optionsId),
      password: Type.Optional(componentRef<CallPassword>('Operation_PdfPassword')),
      billing: Type.Optional(componentRef<Record<string, unknown>>('Operation_Billing')),
      settings: Type.Optional(componentRef<Record<string, unknown>>('Operation_Settings')),
    },
    { $id: OPERATION_COMPONENTS[key] },
  );
}
