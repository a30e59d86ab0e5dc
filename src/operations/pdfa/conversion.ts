import { copyFile } from 'node:fs/promises';
import { QuireError } from '../../core/errors.js';
import type { Ghostscript } from '../../engines/ghostscript/ghostscript.js';
import type { PdfaExtras, PdfaInput, SourceDescription } from '../../engines/pdf-edit/pdfa/fixups.js';
import { firstLine, isPdfLibFault, PdfLibError } from '../../engines/pdf-edit/pdf-lib-error.js';
import { MissingUnicodeError } from '../../engines/pdf-edit/pdfa/errors.js';
import { AutoTagError } from '../../engines/pdf-edit/pdfa/tagging/errors.js';
import type { AutoTagOptions } from '../../engines/pdf-edit/pdfa/tagging/auto-tag.js';
import type { PdfaLevel } from '../../engines/pdfa-validator/profile/model.js';
import type { PdfaReport } from '../../engines/pdfa-validator/validate.js';
import type { CallDeadline } from '../transaction/deadline.js';
import type { Scratch } from '../transaction/scratch.js';
import { mentionsPdfaId } from './edit-profile.js';
import { validateFile, warmValidator } from './validation.js';
import type { PdfaConvertOptions } from './pdfa.schema.js';

/**
 * One PDF/A conversion, the steps shared by `pdfa/{id}` and the nested `converter.pdfa`:
 *
 *   b and u levels: Ghostscript's PDF/A output (pdfwrite -dPDFA=N: fonts embedded, colours to sRGB,
 *     transparency flattened for part 1) → our fix-ups (Info and XMP written from the original,
 *     pdfaid, the OutputIntent, no encryption, no JavaScript or forbidden actions, annotation flags)
 *   a levels: tagged input → our fix-ups alone (Ghostscript would drop the structure tree); untagged
 *     input with autoTagging → Ghostscript's output, then our fix-ups with the structure tree built
 *     from the page content (engines/pdf-edit/pdfa/tagging); untagged without it → refused (-171)
 *
 * and then, always, our validator. Its verdict decides: `non-compliant` → PdfaNotCompliant (nothing
 * is stored); `compliant` or `inconclusive` → the result, with the report (an inconclusive verdict
 * is never called compliant: the caller shows it).
 */

export interface PdfaEngines {
  ghostscript: Ghostscript;
  /** The sRGB ICC profile's real path; undefined: Ghostscript's profile is not installed (conversion refused). */
  iccProfile: string | undefined;
}

export interface ConversionInput {
  /** A plain (decrypted) PDF. */
  input: string;
  output: string;
  options: PdfaConvertOptions;
  scratch: Scratch;
  deadline: CallDeadline;
  /** Associated files and XMP properties the result carries (ZUGFeRD: zugferd.ts). */
  extras?: PdfaExtras;
}

export interface ConversionResult {
  report: PdfaReport;
  /** What the conversion did beyond Ghostscript's run (fix-ups), for the report. */
  notes: string[];
}

/** A conversion whose result failed its level: carries the report for `errorReport`. */
export class PdfaNotCompliant extends QuireError {
  constructor(
    readonly report: PdfaReport,
    message: string,
    readonly notes: string[],
  ) {
    super('PDFA_NOT_COMPLIANT', message);
  }
}

export function levelParts(level: PdfaLevel): { part: 1 | 2 | 3; conformance: 'A' | 'B' | 'U' } {
  return { part: Number(level[0]) as 1 | 2 | 3, conformance: level[1]!.toUpperCase() as 'A' | 'B' | 'U' };
}

/**
 * Options this server does not do are refused before any work, so nothing is half done: a linked
 * success report below part 3 or in a nested step.
 */
export function refuseUnsupported(options: PdfaConvertOptions, field: string, linkable = true): void {
  const part = (options.level ?? '3b')[0];
  if (options.successReport === 'linked' && (!linkable || part !== '3')) {
    throw new QuireError(
      'OPTION_UNSUPPORTED',
      !linkable
        ? `${field}.successReport "linked" is not supported here: convert first, then call pdfa/{documentId} with it.`
        : `${field}.successReport "linked" attaches the XML report as an associated file, which only PDF/A-3 allows (PDF/A-1 forbids embedded files, PDF/A-2 allows only PDF/A ones): use a level 3, or "zip".`,
    );
  }
}

