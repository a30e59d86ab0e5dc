import { componentRef, route, type WebServiceModule } from '../webservice.js';
import { UrlConverterService } from './urlconverter-service.js';
import { URLCONVERTER_COMPONENTS, UrlConverterQuery, type UrlConverterRequest } from './urlconverter.schema.js';

const urlRoute = route<UrlConverterService>();

/** The urlconverter web service (webPDF §10.7): a web page becomes a new PDF document. */
export const urlconverterModule: WebServiceModule<UrlConverterService> = {
  name: 'urlconverter',
  engines: ['chromium', 'qpdf'],
  create: ({ documents, credentials, engines, config }) => new UrlConverterService({ documents, credentials }, engines.chromium, config.network, config.urlconverter),
  routes: [
    urlRoute({
      method: 'POST',
      path: '',
      operationId: 'executeUrlConverter',
      summary:
        'Convert a web page (http/https) to a new PDF document; answers 303 to its information. The page and everything it loads must pass the address policy (network.allowInternal / allowHosts).',
      querystring: UrlConverterQuery,
      body: componentRef<UrlConverterRequest>('Operation_UrlConverterOperation'),
      seeOther: 'Location: the DocumentFile of the new document',
      async run(service, session, { query, body }) {
        const record = await service.convert(session, body, { history: query.history ?? false });
        return { documentId: record.id };
      },
    }),
  ],
  components: URLCONVERTER_COMPONENTS,
};
