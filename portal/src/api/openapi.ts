/**
 * The web services as the served OpenAPI document describes them: every POST whose body is an
 * `Operation_<Name>Operation` component is a web-service operation; its tag is the service. Nothing
 * here names a service or an option: a new one on the server appears in the portal.
 */
import type { Components, Schema } from '../forms/schema';

export interface ServiceOperation {
  operationId: string;
  service: string;
  summary: string;
  /** The path under the REST base, e.g. /toolbox/{documentId}. */
  path: string;
  needsDocument: boolean;
  body: Schema;
  bodyName: string;
}

export interface ApiModel {
  components: Components;
  services: Map<string, ServiceOperation[]>;
}

interface OpenApi {
  paths: Record<string, Record<string, { operationId?: string; summary?: string; tags?: string[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components: { schemas: Components };
}

let model: Promise<ApiModel> | undefined;

export function loadApi(): Promise<ApiModel> {
  model ??= fetch('/webPDF/rest/openapi.json', { credentials: 'omit' })
    .then((response) => {
      if (!response.ok) throw new Error(`openapi.json: ${response.status}`);
      return response.json() as Promise<OpenApi>;
    })
    .then(modelOf)
    .catch((error: unknown) => {
      model = undefined;
      throw error;
    });
  return model;
}

function modelOf(document: OpenApi): ApiModel {
  const services = new Map<string, ServiceOperation[]>();
  for (const [path, methods] of Object.entries(document.paths)) {
    const post = methods.post;
    const schema = post?.requestBody?.content?.['application/json']?.schema;
    const bodyName = schema?.$ref?.replace('#/components/schemas/', '');
    if (!post || !schema || !bodyName || !/^Operation_\w+Operation$/.test(bodyName)) continue;
    const service = post.tags?.find((tag) => tag !== 'experimental') ?? path.split('/')[1]!;
    const operation: ServiceOperation = {
      operationId: post.operationId ?? path,
      service,
      summary: post.summary ?? '',
      path,
      needsDocument: path.includes('{documentId}'),
      body: schema,
      bodyName,
    };
    services.set(service, [...(services.get(service) ?? []), operation]);
  }
  // An operation on a stored document first, then the one that makes a new document.
  for (const operations of services.values()) operations.sort((a, b) => Number(b.needsDocument) - Number(a.needsDocument));
  return { components: document.components.schemas, services };
}
