import { QuireError } from '../../core/errors.js';
import { CosError } from '../../engines/pdfa-validator/cos/errors.js';
import type { PdfaLevel } from '../../engines/pdfa-validator/profile/model.js';
import { PdfaValidateError } from '../../engines/pdfa-validator/validate-errors.js';
import type { PdfaReport } from '../../engines/pdfa-validator/validate.js';
import type { CallDeadline } from '../transaction/deadline.js';

/**
 * Our PDF/A validator on a file, in-process (it yields to the event loop every few milliseconds and is
 * bounded by its COS limits and the call's deadline: past the deadline it stops with what it has,
 * which is never `compliant`). Its failures as the client sees them: a file beyond the validator's
 * limits is refused (-162), a cancelled call ends as the call ended.
 */
export async function validateFile(file: string, level: PdfaLevel, deadline: CallDeadline): Promise<PdfaReport> {
  validationsStarted++;
  try {
    // The validator (its model and the profiles' rules, ~10 MB) is loaded by the first call that needs it, not at start.
    const { validatePdfa } = await import('../../engines/pdfa-validator/validate.js');
    return await validatePdfa(file, level, { deadline: deadline.at, signal: deadline.signal });
  } catch (error) {
    if (error instanceof PdfaValidateError) {
      deadline.check();
      throw new QuireError('CALL_CANCELLED', 'The validation was cancelled.', { cause: error });
    }
    if (error instanceof CosError && error.kind === 'fileTooLarge')
      throw new QuireError('PDFA_VALIDATION_REFUSED', `The PDF/A validator cannot check this document: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * Validations this process has started (warm-ups included). V8 optimises the validator's model walk
 * over its first validations: ~400 ms CPU for a 100-page conversion result on the first, ~80 ms from
 * the tenth on (BENCHMARKS.md). Past this count the validator is warm and warming it is a waste; a
 * warm-up stops half-way (at Ghostscript's end), so the count allows two per conversion's validation.
 */
let validationsStarted = 0;
const COLD_VALIDATIONS = 20;
/** A warm-up gives the event loop a turn this often, so Ghostscript's end stops it at once. */
const WARM_UP_SLICE_MS = 2;
/** Larger inputs are not read for a warm-up (its memory would come on top of Ghostscript's); a few MB teach V8 as much. */
const WARM_UP_MAX_BYTES = 16 * 1024 * 1024;

/**
 * While the validator is cold, runs it on `file` (the conversion's input) in the background until
 * `stop` fires (Ghostscript's end), and throws its report away: only the machine code V8 makes of it
 * is wanted. It uses the core Node leaves idle while Ghostscript works, so the validation of the
 * result after Ghostscript runs warm already; once the process has validated a few documents it
 * does nothing. Never fails: a warm-up that breaks costs only itself.
 */
export function warmValidator(file: string, level: PdfaLevel, stop: AbortSignal, deadline: number): Promise<void> {
  if (validationsStarted >= COLD_VALIDATIONS || stop.aborted) return Promise.resolve();
  validationsStarted++;
  return import('../../engines/pdfa-validator/validate.js')
    .then(({ validatePdfa }) => validatePdfa(file, level, { signal: stop, deadline, sliceMs: WARM_UP_SLICE_MS, limits: { maxFileBytes: WARM_UP_MAX_BYTES } }))
    .then(
      () => undefined,
      () => undefined,
    );
}