export async function convertToPdfa(engines: PdfaEngines, job: ConversionInput): Promise<ConversionResult> {
  const level = (job.options.level ?? '3b') as PdfaLevel;
  const { part, conformance } = levelParts(level);
  const icc = engines.iccProfile;
  if (icc === undefined) throw new QuireError('ENGINE_UNAVAILABLE', 'PDF/A conversion needs the sRGB ICC profile Ghostscript ships (srgb.icc), which is not installed on this server.');
  // pdf-lib and the fix-ups load with the first conversion (see engines/pdf-edit/pdf-lib-io.ts).
  const { applyPdfaFixups, inspectPdfaInput, readIccProfile, withToUnicode } = await import('../../engines/pdf-edit/pdfa/fixups.js');
  const notes: string[] = [];
  // u levels: the input's fonts get their ToUnicode maps before Ghostscript, which carries them over
  // (it rewrites simple TrueType fonts as CID fonts without the encoding or cmap a map is derived
  // from); what it writes without one is mapped after it (applyPdfaFixups).
  let distilSource = job.input;
  if (conformance === 'U') {
    const prepared = job.scratch.file('pdf');
    const added = await withToUnicode(job.input, prepared).catch((error: unknown) => {
      if (error instanceof PdfLibError || isPdfLibFault(error)) return undefined; // Ghostscript may still read it
      throw error;
    });
    if (added !== undefined && added.length > 0) {
      distilSource = prepared;
      notes.push(`ToUnicode maps added to the input's fonts before Ghostscript: ${added.join(', ')}`);
    }
  }
  // While Ghostscript runs, a cold validator warms up on the input (validation.ts): the validation
  // of the result after it is the conversion's main cost besides Ghostscript. It stops when Ghostscript ends.
  const distil = (): Promise<string> => {
    const warmUp = new AbortController();
    const run = engines.ghostscript.pdfa(distilSource, distilled, {
      part,
      iccProfile: icc,
      prefixFile: job.scratch.file('ps'),
      jpegQuality: job.options.imageQuality,
      timeoutMs: job.deadline.remainingMs(),
    });
    void warmValidator(job.input, level, warmUp.signal, job.deadline.at);
    return run.finally(() => warmUp.abort());
  };
  const distilled = job.scratch.file('pdf');
  // Ghostscript runs while Node reads the input (claim, tags, description) — unless the input may
  // claim PDF/A already (its XMP names pdfaid), when it is read first: a file that claims the level and
  // passes is kept without any Ghostscript run.
  const mayClaim = conformance !== 'A' && (await mentionsPdfaId(job.input));
  job.deadline.check();
  let running = conformance === 'A' || mayClaim ? undefined : settled(distil());
  let input: Partial<PdfaInput>;
  try {
    input = await inspectPdfaInput(job.input);
  } catch (error) {
    // A file pdf-lib cannot read may still be one Ghostscript reads (it repairs as it goes): for b and
    // u levels the conversion goes on with Ghostscript's own description of it.
    if (conformance === 'A' || !(error instanceof PdfLibError || isPdfLibFault(error))) {
      if (running) await running; // the scratch directory goes with the failure: Ghostscript must be done with it
      throw error;
    }
    input = {};
    notes.push(`the input could not be read for its description (${firstLine(error)}): Ghostscript's is used`);
  }
  // Fix-ups first, as OCRmyPDF does: input that claims the level already (LibreOffice's own PDF/A
  // export, a file converted before) is validated as it is and kept when nothing fails: lossless and cheap.
  if (input.claimed === level && job.extras === undefined) {
    const report = await validateFile(job.input, level, job.deadline);
    if (report.verdict !== 'non-compliant') {
      if (running) await running; // never leave a Ghostscript run behind the transaction's scratch
      await copyFile(job.input, job.output);
      return { report, notes: [`the input claims PDF/A-${level} already and our validator found no failure: kept as it is`] };
    }
    notes.push(`the input claims PDF/A-${level} but fails ${report.counts.failed} rules: converted again`);
  } else if (input.claimed !== undefined && conformance !== 'A') {
    // Input that is PDF/A of another level (a 2b file to be 3b, a 1b file to be 2b) is usually one
    // only its identification keeps from the new level: our fix-ups alone, lossless, and Ghostscript
    // only when the result fails.
    const fixed = await fixupsOnly(job, level, icc, input.description);
    if (fixed && fixed.report.verdict !== 'non-compliant') {
      if (running) await running;
      return { report: fixed.report, notes: [`the input claims PDF/A-${input.claimed}: our fix-ups alone made it PDF/A-${level} (no Ghostscript run)`, ...fixed.notes] };
    }
    notes.push(
      fixed
        ? `the input claims PDF/A-${input.claimed}; our fix-ups alone leave ${fixed.report.counts.failed} rules of PDF/A-${level} failing: converted with Ghostscript`
        : `the input claims PDF/A-${input.claimed}; a font of it has no Unicode mapping: converted with Ghostscript`,
    );
  }
  let fixupInput: string;
  let tagging: AutoTagOptions | undefined;
  if (conformance === 'A' && input.tagged) {
    fixupInput = job.input;
    notes.push('tagged input: fix-ups only, the structure tree is kept (no Ghostscript run)');
  } else {
    if (conformance === 'A') {
      if (!job.options.autoTagging) {
        throw new QuireError(
          'PDFA_LEVEL_UNSUPPORTED',
          `PDF/A-${level} needs a tagged PDF (a structure tree and MarkInfo): this document is not tagged. Set autoTagging: true to build the structure from the page content, convert to PDF/A-${part}b${part === 1 ? '' : ` or ${part}u`}, or convert the Office original with converter.pdfa (tagged export).`,
        );
      }
      // Untagged input has no structure Ghostscript could drop: its PDF/A output, then our tags on it.
      tagging = { ...(input.lang !== undefined ? { lang: input.lang } : {}), checkpoint: () => job.deadline.check() };
    }
    job.deadline.check();
    running ??= settled(distil());
    const warnings = unwrap(await running);
    fixupInput = distilled;
    notes.push(`Ghostscript PDF/A-${part} output${warnings.trim() ? `; it reported: ${firstLines(warnings)}` : ''}`);
  }
  job.deadline.check();
  // Ghostscript's output gets the fix-ups as an incremental update (its syntax is PDF/A's already);
  // tagged input is rewritten whole.
  const fixed = await applyPdfaFixups(fixupInput, job.output, {
    part,
    conformance,
    iccProfile: await readIccProfile(icc),
    incremental: fixupInput === distilled,
    ...(tagging ? { autoTag: tagging } : {}),
    ...(job.extras ? { extras: job.extras } : {}),
    ...(input.description ? { source: input.description } : {}),
  }).catch((error: unknown) => {
    if (error instanceof AutoTagError) {
      throw new QuireError(
        'PDFA_LEVEL_UNSUPPORTED',
        `PDF/A-${level} auto-tagging cannot structure this document: ${error.message}. Nothing was changed; convert to PDF/A-${part}b, or tag the document with its authoring tool.`,
      );
    }
    if (!(error instanceof MissingUnicodeError)) throw error;
    throw new QuireError(
      'PDFA_LEVEL_UNSUPPORTED',
      `PDF/A-${level} needs a Unicode mapping for every font, and ${error.message} (no ToUnicode map, glyph names outside the Adobe Glyph List, no usable cmap in the font program). Nothing is guessed: convert to PDF/A-${part}b, which does not promise extractable text.`,
    );
  });
  notes.push(...fixupNotes(fixed.changes));
  job.deadline.check();
  const report = await validateFile(job.output, level, job.deadline);
  return { report, notes };
}

