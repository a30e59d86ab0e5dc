import { randomBytes } from 'node:crypto';
import type { PdfStructureTool } from '../../contracts.js';
import { PdfSecurityError } from './errors.js';
import { printLevel, type PermissionFlags } from './permissions.js';

/** webPDF's `Operation_PdfEncryptionKey`. */
export type EncryptionKey = 'RC4_40' | 'RC4_128' | 'AES_128' | 'AES_256';

export interface PasswordProtection {
  /** The open (user) password; "" opens the document without asking. */
  userPassword: string;
  /** The permission (owner) password; "" means a random one nobody knows, so the restrictions hold. */
  ownerPassword: string;
  key: EncryptionKey;
  permissions: PermissionFlags;
  /** false: the XMP metadata stream stays readable without the password (/EncryptMetadata false). */
  encryptMetadata: boolean;
}

/** A rejected password or combination, with the member to name in the message. */
export interface ProtectionProblem {
  member: string;
  kind: 'invalidOption' | 'unsupported';
  reason: string;
}

/**
 * Writes `input` (unencrypted) encrypted with the Standard security handler: qpdf's `--encrypt`,
 * given as a qpdf job file (JSON). The job file holds the passwords, so it is written with mode 0600
 * into the caller's scratch directory and removed at once; passwords never appear on a command line
 * (any local user can read /proc/<pid>/cmdline). JSON also carries passwords that look like options
 * ("--print=full"), which qpdf's positional `--encrypt user owner bits` would misread.
 */
export async function encryptWithPasswords(qpdf: PdfStructureTool, input: string, output: string, protection: PasswordProtection, options: { deadline?: number } = {}): Promise<void> {
  const problem = protectionProblems(protection)[0];
  if (problem) throw new PdfSecurityError(problem.kind, `${problem.member}: ${problem.reason}`);
  const job = {
    inputFile: input,
    outputFile: output,
    ...(protection.key.startsWith('RC4') ? { allowWeakCrypto: '' } : {}),
    encrypt: {
      userPassword: protection.userPassword,
      ownerPassword: protection.ownerPassword === '' ? randomBytes(24).toString('base64url') : protection.ownerPassword,
      ...restrictions(protection),
    },
  };
  const jobFile = `${output}.job.json`;
  await qpdf.runWithSecretFile(jobFile, JSON.stringify(job), [`--job-json-file=${jobFile}`], { deadline: options.deadline });
}

/**
 * What cannot be written as asked. Passwords must fit the handler: no line breaks (a later call
 * could not hand such a password to qpdf), and for the 40/128-bit handlers (ISO 32000-1 §7.6.3.3)
 * only characters of PDFDocEncoding — qpdf would otherwise store UTF-8 bytes that readers do not
 * reproduce. The 40-bit handler (revision 2) has only four permission bits: flags it cannot express
 * apart are refused rather than widened or narrowed behind the client's back.
 */
export function protectionProblems(protection: PasswordProtection): ProtectionProblem[] {
  const problems: ProtectionProblem[] = [];
  const legacy = protection.key !== 'AES_256';
  for (const [member, password] of [
    ['open', protection.userPassword],
    ['permission', protection.ownerPassword],
  ] as const) {
    if (/[\r\n]/.test(password)) {
      problems.push({ member: `password.${member}`, kind: 'invalidOption', reason: 'a PDF password cannot contain a line break' });
    } else if (legacy && !isPdfDocEncodable(password)) {
      problems.push({
        member: `password.${member}`,
        kind: 'invalidOption',
        reason: `${protection.key} passwords are limited to the characters of PDFDocEncoding (Latin-1 and a few more); use encryptionKey AES_256 for this password`,
      });
    }
  }
  if (!protection.encryptMetadata && protection.key === 'RC4_40') {
    problems.push({ member: 'contentEncryption', kind: 'unsupported', reason: 'exposeMetadata needs a 128- or 256-bit key; 40-bit RC4 always encrypts the metadata' });
  }
  if (protection.key === 'RC4_40') {
    const flags = protection.permissions;
    const pairs: [keyof PermissionFlags, keyof PermissionFlags][] = [
      ['canFillInForm', 'canModifyAnnotations'],
      ['canAssemble', 'canModify'],
      ['canExtractForAccessibility', 'canExtractContent'],
    ];
    for (const [flag, carrier] of pairs) {
      if (flags[flag] !== flags[carrier]) {
        problems.push({ member: flag, kind: 'unsupported', reason: `40-bit RC4 (revision 2) has no bit of its own for it; it follows ${carrier}. Give both the same value or use a longer key` });
      }
    }
    if (printLevel(flags) === 'low') {
      problems.push({
        member: 'canPrintHighRes',
        kind: 'unsupported',
        reason: '40-bit RC4 (revision 2) cannot limit printing to low resolution; set canPrintHighRes like canPrint or use a longer key',
      });
    }
  }
  return problems;
}

/** qpdf's job-file restriction members for the key length. */
function restrictions(protection: PasswordProtection): Record<string, Record<string, string>> {
  const flags = protection.permissions;
  const yn = (allowed: boolean) => (allowed ? 'y' : 'n');
  if (protection.key === 'RC4_40') {
    // qpdf 11.3's job-file schema validates 40-bit print and modify against the 128-bit choices
    // (none/low/full, none/.../all) while the 40-bit handler allows only the value "y": they can be
    // restricted ("none") but not granted explicitly. Allowed is qpdf's default, so they are left out.
    return {
      '40bit': {
        ...(printLevel(flags) === 'none' ? { print: 'none' } : {}),
        ...(flags.canModify ? {} : { modify: 'none' }),
        extract: yn(flags.canExtractContent),
        annotate: yn(flags.canModifyAnnotations),
      },
    };
  }
  const common: Record<string, string> = {
    print: printLevel(flags),
    modifyOther: yn(flags.canModify),
    extract: yn(flags.canExtractContent),
    annotate: yn(flags.canModifyAnnotations),
    form: yn(flags.canFillInForm),
    assemble: yn(flags.canAssemble),
    ...(protection.encryptMetadata ? {} : { cleartextMetadata: '' }),
  };
  // Revisions 4 and 6 always allow extraction for accessibility (ISO 32000-2 deprecates bit 10 and
  // tells readers to ignore it); qpdf sets the bit and warns when asked otherwise. Revision 3 (RC4
  // 128-bit with encrypted metadata) still honours it.
  const revision3 = protection.key === 'RC4_128' && protection.encryptMetadata;
  if (revision3) common.accessibility = yn(flags.canExtractForAccessibility);
  if (protection.key === 'AES_256') return { '256bit': common };
  return { '128bit': { ...common, useAes: yn(protection.key === 'AES_128') } };
}

/** Characters PDFDocEncoding has besides printable ASCII and Latin-1 (ISO 32000-1 Annex D). */
const PDF_DOC_EXTRA = new Set([...'˘ˇˆ˙˝˛˚˜•†‡…—–ƒ⁄‹›−‰„“”‘’‚™ﬁﬂŁŒŠŸŽıłœšž€']);

export function isPdfDocEncodable(text: string): boolean {
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code === 0x09 || (code >= 0x20 && code <= 0x7e) || (code >= 0xa1 && code <= 0xff && code !== 0xad)) continue;
    if (PDF_DOC_EXTRA.has(char)) continue;
    return false;
  }
  return true;
}
