import { generateKeyPair as generateKeyPairCallback, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { QuireError } from '../core/errors.js';
import { writeFileAtomic } from '../storage/atomic.js';
import { loadJose, loadedJose } from './jose.js';

const generateKeyPair = promisify(generateKeyPairCallback);

/** The only algorithm Quire signs with and accepts for its own tokens. */
export const LOCAL_TOKEN_ALGORITHM = 'EdDSA';

export type TokenUse = 'access' | 'refresh';

export interface LocalTokenClaims {
  sessionId: string;
  tokenId: string;
  use: TokenUse;
  /** Expiry in epoch seconds. */
  expiresAt: number;
}

/**
 * Issues and verifies the session tokens of the local provider: JWTs signed with an Ed25519 key that
 * is generated on first start and kept in `<dataDir>/keys/` (mode 0600), so tokens stay valid across
 * restarts. Verification pins the algorithm, issuer, audience and expiry; `sub` is the session id,
 * `jti` lets the session accept only its newest tokens.
 */
export class TokenService {
  private constructor(
    private readonly privateKey: KeyObject,
    private readonly publicKey: KeyObject,
    private readonly issuer: string,
  ) {}

  static async open(dataDir: string, issuer: string): Promise<TokenService> {
    const file = path.join(dataDir, 'keys', 'token-signing-key.pem');
    let pem: string;
    try {
      pem = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const { privateKey } = await generateKeyPair('ed25519');
      pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      await writeFileAtomic(file, pem, 0o600);
    }
    const privateKey = createPrivateKey(pem);
    if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${file}: not an Ed25519 private key`);
    return new TokenService(privateKey, createPublicKey(privateKey), issuer);
  }

  get tokenIssuer(): string {
    return this.issuer;
  }

  async issue(claims: LocalTokenClaims): Promise<string> {
    const { SignJWT } = await loadJose();
    return new SignJWT({ token_use: claims.use })
      .setProtectedHeader({ alg: LOCAL_TOKEN_ALGORITHM, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience(this.issuer)
      .setSubject(claims.sessionId)
      .setJti(claims.tokenId)
      .setIssuedAt()
      .setExpirationTime(claims.expiresAt)
      .sign(this.privateKey);
  }

  /** Verifies a token of the local provider; throws TOKEN_INVALID with the reason otherwise. */
  async verify(token: string): Promise<LocalTokenClaims> {
    const { jwtVerify, errors: joseErrors } = await loadJose();
    try {
      const { payload } = await jwtVerify(token, this.publicKey, {
        algorithms: [LOCAL_TOKEN_ALGORITHM],
        issuer: this.issuer,
        audience: this.issuer,
        requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      });
      const use = payload.token_use;
      if (use !== 'access' && use !== 'refresh') throw new QuireError('TOKEN_INVALID', 'The token has no valid token_use claim.');
      return { sessionId: payload.sub!, tokenId: payload.jti!, use, expiresAt: payload.exp! };
    } catch (error) {
      if (error instanceof QuireError) throw error;
      // The signature was checked before the expiry: an authentic token past its time means the session is over.
      if (error instanceof joseErrors.JWTExpired) {
        throw new QuireError('SESSION_NOT_FOUND', 'The session of this token has expired.', { cause: error });
      }
      throw new QuireError('TOKEN_INVALID', describeJoseError(error), { cause: error });
    }
  }
}

export function describeJoseError(error: unknown): string {
  const joseErrors = loadedJose()?.errors;
  if (joseErrors === undefined) return 'The token is not valid.';
  if (error instanceof joseErrors.JWTExpired) return 'The token has expired.';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'The token is signed with an algorithm that is not accepted.';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'The token signature is not valid.';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `The token claim "${error.claim}" is not valid: ${error.reason}.`;
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'No key of the token provider matches the token.';
  if (error instanceof joseErrors.JOSEError) return `The token is not valid (${error.code}).`;
  return 'The token is not valid.';
}
