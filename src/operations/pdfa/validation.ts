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
