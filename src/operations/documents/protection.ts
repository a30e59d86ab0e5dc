import { NO_ERROR, QuireError, type ExceptionBody } from '../../core/errors.js';
import { PdfEngineError, type PdfInspector } from '../../engines/pdf/index.js';
import type { Session } from '../../sessions/session.js';
import { activeVersion, type DocumentRecord } from '../../storage/document-store.js';
import type { DocumentCredentials, KeyPairCredentials, RememberedCredentials } from './credentials.js';
import type { DocumentDescriber } from './describe.js';
import { asException } from './describe.js';
import type { DocumentService } from './document-service.js';
import { fromEngine } from '../engine-errors.js';

/** Credentials as a client sends them (webPDF `Operation_PdfPassword`, key material already read). */
export interface SuppliedCredentials {
  open?: string;
  permission?: string;
  keyPair?: KeyPairCredentials;
}

/** webPDF `Document_InfoForm`. */
export interface FormInfo {
  infoType: 'form';
  value: string;
  acroFormFields: Array<{ fullyQualifiedName: string; dataXPath: string }>;
  error: ExceptionBody;
}

/**
 * Protected PDFs: checks credentials a client supplies for a document and remembers the ones that
 * open it for the session's later operations; reads form fields with them.
 */
export class DocumentProtection {
  constructor(
    private readonly documents: DocumentService,
    private readonly describer: DocumentDescriber,
    private readonly pdf: PdfInspector,
    private readonly credentials: RememberedCredentials,
  ) {}

  /**
   * `PUT documents/{id}/security/password`: `error` 0 when the credentials open the document (they are
   * remembered), -5008 when they are wrong, -5009/-5055 when the document needs something else.
   */
  async supply(session: Session, documentId: string, supplied: SuppliedCredentials): Promise<{ record: DocumentRecord; result: ExceptionBody }> {
    const { record, file } = await this.documents.content(session, documentId);
    if (!activeVersion(record).fileTypeGroups.includes('pdf')) {
      throw new QuireError('PARAMETER', `The document "${documentId}" is not a PDF; passwords apply to PDFs only.`);
    }
    let result: ExceptionBody;
    try {
      const security = await this.describer.securityOf(record, file.path);
      result = await this.check(security.kind, file.path, supplied, (working) => this.credentials.set(session.id, documentId, record.activeVersion, working));
    } catch (error) {
      const mapped = fromEngine(error);
      if (!(mapped instanceof QuireError)) throw mapped;
      result = asException(mapped);
    }
    return { record, result };
  }

  async formInfo(session: Session, documentId: string): Promise<FormInfo> {
    const { record, file } = await this.documents.content(session, documentId);
    if (!activeVersion(record).fileTypeGroups.includes('pdf')) {
      return { infoType: 'form', value: '', acroFormFields: [], error: asException(new QuireError('INVALID_PDF', 'The document is not a PDF.')) };
    }
    const remembered = this.credentials.get(session.id, documentId, record.activeVersion);
    try {
      const form = await this.pdf.formFields(file.path, { password: remembered?.password });
      return {
        infoType: 'form',
        value: form.xfdf.toString('base64'),
        acroFormFields: form.fields.map((f) => ({ fullyQualifiedName: f.fullyQualifiedName, dataXPath: f.dataXPath })),
        error: NO_ERROR,
      };
    } catch (error) {
      if (!(error instanceof PdfEngineError)) throw error;
      return { infoType: 'form', value: '', acroFormFields: [], error: asException(fromEngine(error)) };
    }
  }

  private async check(kind: string, path: string, supplied: SuppliedCredentials, remember: (working: DocumentCredentials) => void): Promise<ExceptionBody> {
    if (kind === 'none') return NO_ERROR;
    if (kind === 'certificate') {
      if (!supplied.keyPair) return asException(fromEngine(new PdfEngineError('certificateRequired', 'certificate encryption')));
      const { certificate, privateKey, privateKeyPassword } = supplied.keyPair;
      if (!(await this.pdf.checkCertificate(path, certificate, privateKey, privateKeyPassword))) {
        return asException(new QuireError('PDF_PASSWORD_WRONG', 'The key pair does not open the PDF: the certificate is no recipient, or the private key does not match it.'));
      }
      remember({ keyPair: supplied.keyPair });
      return NO_ERROR;
    }
    const candidates = [supplied.open, supplied.permission].filter((p): p is string => typeof p === 'string' && p !== '');
    for (const password of candidates) {
      const check = await this.pdf.checkPassword(path, password);
      if (check === 'user' || check === 'owner' || check === 'notEncrypted') {
        remember({ password });
        return NO_ERROR;
      }
    }
    if (candidates.length > 0) return asException(new QuireError('PDF_PASSWORD_WRONG', 'The password does not open the PDF.'));
    // Nothing supplied: a document that opens without a password is fine, one that needs it is not.
    return kind === 'openPassword' ? asException(new QuireError('PDF_PASSWORD_REQUIRED', 'The PDF is password protected; supply its open password.')) : NO_ERROR;
  }
}
