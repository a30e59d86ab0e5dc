import { referenceTag } from '../../core/webservices.js';
import { findSrgbProfile } from '../../engines/ghostscript/pdfa.js';
import { componentRef, DocumentIdParams, route, type WebServiceDeps, type WebServiceModule } from '../webservice.js';
import { PdfaOperation, PdfaQuery, type PdfaRequest } from './pdfa.schema.js';
import { PdfaService } from './pdfa-service.js';

const pdfaRoute = route<PdfaService>();

function service({ documents, credentials, engines, config }: WebServiceDeps): PdfaService {
  return new PdfaService(
    { documents, credentials },
    { ghostscript: engines.converter.ghostscript, rewriter: engines.converter.rewriter, iccProfile: findSrgbProfile() },
    // The converter's time limit: a PDF/A conversion is a conversion (Ghostscript, fix-ups, validation).
    config.converter.timeoutMs,
  );
}

/** The pdfa web service (webPDF §10.2): convert a stored PDF to PDF/A, or validate it (docs/pdfa.md). */
export const pdfaModule: WebServiceModule<PdfaService> = {
  name: 'pdfa',
  prefix: '/pdfa',
  tag: referenceTag('pdfa'),
  engines: ['ghostscript', 'qpdf'],
  statistics: 'pdfa',
  create: service,
  nestedStep: (pdfa) => pdfa.nestedStep(),
  components: [PdfaOperation],
  routes: [
    pdfaRoute({
      method: 'POST',
      path: '/:documentId',
      operationId: 'executePdfa',
      summary:
        'Convert a stored PDF to PDF/A (pdfa.convert: the result replaces the document when our validator does not find it failing its level) or validate it (pdfa.analyze: the report becomes a new document, JSON or with reportFormat=xml XML); answers 303. The verdict comes as a Warning header (299).',
      params: DocumentIdParams,
      querystring: PdfaQuery,
      body: componentRef<PdfaRequest>('Operation_PdfaOperation'),
      seeOther: 'Location: the DocumentFile of the converted document, or of the new report document',
      async run(pdfa, session, { params, query, body }) {
        const { record, warnings } = await pdfa.run(session, params.documentId, body, query.reportFormat ?? 'json');
        return { documentId: record.id, warnings };
      },
    }),
  ],
};
