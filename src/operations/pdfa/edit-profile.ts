import { open } from 'node:fs/promises';
import { QuireError } from '../../core/errors.js';
import type { PdfStructureTool } from '../../engines/contracts.js';
import { PdfEngineError } from '../../engines/pdf/errors.js';
import type { PdfaLevel } from '../../engines/pdfa-validator/profile/model.js';
import type { Transaction } from '../transaction/document-transaction.js';
import { failedRulesText } from './report.js';
import { validateFile } from './validation.js';

/**
 * `settings.pdfa.pdfaEditProfile` (reference §10.1, Operation_PdfaSettings): what an edit (the
 * toolbox) does to a document that claims PDF/A when the edit breaks that conformance.
 *
 * - `removePdfaMetadata` (the default): the result is stored without the claim (the PDF/A
 *   identification leaves its XMP), so it never says it is PDF/A when it is not;
 * - `generalEditRestrictions`: the edit is refused (-173), the document stays as it was;
 * - `noEditRestrictions`: the result is stored as it is, claim and all.
 *
 * "Breaks" is our validator's verdict on the result at the claimed level: `non-compliant`. An
 * inconclusive verdict (rules it does not check yet) does not count as broken: nothing it found
 * fails. Documents that claim no PDF/A level cost one scan of their bytes for "pdfaid".
 *
 * Whatever the profile, the result of an edit of a document that claims PDF/A is first passed
 * through qpdf with `--newline-before-endstream`: qpdf (rotate, delete, merge... and the XMP
 * edits) writes `...data endstream` without the end-of-line PDF/A requires before the keyword
 * (rule 6.1.7.1-2), so without it almost every toolbox edit broke the conformance by itself.
 */

export type PdfaEditProfile = 'generalEditRestrictions' | 'removePdfaMetadata' | 'noEditRestrictions';
const PROFILES: readonly PdfaEditProfile[] = ['generalEditRestrictions', 'removePdfaMetadata', 'noEditRestrictions'];

/** The profile of a call's `settings` (default removePdfaMetadata); a QuireError naming the field for an unknown value. */
export function pdfaEditProfile(settings: unknown): PdfaEditProfile {
  const pdfa = typeof settings === 'object' && settings !== null ? (settings as { pdfa?: unknown }).pdfa : undefined;
  const value = typeof pdfa === 'object' && pdfa !== null ? (pdfa as { pdfaEditProfile?: unknown }).pdfaEditProfile : undefined;
  if (value === undefined) return 'removePdfaMetadata';
  if (typeof value === 'string' && (PROFILES as readonly string[]).includes(value)) return value as PdfaEditProfile;
  throw new QuireError('PARAMETER', `Invalid parameter settings.pdfa.pdfaEditProfile: ${JSON.stringify(value)} is not one of ${PROFILES.join(', ')}.`);
}

/**
 * The edit's result as the profile wants it stored: `result` itself, or a copy without the PDF/A
 * claim; throws PDFA_EDIT_REFUSED under generalEditRestrictions. `input` is the document before the
 * edit (plain PDF), `edited` the edit's result; `qpdf` restores the EOLs before `endstream`.
 */
export async function applyPdfaEditProfile(profile: PdfaEditProfile, input: string, edited: string, tx: Transaction, qpdf: PdfStructureTool): Promise<string> {
  if (!(await mentionsPdfaId(input))) return edited;
  const result = await withEolBeforeEndstream(edited, tx, qpdf);
  if (profile === 'noEditRestrictions') return result;
  const { inspectPdfaInput } = await import('../../engines/pdf-edit/pdfa/fixups.js');
  const claimed = (await inspectPdfaInput(input).catch(() => undefined))?.claimed as PdfaLevel | undefined;
  if (claimed === undefined) return result;
  // An edit that dropped the claim itself (toolbox xmp) has nothing left to break.
  if (!(await mentionsPdfaId(result))) return result;
  const report = await validateFile(result, claimed, tx.deadline);
  if (report.verdict !== 'non-compliant') return result;
  if (profile === 'generalEditRestrictions') {
    throw new QuireError(
      'PDFA_EDIT_REFUSED',
      `The edit would break the document's PDF/A-${claimed} conformance (${report.counts.failed} rules fail: ${failedRulesText(report)}), and settings.pdfa.pdfaEditProfile "generalEditRestrictions" forbids that. The document is unchanged; "removePdfaMetadata" stores the edit without the PDF/A claim.`,
    );
  }
  const { removePdfaClaim } = await import('../../engines/pdf-edit/pdfa/claim.js');
  const unclaimed = tx.scratch.file('pdf');
  return (await removePdfaClaim(result, unclaimed)) ? unclaimed : result;
}

/**
 * `edited` as qpdf rewrites it with an EOL before every `endstream`. A result qpdf cannot open (the
 * chain's own `security` step set an open password) stays as it is: the validator judges it as it is.
 */
async function withEolBeforeEndstream(edited: string, tx: Transaction, qpdf: PdfStructureTool): Promise<string> {
  const output = tx.scratch.file('pdf');
  try {
    await qpdf.run([edited, '--newline-before-endstream', output], { deadline: tx.deadline.at });
    return output;
  } catch (error) {
    if (error instanceof PdfEngineError && (error.kind === 'passwordRequired' || error.kind === 'passwordWrong')) return edited;
    throw error;
  }
}

/** Whether the file's bytes name the PDF/A identification schema anywhere (a cheap scan; PDF/A keeps its XMP unfiltered). */
export async function mentionsPdfaId(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const needle = Buffer.from('pdfaid');
    const chunk = Buffer.alloc(1024 * 1024);
    let position = 0;
    let carry = Buffer.alloc(0);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) return false;
      const window = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      if (window.includes(needle)) return true;
      carry = window.subarray(Math.max(0, window.length - needle.length + 1));
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
}
