import type { PdfStructureTool } from '../../contracts.js';
import { QpdfRunner } from '../qpdf.js';
import { encryptForRecipients, type CertificateProtection } from './certificate-encryption.js';
import { encryptWithPasswords, type PasswordProtection } from './password-encryption.js';

export { PdfSecurityError } from './errors.js';
export { readRecipientCertificate, type RecipientCertificate } from './envelopes.js';
export { protectionProblems, type EncryptionKey, type PasswordProtection, type ProtectionProblem } from './password-encryption.js';
export { permissionFlags, PERMISSION_FLAGS, type PermissionFlags } from './permissions.js';
export type { CertificateProtection, CertificateRecipient } from './certificate-encryption.js';

/**
 * Writing protected PDFs: with passwords (Standard security handler, by qpdf) or for certificate
 * holders (public-key handler, written here on top of qpdf's normalisation). Inputs are unencrypted.
 */
export class PdfSecurity {
  private readonly qpdf: PdfStructureTool;

  /** `qpdf`: the server's one configured runner (engines-wiring.ts); without it a runner of its own (tests). */
  constructor(options: { qpdf?: PdfStructureTool; qpdfPath?: string; timeoutMs: number }) {
    this.qpdf = options.qpdf ?? new QpdfRunner({ qpdfPath: options.qpdfPath ?? 'qpdf', timeoutMs: options.timeoutMs });
  }

  encryptWithPasswords(input: string, output: string, protection: PasswordProtection, options: { deadline?: number } = {}): Promise<void> {
    return encryptWithPasswords(this.qpdf, input, output, protection, options);
  }

  encryptForRecipients(input: string, output: string, protection: CertificateProtection, options: { deadline?: number } = {}): Promise<void> {
    return encryptForRecipients(this.qpdf, input, output, protection, options);
  }
}
