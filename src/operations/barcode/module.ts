import { documentOperation, newDocumentOperation, type WebServiceModule } from '../webservice.js';
import { Barcode, BarcodeOperation, type BarcodeRequest } from './barcode.schema.js';
import { BarcodeService } from './barcode-service.js';

/** The barcode web service (webPDF §10.6): stamp codes onto a stored PDF or a new document (docs/barcode.md). */
export const barcodeModule: WebServiceModule<BarcodeService> = {
  name: 'barcode',
  engines: ['qpdf', 'poppler', 'barcode'],
  create: ({ documents, credentials, engines, config }) =>
    new BarcodeService(
      { documents, credentials },
      {
        rewriter: engines.converter.rewriter,
        poppler: engines.poppler,
        // The server's detector pool (engines-wiring.ts: metrics, health, closed on shutdown).
        detector: engines.barcode,
      },
      { timeoutMs: config.barcode.timeoutMs, toolTimeoutMs: config.documents.toolTimeoutMs },
    ),
  components: [Barcode, BarcodeOperation],
  routes: [
    newDocumentOperation<BarcodeService, BarcodeRequest>({
      operationId: 'newBarcode',
      summary: 'Create a new document (one A4 portrait page) with the codes of barcode.add on it; answers 303 to its information.',
    }),
    documentOperation<BarcodeService, BarcodeRequest>({
      operationId: 'executeBarcode',
      summary:
        'Stamp the codes of barcode.add as vector graphics onto the selected pages of a stored PDF; answers 303 to its information. Every value is checked first (-190 names the item and the rule); a failure leaves the document as it was.',
    }),
  ],
};
