import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchema } from 'fastify';
import Type from 'typebox';
import { OPERATION_COMPONENTS } from '../../core/webservices.js';
import { componentRef } from '../../operations/webservice.js';
import { REGISTERED, type WebServices } from '../../operations/webservices.js';
import { seeDocumentInfo } from '../replies.js';
// The request components the modules reference by name (Operation_ConverterOperation,
// Operation_ToolboxOperation): registered for validation and the OpenAPI document.
import '../schemas/converter.js';
import '../schemas/toolbox.js';

export interface WebServiceRoutes {
  services: WebServices;
  restBase: string;
}

/**
 * Every route of every registered web-service module (operations/webservices.ts), registered the
 * same way: the module's schemas validate, its name is the routes' prefix and their OpenAPI tag, its
 * `run` does the work, and the answer is the webPDF 303 to the document's information, with a
 * `Warning: 299` header per finding the run reports.
 */
export const webServiceRoutes: FastifyPluginAsyncTypebox<WebServiceRoutes> = async (app, { services, restBase }) => {
  for (const module of REGISTERED) {
    const service = (services as Record<string, unknown>)[module.name];
    for (const route of module.routes) {
      const schema: FastifySchema & Record<string, unknown> = {
        tags: [module.name],
        operationId: route.operationId,
        summary: route.summary,
        ...(route.params ? { params: route.params } : {}),
        ...(route.querystring ? { querystring: route.querystring } : {}),
        ...(route.operationBody ? { body: componentRef(OPERATION_COMPONENTS[module.name]) } : route.body ? { body: route.body } : {}),
        response: { 303: route.seeOther === undefined ? Type.Null() : Type.Null({ description: route.seeOther }) },
      };
      app.route({
        method: route.method,
        url: `/${module.name}${route.path}`,
        schema,
        // The statistics and metrics count the call under the web service's name.
        config: { statistics: module.name },
        handler: async (request, reply) => {
          const answer = await route.run(service, request.session!, {
            params: request.params as never,
            query: request.query as never,
            body: request.body as never,
          });
          const warnings = answer.warnings ?? [];
          if (warnings.length > 0) {
            request.log.info({ documentId: answer.documentId, warnings }, `${module.name} report`);
            // RFC 7234 Warning fields (code 299, "miscellaneous persistent warning"), one per finding.
            reply.header(
              'warning',
              warnings.map((w) => `299 quire "${headerText(w)}"`),
            );
          }
          return seeDocumentInfo(reply, restBase, answer.documentId);
        },
      });
    }
  }
};

/** Header values are Latin-1 at most: non-ASCII characters are percent-encoded, quotes escaped. */
function headerText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (c) => encodeURIComponent(c)).replace(/["\\]/g, (c) => `\\${c}`);
}
