import { randomBytes } from 'node:crypto';

/**
 * Opaque identifiers: 128 random bits as 32 lower-case hex characters, the shape webPDF uses for
 * document ids. Ids arriving in paths are checked against this shape before they are used anywhere,
 * so they can safely name files and map keys.
 */
const ID_PATTERN = /^[0-9a-f]{32}$/;

export function newId(): string {
  return randomBytes(16).toString('hex');
}

export function isId(value: string): boolean {
  return ID_PATTERN.test(value);
}
