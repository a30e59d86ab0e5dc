import { referenceTag } from '../../core/webservices.js';
import { DocumentIdParams, componentRef, route, type WebServiceDeps, type WebServiceModule } from '../webservice.js';
import { SIGNATURE_COMPONENTS, type SignatureRequest } from './signature.schema.js';
import { SignatureService } from './signature-service.js';

const signatureRoute = route<SignatureService>();

function service({ documents, credentials, engines, config }: WebServiceDeps): SignatureService {
  return SignatureService.create({ documents, credentials }, { qpdf: engines.qpdf }, config);
}

/** The signature web service (webPDF §10.3): PAdES signatures as incremental updates (docs/signature.md). */
export const signatureModule: WebServiceModule<SignatureService> = {
  name: 'signature',
  prefix: '/signature',
  tag: referenceTag('signature'),
  engines: ['qpdf'],
  statistics: 'signature',
  create: service,
  nestedStep: (signature) => signature.step(),
  components: SIGNATURE_COMPONENTS,
  routes: [
    signatureRoute({
      method: 'POST',
      path: '/:documentId',
      operationId: 'executeSignature',
      summary:
        'Sign a stored PDF (signature.add: a PAdES signature, ETSI.CAdES.detached with SHA-256, appended as an incremental update so earlier signatures stay valid; certificationLevel sets DocMDP); answers 303 to its information.',
      params: DocumentIdParams,
      body: componentRef<SignatureRequest>('Operation_SignatureOperation'),
      seeOther: 'Location: the DocumentFile of the signed document',
      async run(signature, session, { params, body }) {
        const record = await signature.run(session, params.documentId, body);
        return { documentId: record.id };
      },
    }),
  ],
};
