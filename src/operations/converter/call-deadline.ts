import { QuireError } from '../../core/errors.js';

/**
 * The converter's deadline (`converter.timeout`) is the transaction's aborting deadline
 * (operations/transaction/deadline.ts): every step — waiting for a worker, rendering, page selection,
 * compression, down-sampling, the nested steps — lives within it, and when it passes the running tool
 * or pool job is killed and the call fails with this error.
 */
export { CallDeadline } from '../transaction/deadline.js';

export function conversionTimeout(timeoutMs: number): QuireError {
  const seconds = Math.round(timeoutMs / 100) / 10;
  return new QuireError(
    'PROCESSING_TIMEOUT',
    `The conversion did not finish within ${seconds} s (converter.timeout): it was stopped and the document is unchanged; the document is too complex or malformed for this server's limits.`,
  );
}
