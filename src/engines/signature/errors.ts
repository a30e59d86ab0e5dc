import { EngineError } from '../engine-error.js';

/**
 * Why a document cannot be signed: it is encrypted, already certified against further changes (or
 * certified when a second certification is asked for), its structure cannot be followed for an
 * incremental update, the appearance's page does not exist, its image cannot be read, or the key material is unusable.
 */
export type SignatureKind = 'encrypted' | 'certified' | 'unreadable' | 'pageOutOfRange' | 'key' | 'fieldName' | 'image';

export class SignatureEngineError extends EngineError<SignatureKind> {}
