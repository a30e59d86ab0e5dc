import { EngineError } from '../engine-error.js';

/**
 * Why a key store cannot serve: its file is missing or unreadable, it is no key store of the
 * expected kind, its password is wrong, or it holds no private key with a matching certificate.
 */
export type KeyStoreKind = 'missing' | 'unreadable' | 'format' | 'password' | 'noKey';

export class KeyStoreError extends EngineError<KeyStoreKind> {}
