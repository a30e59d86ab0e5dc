import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';

/**
 * Served routes the OpenAPI document deliberately leaves out, as "METHOD /full/path" with the reason.
 * None today: the document describes itself (openapi.json, openapi.yaml), health and the metrics too.
 */
const UNDOCUMENTED: Readonly<Record<string, string>> = {};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Operation = { servers?: Array<{ url: string }>; summary?: string; description?: string; responses: Record<string, { content?: unknown }> };
type PathItem = Partial<Record<string, Operation>>;
type OpenApi = { servers: Array<{ url: string }>; paths: Record<string, PathItem> };

/** A route as "METHOD /path" with every parameter (":id", "{id}", Fastify's "*") written "{}": names may differ. */
const shape = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/:[A-Za-z0-9_]+|\{[^}]+\}|\*/g, '{}')}`;

/** Issue 13 item 9: every route Fastify serves is in openapi.json with its method. */
describe('the OpenAPI document against the route table', () => {
  const { server } = useTestServer({ session: false });
  let document: OpenApi;
  beforeAll(async () => {
    document = (await (await fetch(`${server.rest}/openapi.json`)).json()) as OpenApi;
  });

  /** Every operation of the document as "METHOD /full/path": its path under the server that serves it. */
  function documented(): Array<{ route: string; operation: Operation }> {
    return Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => {
          // An operation's own servers win over the document's (OpenAPI 3.0 §4.7.10); Quire sets none per path item.
          const base = (operation!.servers ?? document.servers)[0]!.url.replace(/\/$/, '');
          return { route: shape(method, `${base}${path}`), operation: operation! };
        }),
    );
  }

  it('has every served route with its method, and nothing that is not served', async () => {
    const app = server.app;
    const served = app.registeredRoutes.map((r) => ({ method: r.method, url: r.url }));
    // The list is Fastify's route table: the router's own print shows as many method entries...
    const printed = app.printRoutes({ commonPrefix: false });
    const printedEntries = [...printed.matchAll(/\(([A-Z, ]+)\)/g)].reduce((sum, match) => sum + match[1]!.split(',').length, 0);
    expect(printedEntries).toBe(served.length);
    // ...and the router finds each of them (ignoreTrailingSlash files "/rest/" under "/rest").
    for (const route of served) {
      const found = app.hasRoute(route) || app.hasRoute({ method: route.method, url: route.url.replace(/(.)\/$/, '$1') });
      expect(found, `${route.method} ${route.url}`).toBe(true);
    }

    const servedShapes = served.map((r) => shape(r.method, r.url)).filter((route) => !(route in UNDOCUMENTED));
    const documentedShapes = documented().map((d) => d.route);
    expect(new Set(servedShapes).size).toBe(servedShapes.length);
    expect([...documentedShapes].sort()).toEqual([...servedShapes].sort());
    // Those the issue named, and those outside the REST base.
    expect(documentedShapes).toEqual(expect.arrayContaining(['HEAD /webPDF/rest/admin/server/log', 'HEAD /webPDF/rest/documents/{}', 'GET /webPDF/health', 'GET /webPDF/metrics']));
    expect(document.paths['/documents/{documentId}/archive/{archivePath}']).toBeDefined();
  });

  it('describes a HEAD as an answer without a body', () => {
    const heads = documented().filter((d) => d.route.startsWith('HEAD '));
    expect(heads.length).toBeGreaterThan(20);
    for (const { route, operation } of heads) {
      for (const [status, response] of Object.entries(operation.responses)) expect(response.content, `${route} ${status}`).toBeUndefined();
    }
    const log = document.paths['/admin/server/log']!;
    expect(log.head!.summary).toMatch(/Content-Length/);
    expect(log.get!.responses['206']).toBeDefined();
    expect(document.paths['/documents/{documentId}']!.head!.description).toMatch(/GET/);
  });

  it('documents the 415 of a route that takes a body as problem details', () => {
    const upload = document.paths['/documents']!.post!;
    expect(Object.keys(upload.responses['415']!.content as object)).toEqual(['application/problem+json']);
    expect(document.paths['/admin/session/{sessionId}/close']!.post!.responses['415']).toBeUndefined();
  });

  it('is still a valid OpenAPI 3.0 document', async () => {
    const result = await new Validator().validate(document as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });
});
