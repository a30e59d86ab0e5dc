import { referenceTag } from '../../core/webservices.js';
import { BarcodeDetector } from '../../engines/barcode/index.js';
import { componentRef, DocumentIdParams, route, type WebServiceModule } from '../webservice.js';
import { Barcode, BarcodeNewQuery, BarcodeOperation, type BarcodeRequest } from './barcode.schema.js';
import { BarcodeService } from './barcode-service.js';

const barcodeRoute = route<BarcodeService>();

/** The barcode web service (webPDF §10.6): stamp codes onto a stored PDF or a new document (docs/barcode.md). */
export const barcodeModule: WebServiceModule<BarcodeService> = {
  name: 'barcode',
  prefix: '/barcode',
  tag: referenceTag('barcode'),
  engines: ['qpdf', 'poppler'],
  statistics: 'barcode',
  create: ({ documents, credentials, engines, config }) =>
    new BarcodeService(
      { documents, credentials },
      {
        rewriter: engines.converter.rewriter,
        poppler: engines.poppler,
        detector: new BarcodeDetector({
          workers: config.barcode.detectWorkers,
          queueLimit: config.barcode.detectQueue,
          jobTimeoutMs: config.barcode.detectTimeoutMs,
          memoryMb: config.barcode.detectMemoryMb,
        }),
      },
      { timeoutMs: config.barcode.timeoutMs, toolTimeoutMs: config.documents.toolTimeoutMs },
    ),
  components: [Barcode, BarcodeOperation],
  routes: [
    barcodeRoute({
      method: 'POST',
      path: '/new',
      operationId: 'newBarcode',
      summary: 'Create a new document (one A4 portrait page) with the codes of barcode.add on it; answers 303 to its information.',
      querystring: BarcodeNewQuery,
      body: componentRef<BarcodeRequest>('Operation_BarcodeOperation'),
      seeOther: 'Location: the DocumentFile of the new document',
      async run(service, session, { query, body }) {
        const record = await service.runNew(session, body, { name: query.name ?? 'empty.pdf', history: query.history ?? false });
        return { documentId: record.id };
      },
    }),
    barcodeRoute({
      method: 'POST',
      path: '/:documentId',
      operationId: 'executeBarcode',
      summary:
        'Stamp the codes of barcode.add as vector graphics onto the selected pages of a stored PDF; answers 303 to its information. Every value is checked first (-190 names the item and the rule); a failure leaves the document as it was.',
      params: DocumentIdParams,
      body: componentRef<BarcodeRequest>('Operation_BarcodeOperation'),
      seeOther: 'Location: the DocumentFile of the changed document',
      async run(service, session, { params, body }) {
        const record = await service.run(session, params.documentId, body);
        return { documentId: record.id };
      },
    }),
  ],
};
