import { stat } from 'node:fs/promises';
import { PopplerError } from './errors.js';

/** A result may not exceed the session's document size limit (0 = none): `tooLarge` (-71) when it does. */
export async function requireResultWithin(path: string, maxBytes: number, what: string): Promise<void> {
  if (maxBytes <= 0) return;
  const { size } = await stat(path);
  if (size > maxBytes) {
    throw new PopplerError('tooLarge', `The ${what} would be ${size} bytes, more than the ${maxBytes} bytes a document of this session may have; select fewer pages or a smaller output.`);
  }
}
