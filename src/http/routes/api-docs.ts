import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { sendStatic } from '../static-file.js';

/** The files of swagger-ui-dist the page loads. */
const FILES = ['index.css', 'swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-16x16.png', 'favicon-32x32.png'] as const;
const tags = ['portal'];

/**
 * Swagger UI for developers at `{contextPath}/api-docs/`, on this server's OpenAPI document, from
 * swagger-ui-dist as installed (no CDN: servers have no internet). The page and `swagger-initializer.js`
 * are ours: the package's initializer points at the petstore, and the portal's Content-Security-Policy
 * allows no inline script — the start script is a file of its own. The layout is Swagger UI's base
 * layout, without the standalone top bar, whose logo is an SVG with an inline <style> the policy
 * refuses (and a URL field this page does not need).
 */
export const apiDocsRoutes: FastifyPluginAsync<{ contextPath: string; restBase: string }> = async (app, { contextPath, restBase }) => {
  const root = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const base = `${contextPath}/api-docs`;
  const initializer = swaggerInitializer(`${restBase}/openapi.json`);
  const config = { auth: 'none' as const };

  app.get(base, { config, schema: { tags, operationId: 'apiDocs', summary: 'Swagger UI for the OpenAPI document (with a trailing slash; without: a redirect)' } }, async (request, reply) => {
    // The router's ignoreTrailingSlash brings `{base}/` here too: that one is the page.
    if (request.url.split('?')[0]!.endsWith('/')) return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(PAGE);
    return reply.redirect(`${base}/`, 301);
  });

  app.get(`${base}/swagger-initializer.js`, { config, schema: { tags, operationId: 'apiDocsInitializer', summary: 'Swagger UI: its start script' } }, async (_request, reply) =>
    reply.header('cache-control', 'no-cache').type('text/javascript; charset=utf-8').send(initializer),
  );

  for (const file of FILES) {
    const operationId = `apiDocs_${file.replace(/[^A-Za-z0-9]+/g, '_')}`;
    app.get(`${base}/${file}`, { config, schema: { tags, operationId, summary: `Swagger UI: ${file}` } }, async (request, reply) => sendStatic(request, reply, root, file, 'no-cache'));
  }
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Quire REST interface: API explorer</title>
    <link rel="stylesheet" href="./swagger-ui.css">
    <link rel="stylesheet" href="./index.css">
    <link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="./favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="./swagger-ui-bundle.js"></script>
    <script src="./swagger-initializer.js"></script>
  </body>
</html>
`;

function swaggerInitializer(specUrl: string): string {
  return `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(specUrl)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;
}
