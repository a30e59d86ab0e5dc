import Type from 'typebox';
import { component, ref } from './shared.js';

export const LoginOptions = component(Type.Object({ createRefreshToken: Type.Optional(Type.Boolean({ default: false, description: 'also issue a refresh token' })) }, { $id: 'Auth_LoginOptions' }));

export const SessionToken = component(
  Type.Object(
    {
      token: Type.String({ description: 'access token (JWT) of the session' }),
      refreshToken: Type.String({ description: 'refresh token; empty when none was requested' }),
      expiresIn: Type.Integer({ format: 'int64', description: 'seconds until the session ends unless renewed' }),
    },
    { $id: 'Auth_SessionToken' },
  ),
);

export const Limits = component(
  Type.Object(
    {
      type: Type.Enum(['user', 'anonymous']),
      uploadLimit: Type.Integer({ format: 'int32', description: 'megabytes per upload; 0 = unlimited' }),
      maxFiles: Type.Integer({ format: 'int32', description: 'documents per session; 0 = unlimited' }),
      diskSpaceLimit: Type.Integer({ format: 'int32', description: 'megabytes stored per session; 0 = unlimited' }),
    },
    { $id: 'Auth_Limits' },
  ),
);

export const UserCredentials = component(
  Type.Object(
    {
      userName: Type.String({ description: 'empty for anonymous sessions' }),
      roles: Type.Array(Type.String()),
      userLimits: ref(Limits),
      uniqueId: Type.String({ description: 'the session id' }),
      isUser: Type.Boolean(),
      isAdmin: Type.Boolean(),
    },
    { $id: 'Auth_UserCredentials' },
  ),
);

const KeyStoreOrigin = Type.Enum(['global', 'local', 'principal', 'call']);

export const CertificateEntry = component(
  Type.Object(
    {
      aliasName: Type.String(),
      certificate: Type.String(),
      hasPrivateKey: Type.Boolean(),
      isPrivateKeyReadable: Type.Boolean(),
      keyStoreName: Type.String(),
      keyStoreOrigin: KeyStoreOrigin,
    },
    { $id: 'Certificate_Entry' },
  ),
);

export const KeyStoreEntry = component(Type.Object({ isKeyStoreAccessible: Type.Boolean(), keyStoreName: Type.String(), keyStoreOrigin: KeyStoreOrigin }, { $id: 'KeyStore_Entry' }));

export const UserCertificates = component(Type.Object({ certificates: Type.Array(ref(CertificateEntry)), keyStores: Type.Array(ref(KeyStoreEntry)) }, { $id: 'Auth_UserCertificates' }));

export const KeyStorePassword = component(
  Type.Object(
    {
      keyStorePassword: Type.Optional(Type.String()),
      aliases: Type.Optional(Type.Record(Type.String(), Type.String())),
    },
    { $id: 'KeyStore_Password' },
  ),
);
