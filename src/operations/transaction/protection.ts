import { QuireError } from '../../core/errors.js';
import type { PdfRewriter } from '../../engines/pdf/rewriter.js';

/** What the protection steps need of the PDF structure tool (qpdf). */
export type ProtectionTool = Pick<PdfRewriter, 'isEncrypted' | 'decrypt' | 'repaired' | 'copyEncryption'>;

/** A protected PDF the transaction opened: the original and the password whose encryption the result gets back. */
export interface OpenedProtection {
  original: string;
  password: string;
}

export interface PlainPdf {
  /** The decrypted and repaired PDF the steps work on. */
  file: string;
  /** Set when the input was encrypted: `restoreProtection` gives the result the same encryption. */
  protection?: OpenedProtection;
}

/**
 * A PDF input as the steps need it: decrypted (with the call's or the remembered password) and
 * repaired (PdfRewriter.repaired: a page tree root that lies about its /Count gets the real count,
 * other damage qpdf recovers from is written out recovered; a tree qpdf cannot walk is refused).
 *
 * `emptyPasswordOpens`: the converter tries an empty password when it has none (it opens a PDF whose
 * user password is empty, owner-password-only protection); the toolbox refuses such a call with
 * PDF_PASSWORD_REQUIRED (-5) before trying. Both are today's behaviour, kept as they are.
 */
export async function openPlainPdf(
  tool: ProtectionTool,
  input: string,
  options: { password: string | undefined; emptyPasswordOpens: boolean; scratch: (name: string) => string; deadline: number },
): Promise<PlainPdf> {
  const { password, deadline } = options;
  let plain = input;
  let protection: OpenedProtection | undefined;
  if (await tool.isEncrypted(input, { deadline })) {
    if (!password && !options.emptyPasswordOpens) {
      throw new QuireError('PDF_PASSWORD_REQUIRED', "The PDF is password protected; supply its password (the call's password member or PUT documents/{id}/security/password).");
    }
    plain = options.scratch('decrypted');
    await tool.decrypt(input, plain, { password: password ?? '', deadline });
    protection = { original: input, password: password ?? '' };
  }
  const file = await tool.repaired(plain, options.scratch('repaired'), { deadline });
  return { file, ...(protection ? { protection } : {}) };
}

/** The finished PDF `input` with the encryption (passwords, permissions) of the protected original, as `output`. */
export async function restoreProtection(tool: ProtectionTool, input: string, protection: OpenedProtection, output: string, deadline: number): Promise<string> {
  await tool.copyEncryption(input, protection.original, output, { password: protection.password, deadline });
  return output;
}
