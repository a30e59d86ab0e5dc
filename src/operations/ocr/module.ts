import { documentOperation, type WebServiceModule } from '../webservice.js';
import { Ocr, OcrOperation, type OcrRequest } from './ocr.schema.js';
import { OcrService } from './ocr-service.js';

/** The ocr web service (webPDF §10.5): searchable PDF, text or hOCR of scans on the Tesseract pool (docs/ocr.md). */
export const ocrModule: WebServiceModule<OcrService> = {
  name: 'ocr',
  engines: ['tesseract', 'poppler', 'qpdf'],
  create: ({ documents, credentials, engines, config, steps }) =>
    new OcrService(
      { documents, credentials },
      { ...(engines.tesseract ? { tesseract: engines.tesseract } : {}), qpdf: engines.qpdf, poppler: engines.poppler, rewriter: engines.converter.rewriter },
      { timeoutMs: config.ocr.timeoutMs, pageTimeoutMs: config.engines.tesseract.timeoutMs, toolTimeoutMs: config.documents.toolTimeoutMs },
      steps,
    ),
  components: [Ocr, OcrOperation],
  routes: [
    documentOperation<OcrService, OcrRequest>({
      operationId: 'executeOcr',
      summary:
        'Recognise the text of a scanned PDF or an image (Tesseract): outputFormat pdf adds an invisible text layer over the original pages (pages with text are skipped unless forceEachPage), text and hocr replace the document with the recognised text; answers 303. Warnings come as Warning headers (299); a failure leaves the document as it was.',
    }),
  ],
};
