import { EngineError } from '../engine-error.js';

/**
 * Why a document cannot be signed: it is encrypted, already certified against further changes (or
 * certified when a second certification is asked for), its structure cannot be followed for an
 * incremental update, the appearance's page does not exist, its image cannot be read, the key material is unusable, or the time-stamp authority gives no usable token;
 * for B-LT, a certificate of the chain is revoked, or its revocation status cannot be established.
 */
export type SignatureKind = 'encrypted' | 'certified' | 'unreadable' | 'pageOutOfRange' | 'key' | 'fieldName' | 'image' | 'timestamp' | 'revoked' | 'revocation';

export class SignatureEngineError extends EngineError<SignatureKind> {}