/** Our fix-ups on the input itself (no Ghostscript), validated: for input that is PDF/A of another level. */
async function fixupsOnly(job: ConversionInput, level: PdfaLevel, icc: string, description: SourceDescription | undefined): Promise<ConversionResult | undefined> {
  const { applyPdfaFixups, readIccProfile } = await import('../../engines/pdf-edit/pdfa/fixups.js');
  const { part, conformance } = levelParts(level);
  job.deadline.check();
  let fixed: Awaited<ReturnType<typeof applyPdfaFixups>>;
  try {
    fixed = await applyPdfaFixups(job.input, job.output, {
      part,
      conformance,
      iccProfile: await readIccProfile(icc),
      ...(description ? { source: description } : {}),
      ...(job.extras ? { extras: job.extras } : {}),
    });
  } catch (error) {
    if (error instanceof MissingUnicodeError) return undefined; // Ghostscript's fonts may do: the conversion goes on
    throw error;
  }
  job.deadline.check();
  return { report: await validateFile(job.output, level, job.deadline), notes: fixupNotes(fixed.changes) };
}

function fixupNotes(changes: string[]): string[] {
  return [...changes.map((c) => `fix-up: ${c}`), 'fix-up: document information and XMP metadata written from the original, with pdfaid part and conformance'];
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A promise that never rejects (awaited later, after other work that may throw first). */
function settled<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

function unwrap<T>(result: Settled<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

/** Ghostscript's diagnostics, deduplicated and cut for a note. */
function firstLines(text: string): string {
  const lines = [
    ...new Set(
      text
        .split('\n')
        .map((l) => l.replace(/^GPL Ghostscript [\d.]+:\s*/, '').trim())
        .filter((l) => l !== ''),
    ),
  ];
  const joined = lines.slice(0, 5).join(' / ');
  return joined.length > 500 ? `${joined.slice(0, 500)}…` : joined;
}
