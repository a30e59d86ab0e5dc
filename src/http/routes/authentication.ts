import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import { toWireMegabytes } from '../../config/sizes.js';
import { QuireError } from '../../core/errors.js';
import type { SigningKeyStores } from '../../operations/signature/key-stores.js';
import { isAdmin } from '../../sessions/session.js';
import type { SessionService } from '../../sessions/session-service.js';
import { basicCredentials, bearerToken } from '../plugins/auth.js';
import { KeyStorePassword, LoginOptions, SessionToken, UserCertificates, UserCredentials } from '../schemas/authentication.js';
import { ref } from '../schemas/shared.js';

const tags = ['authentication'];

/** Login and refresh take an optional body; no body at all means the defaults. */
async function emptyBodyMeansDefaults(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

/** Log in, renew, log out, user information and the session's certificates (webPDF §2). */
export const authenticationRoutes: FastifyPluginAsyncTypebox<{ sessions: SessionService; certificates?: Pick<SigningKeyStores, 'list' | 'unlock'> | undefined }> = async (
  app,
  { sessions, certificates },
) => {
  const loginSchema = {
    tags,
    summary: 'Open a session with Basic credentials, or an anonymous one without',
    response: { 200: ref(SessionToken) },
  };

  app.post(
    '/authentication/user/login',
    {
      config: { auth: 'login' },
      preValidation: emptyBodyMeansDefaults,
      schema: { ...loginSchema, operationId: 'login', body: ref(LoginOptions) },
    },
    async (request) => sessions.login(basicCredentials(request), request.body?.createRefreshToken === true, request.ip),
  );

  app.get('/authentication/user/login', { config: { auth: 'login' }, schema: { ...loginSchema, operationId: 'userLogin', deprecated: true } }, async (request) =>
    sessions.login(basicCredentials(request), false, request.ip),
  );

  app.post(
    '/authentication/user/refresh',
    {
      config: { auth: 'refresh' },
      preValidation: emptyBodyMeansDefaults,
      schema: {
        tags,
        operationId: 'refresh',
        summary: 'Exchange the refresh token (as bearer) for new access and refresh tokens; the old ones stop working',
        body: ref(LoginOptions),
        response: { 200: ref(SessionToken) },
      },
    },
    async (request) => {
      const token = bearerToken(request);
      if (!token) throw new QuireError('TOKEN_MISSING', 'Refresh needs the refresh token: Authorization: Bearer <refreshToken>.');
      return sessions.refresh(token);
    },
  );

  app.get('/authentication/user/logout', { schema: { tags, operationId: 'logout', summary: 'End the session and delete its documents' } }, async (request, reply) => {
    await sessions.logout(request.session!);
    return reply.code(200).send();
  });

  app.get('/authentication/user/info', { schema: { tags, operationId: 'info', summary: "The session's user, roles and limits", response: { 200: ref(UserCredentials) } } }, async (request) => {
    const session = request.session!;
    const limits = sessions.limitsFor(session);
    return {
      userName: session.userName,
      roles: [...session.roles],
      userLimits: {
        type: session.kind,
        uploadLimit: toWireMegabytes(limits.uploadLimit),
        maxFiles: limits.maxFiles,
        diskSpaceLimit: toWireMegabytes(limits.diskSpaceLimit),
      },
      uniqueId: session.id,
      isUser: true,
      isAdmin: isAdmin(session),
    };
  });

  app.get(
    '/authentication/user/certificates',
    {
      schema: {
        tags,
        operationId: 'readCertificates',
        summary: 'Key stores and certificates available to the session',
        response: { 200: ref(UserCertificates) },
      },
    },
    async (request) => (certificates ? certificates.list(request.session!) : { certificates: [], keyStores: [] }),
  );

  app.put(
    '/authentication/user/certificates/passwords/:keyStoreName',
    {
      schema: {
        tags,
        operationId: 'updateCertificatePasswords',
        summary: 'Unlock a key store of the session with its passwords',
        params: Type.Object({ keyStoreName: Type.String() }),
        body: ref(KeyStorePassword),
        response: { 200: ref(UserCertificates) },
      },
    },
    async (request) => {
      if (!certificates) throw new QuireError('KEYSTORE_NOT_FOUND', `No key store named "${request.params.keyStoreName}" is available to this session.`);
      // Unlocked for this session only, in memory (operations/signature/key-stores.ts).
      return certificates.unlock(request.session!, request.params.keyStoreName, request.body);
    },
  );
};
