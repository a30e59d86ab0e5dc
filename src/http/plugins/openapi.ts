import { STATUS_CODES } from 'node:http';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { REFERENCE_TAGS } from '../../core/webservices.js';
import { REGISTERED } from '../../operations/webservices.js';
import type { BuildInfo } from '../../version.js';
import { shared } from '../schemas/shared.js';
import { EXCEPTION_TYPE, PROBLEM_TYPE } from './error-answer.js';

export interface RegisteredRoute {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Name under which the OpenAPI document shows a route's `*` segment. */
    wildcardName?: string;
  }
  interface FastifyInstance {
    /** Every route the server registered (method and full URL), to check the OpenAPI document against. */
    registeredRoutes: RegisteredRoute[];
  }
}

/**
 * The interface's tags: the web services' in the reference's order (the reference's tag and
 * description; the interface lists all seven, offered here or not).
 */
const TAGS: Array<{ name: string; description: string }> = [
  { name: 'authentication', description: 'Log in, log out, renew a session, user information, user certificates' },
  { name: 'documents', description: 'Document storage of the session' },
  { name: 'administration', description: 'Server settings, status, logs, sessions, statistics, replay queue (administrative rights)' },
  ...REFERENCE_TAGS,
  { name: 'portal', description: 'For the portal application only; may change without notice' },
  { name: 'experimental', description: 'May change at any time without notice' },
];

/**
 * The OpenAPI 3.0.1 document, generated from the route schemas (so every route added later appears
 * by itself); routes/openapi.ts serves it. Register on the root instance before any route.
 */
export async function registerOpenApi(app: FastifyInstance, options: { restBase: string; build: BuildInfo }): Promise<void> {
  const routes: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  for (const schema of shared) app.addSchema(schema);
  // The components a web-service module declares itself (a group without a file under http/schemas).
  const idOf = (schema: object) => (schema as { $id?: string }).$id;
  const known = new Set(shared.map(idOf));
  for (const schema of REGISTERED.flatMap((module) => module.components ?? [])) {
    if (!known.has(idOf(schema))) app.addSchema(schema);
    known.add(idOf(schema));
  }
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.1',
      info: {
        title: 'Quire REST interface',
        description: 'Session-based PDF processing server, wire-compatible with the webPDF REST interface.',
        version: options.build.label,
        license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      },
      servers: [{ url: options.restBase }],
      tags: TAGS,
      components: {
        securitySchemes: {
          BasicAuth: { type: 'http', scheme: 'basic', description: 'user name and password: for login, and for scraping the metrics as an administrator' },
          BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'session access token or an external OAuth 2.0 JWT' },
        },
      },
    },
    // Every served method is described, HEAD too: Fastify serves one for each GET (exposeHeadRoutes).
    exposeHeadRoutes: true,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const transformed = { ...(schema as Record<string, unknown>) };
      let documentedUrl = url;
      const wildcard = route.config?.wildcardName;
      if (wildcard && url.endsWith('/*')) {
        // Fastify's catch-all segment, documented under the name the interface gives it (e.g. archivePath).
        documentedUrl = `${url.slice(0, -1)}:${wildcard}`;
        const params = transformed.params as { properties?: Record<string, unknown>; required?: string[] } | undefined;
        if (params?.properties?.['*']) {
          const { '*': value, ...others } = params.properties;
          transformed.params = { ...params, properties: { ...others, [wildcard]: value }, required: [...(params.required ?? []).filter((r) => r !== '*'), wildcard] };
        }
      }
      // A route outside the REST base (health, metrics) is served from the host's root: its full path, under server "/".
      if (!url.startsWith(options.restBase)) transformed.servers = [{ url: '/', description: 'outside the REST base' }];
      const documented = route.config?.documentedBody;
      if (documented) {
        transformed.body = documented.schema;
        transformed.consumes = [documented.contentType];
      }
      const takesBody = transformed.body !== undefined;
      transformed.response = { ...errorResponses(route.config?.auth ?? 'session', takesBody), ...(transformed.response as object) };
      if (route.method === 'HEAD')
        headOnly(
          transformed,
          routes.some((r) => r.method === 'GET' && r.url === url),
        );
      return { schema: transformed as typeof schema, url: documentedUrl };
    },
  });
}

/**
 * The error statuses a route can answer with (documented, not used for serialisation): Webservice_Exception
 * as application/json, and for a route that takes a body the 415 that is an RFC 9457 problem (error-answer.ts).
 */
function errorResponses(auth: string, takesBody: boolean): Record<string, unknown> {
  const error = (description: string) => ({ description, content: { [EXCEPTION_TYPE]: { schema: { $ref: 'Webservice_Exception#' } } } });
  const responses: Record<string, unknown> = { 400: error('invalid parameters or data (errorCode -14 and others, see docs/errors.md)') };
  if (auth !== 'none') responses[401] = error('missing, invalid or expired token, or failed login');
  if (auth === 'admin' || auth === 'admin-or-basic') responses[403] = error('administrative rights required');
  if (takesBody) {
    responses[415] = {
      description: 'the body has a content type this endpoint does not read (errorCode -81): an HTTP error for the clients, see docs/errors.md',
      content: { [PROBLEM_TYPE]: { schema: PROBLEM_SCHEMA } },
    };
  }
  return responses;
}

/** RFC 9457 problem details with the webPDF exception members (error-answer.ts). */
const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'errorCode', 'errorMessage', 'stackTrace'],
  properties: {
    type: { type: 'string', description: 'about:blank: the status is the problem type' },
    title: { type: 'string', description: 'the HTTP status phrase' },
    status: { type: 'integer' },
    detail: { type: 'string', description: 'what was wrong, as errorMessage' },
    errorCode: { type: 'integer', description: 'the catalogue code (docs/errors.md)' },
    errorMessage: { type: 'string' },
    stackTrace: { type: 'string' },
  },
};

/**
 * A HEAD answer has the status and headers of its GET and no body (RFC 9110 §9.3.2): the responses
 * the route shares with its GET keep their descriptions and lose their content.
 */
function headOnly(schema: Record<string, unknown>, hasGet: boolean): void {
  const responses = schema.response as Record<string, { description?: string } | undefined>;
  schema.response = Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [status, { type: 'null', description: response?.description ?? STATUS_CODES[Number(status)] ?? 'answer' }]),
  );
  if (hasGet) schema.description = 'The status and headers the GET of this path answers, without the body.';
}
