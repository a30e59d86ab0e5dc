import { QuireError } from '../../../core/errors.js';
import { PdfSecurity, PdfSecurityError, permissionFlags, protectionProblems, readRecipientCertificate, type CertificateRecipient, type EncryptionKey } from '../../../engines/pdf/security/index.js';
import { defaultsOf } from '../../option-schema.js';
import { decodeFileData } from '../file-data.js';
import type { ToolboxContext, ToolboxOperation, WorkFile } from '../operation.js';
import { securityOptions, type SecurityOptions } from './security.schema.js';

type Recipient = NonNullable<SecurityOptions['encryptCertificate']>['recipient'][number];

/**
 * Absent `encryptionKey`: AES-256 (the reference's default RC4_128 is broken; clients that want it
 * send it). The schema has no default for it: the OpenAPI document shows the reference's member.
 */
const DEFAULT_KEY: EncryptionKey = 'AES_256';
/** Without `encrypt.password`: its defaults (no open password, a random permission password). */
const NO_PASSWORD = defaultsOf(securityOptions.properties.encrypt.properties.password);

/**
 * `security` (reference §10.9.13). The toolbox hands every operation the decrypted document and,
 * because this chain runs `security`, does not put the original protection back: the result carries
 * exactly the protection this step writes, or none after `decrypt`.
 */
export const securityOperation: ToolboxOperation<SecurityOptions> = {
  name: 'security',
  needsPdf: true,
  async run(input, options, context, field) {
    const chosen = (['decrypt', 'encrypt', 'encryptCertificate'] as const).filter((key) => options[key] !== undefined && options[key] !== null);
    if (chosen.length !== 1) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}: give exactly one of decrypt, encrypt and encryptCertificate${chosen.length ? ` (got ${chosen.join(' and ')})` : ''}.`);
    }
    const security = new PdfSecurity({ qpdf: context.engines.qpdf, timeoutMs: context.engines.toolTimeoutMs });
    try {
      if (options.decrypt) return await decrypt(input, context);
      if (options.encrypt) return await encrypt(security, input, options.encrypt, context, `${field}.encrypt`);
      return await encryptCertificate(security, input, options.encryptCertificate!, context, `${field}.encryptCertificate`);
    } catch (error) {
      if (error instanceof PdfSecurityError && error.kind === 'invalidOption') {
        throw new QuireError('PARAMETER', `Invalid parameter ${field}: ${error.message}`, { cause: error });
      }
      if (error instanceof PdfSecurityError && error.kind === 'unsupported') {
        throw new QuireError('OPTION_UNSUPPORTED', `${field}: ${error.message}`, { cause: error });
      }
      throw error;
    }
  },
};

/**
 * The toolbox opened a protected document before the chain, so the input is normally unencrypted
 * already and stays as it is. Only a document an earlier step of this chain encrypted is still
 * protected here; it is opened with the call's password.
 */
async function decrypt(input: WorkFile, context: ToolboxContext): Promise<WorkFile> {
  const { rewriter } = context.engines;
  if (!(await rewriter.isEncrypted(input.path, context.call))) return input;
  const output = context.scratch('pdf');
  await rewriter.decrypt(input.path, output, { ...(context.password ? { password: context.password } : {}), deadline: context.deadline });
  return { path: output, type: input.type };
}

async function encrypt(security: PdfSecurity, input: WorkFile, options: NonNullable<SecurityOptions['encrypt']>, context: ToolboxContext, field: string): Promise<WorkFile> {
  const password = options.password ?? NO_PASSWORD;
  const protection = {
    userPassword: password.open,
    ownerPassword: password.permission,
    key: password.encryptionKey ?? DEFAULT_KEY,
    permissions: permissionFlags(options),
    encryptMetadata: options.contentEncryption === 'encryptEverything',
  };
  const problem = protectionProblems(protection)[0];
  if (problem?.kind === 'invalidOption') throw new QuireError('PARAMETER', `Invalid parameter ${field}.${problem.member}: ${problem.reason}.`);
  if (problem) throw new QuireError('OPTION_UNSUPPORTED', `${field}.${problem.member} cannot be honoured: ${problem.reason}.`);
  const output = context.scratch('pdf');
  await security.encryptWithPasswords(input.path, output, protection, context.call);
  return { path: output, type: input.type };
}

async function encryptCertificate(security: PdfSecurity, input: WorkFile, options: NonNullable<SecurityOptions['encryptCertificate']>, context: ToolboxContext, field: string): Promise<WorkFile> {
  const recipients: CertificateRecipient[] = options.recipient.map((recipient: Recipient, index) => {
    const member = `${field}.recipient[${index}].certificate`;
    const bytes = certificateBytes(recipient.certificate, member);
    try {
      return { certificate: readRecipientCertificate(bytes), permissions: permissionFlags(recipient) };
    } catch (error) {
      if (error instanceof PdfSecurityError) throw new QuireError('PARAMETER', `Invalid parameter ${member}: ${error.message}.`, { cause: error });
      throw error;
    }
  });
  const key = options.encryptionKey ?? DEFAULT_KEY;
  const metadata = options.contentEncryption === 'encryptEverything';
  if (key === 'RC4_40' && !metadata) {
    throw new QuireError('OPTION_UNSUPPORTED', `${field}.contentEncryption exposeMetadata cannot be honoured with RC4_40: 40-bit RC4 always encrypts the metadata; use a longer key.`);
  }
  const output = context.scratch('pdf');
  await security.encryptForRecipients(input.path, output, { key, encryptMetadata: metadata, recipients }, context.call);
  return { path: output, type: input.type };
}

/** The certificate's bytes: Base64 of PEM or DER, or (as PUT security/password accepts) PEM text itself. */
function certificateBytes(data: Recipient['certificate'], field: string): Buffer {
  if (data.source === 'value' && data.value.includes('-----BEGIN')) return Buffer.from(data.value, 'utf8');
  return decodeFileData(data, field);
}
