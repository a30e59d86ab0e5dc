import { documentOperation, type WebServiceModule } from '../webservice.js';
import { SIGNATURE_COMPONENTS, type SignatureRequest } from './signature.schema.js';
import { SignatureService } from './signature-service.js';

/** The signature web service (webPDF §10.3): PAdES signatures as incremental updates (docs/signature.md). */
export const signatureModule: WebServiceModule<SignatureService> = {
  name: 'signature',
  engines: ['qpdf'],
  create: ({ documents, credentials, engines, config }) => SignatureService.create({ documents, credentials }, { qpdf: engines.qpdf }, config),
  nestedStep: (signature) => signature.step(),
  components: SIGNATURE_COMPONENTS,
  routes: [
    documentOperation<SignatureService, SignatureRequest>({
      operationId: 'executeSignature',
      summary:
        'Sign a stored PDF (signature.add: a PAdES signature, ETSI.CAdES.detached with SHA-256, appended as an incremental update so earlier signatures stay valid; certificationLevel sets DocMDP); answers 303 to its information.',
      seeOther: 'Location: the DocumentFile of the signed document',
    }),
  ],
};
