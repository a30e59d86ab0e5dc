import { findSrgbProfile } from '../../engines/ghostscript/pdfa.js';
import { documentOperation, type WebServiceModule } from '../webservice.js';
import { PdfaOperation, PdfaQuery, type PdfaRequest } from './pdfa.schema.js';
import { PdfaService } from './pdfa-service.js';

/** The pdfa web service (webPDF §10.2): convert a stored PDF to PDF/A, or validate it (docs/pdfa.md). */
export const pdfaModule: WebServiceModule<PdfaService> = {
  name: 'pdfa',
  engines: ['ghostscript', 'qpdf'],
  create: ({ documents, credentials, engines, config }) =>
    new PdfaService(
      { documents, credentials },
      { ghostscript: engines.converter.ghostscript, rewriter: engines.converter.rewriter, iccProfile: findSrgbProfile() },
      // The converter's time limit: a PDF/A conversion is a conversion (Ghostscript, fix-ups, validation).
      config.converter.timeoutMs,
    ),
  nestedStep: (pdfa) => pdfa.nestedStep(),
  components: [PdfaOperation],
  routes: [
    documentOperation<PdfaService, PdfaRequest, typeof PdfaQuery>({
      operationId: 'executePdfa',
      summary:
        'Convert a stored PDF to PDF/A (pdfa.convert: the result replaces the document when our validator does not find it failing its level) or validate it (pdfa.analyze: the report becomes a new document, JSON or with reportFormat=xml XML); answers 303. The verdict comes as a Warning header (299).',
      querystring: PdfaQuery,
      seeOther: 'Location: the DocumentFile of the converted document, or of the new report document',
      run: (pdfa, session, documentId, body, query) => pdfa.run(session, documentId, body, query.reportFormat ?? 'json'),
    }),
  ],
};
