import type { FastifyPluginAsync } from 'fastify';

/** Serves the generated OpenAPI document at {restBase}/openapi.json and {restBase}/openapi.yaml, without authentication. */
export const openapiRoutes: FastifyPluginAsync = async (app) => {
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { summary: 'This OpenAPI document (JSON)', operationId: 'openapiJson' } }, async (_request, reply) =>
    reply.type('application/json').send(app.swagger()),
  );
  app.get('/openapi.yaml', { config: { auth: 'none' }, schema: { summary: 'This OpenAPI document (YAML)', operationId: 'openapiYaml' } }, async (_request, reply) =>
    reply.type('application/yaml').send(app.swagger({ yaml: true })),
  );
};
