import Type, { type TSchema } from 'typebox';
import { CONFIGURATION_TYPES, type ConfigurationType } from '../../operations/admin/configuration-wire.js';
import { PortalSchema } from '../../config/portal-schema.js';
import { WebserviceResult } from './admin-status.js';
import { CertificateEntry } from './authentication.js';
import { component, ref } from './shared.js';

/*
 * The configuration envelopes of reference §11.2 with their payloads of Appendix B, as far as Quire
 * fills them. Members Quire does not know are accepted on POST and ignored. Only JSON types are
 * checked here; value ranges are the configuration schema's job, so they come back as problems of the
 * result, by field. No schema here carries a `default`: the validator would insert it into a posted
 * body, and an absent member means "unchanged".
 */

const opt = Type.Optional;

/**
 * The portal settings on the wire: the configuration's schema without its defaults and required
 * members (a posted member is stored as it is; the loader fills in what is left out) and without the
 * ban on unknown members (the loader reports those by field).
 */
function wireOf(schema: unknown): TSchema {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === 'default' || key === 'additionalProperties' || key === 'required' ? undefined : value))) as TSchema;
}
const PortalWire = Type.Unsafe<Record<string, unknown>>({ ...(wireOf(PortalSchema) as object), description: 'ApplicationConfig_Portal: the portal.* keys, stored and shown (Quire has no portal)' });
const int = (description?: string) => Type.Integer({ format: 'int32', ...(description ? { description } : {}) });

export const ConfigurationTypeSchema = Type.Enum([...CONFIGURATION_TYPES], { description: 'Admin_ConfigurationType' });
const ConfigurationModeSchema = Type.Enum(['validate', 'write'], { description: 'Admin_ConfigurationMode' });

const KeyStoreContent = Type.Object(
  { keyStoreContent: opt(Type.String()), certificates: opt(Type.Array(ref(CertificateEntry))) },
  {
    description:
      "a key store: Base64 content (posted: stored when it differs; '' or absent: unchanged) and its certificates. connectorKeyStore: the files of <dataDir>/keystore; globalKeyStore: the signature key store's certificates (its content is never shown; a posted one replaces the store)",
  },
);

// ---- application (ApplicationConfig_Application) ----

const WebserviceSettings = (description: string, extra: Record<string, TSchema> = {}) =>
  Type.Object(
    {
      enabled: opt(Type.Boolean()),
      instances: opt(int()),
      maxLatency: opt(int()),
      queueMode: opt(Type.Enum(['AUTO', 'MANUAL'])),
      queueSize: opt(int()),
      ...extra,
    },
    { description },
  );

export const ApplicationConfigApplication = component(
  Type.Object(
    {
      webservices: Type.Object({
        converter: opt(
          WebserviceSettings('the LibreOffice pool: instances = warm workers, queueSize, maxLatency = seconds a job may wait for a worker', {
            defaultFont: opt(Type.String()),
            fontPath: opt(Type.String()),
          }),
        ),
        toolbox: opt(WebserviceSettings('always enabled; no pool settings of its own')),
        urlconverter: opt(WebserviceSettings('not offered: enabled is always false', { timeout: opt(int()), userAgent: opt(Type.String()) })),
        pdfa: opt(WebserviceSettings('not offered: enabled is always false', { fontPath: opt(Type.String()) })),
        signature: opt(WebserviceSettings('not offered: enabled is always false')),
        ocr: opt(WebserviceSettings('not offered: enabled is always false')),
        barcode: opt(WebserviceSettings('not offered: enabled is always false')),
      }),
      bridges: Type.Object({
        chromium: opt(
          Type.Object(
            {
              enabled: opt(Type.Boolean()),
              path: opt(Type.String()),
              headlessMode: opt(Type.Enum(['old', 'new'])),
              hostAddress: opt(Type.String()),
              noSandbox: opt(Type.Boolean()),
              port: opt(int()),
            },
            { description: 'the Chromium pool: enabled = engines.chromium.enabled, path = engines.chromium.executable' },
          ),
        ),
        office: opt(Type.Object({})),
        sharePoint: opt(Type.Object({})),
      }),
      portal: PortalWire,
      keystore: opt(
        Type.Object({
          type: opt(
            Type.Enum(['NONE', 'JKS', 'PKCS11', 'PKCS12', 'WINDOWS_MACHINE', 'WINDOWS_USER'], {
              description: 'signature.keyStore.type: NONE = the generated store; PKCS11 and the Windows stores do not exist here (refused)',
            }),
          ),
          password: opt(Type.String({ description: 'signature.keyStore.password; reads "[redacted]", which posted back keeps it' })),
          entry: opt(Type.Array(Type.Object({ alias: opt(Type.String()), password: opt(Type.String()) }), { description: 'signature.keyStore.entries: passwords of single keys (redacted)' })),
          filter: opt(Type.Array(Type.Object({ pattern: opt(Type.String()) }), { description: 'signature.keyStore.filter: regular expressions of the aliases offered' })),
        }),
      ),
      metrics: opt(
        Type.Object({
          enabled: opt(Type.Boolean()),
          prometheus: opt(Type.Object({ enabled: opt(Type.Boolean()) })),
          auth: opt(Type.Object({ enabled: opt(Type.Boolean({ description: 'false = metrics.public (served without credentials)' })) })),
        }),
      ),
      proxies: opt(Type.Object({})),
      tsa: opt(
        Type.Object(
          {
            url: opt(Type.String({ description: "signature.tsa.url; '' = B-B" })),
            hashAlgorithm: opt(
              Type.Enum(['MD5', 'SHA-1', 'SHA-224', 'SHA-256', 'SHA-384', 'SHA-512'], { description: 'signature.tsa.hashAlgorithm: SHA-256, SHA-384 or SHA-512 (the others are refused)' }),
            ),
            user: opt(Type.String()),
            password: opt(Type.String({ description: 'signature.tsa.password; reads "[redacted]", which posted back keeps it' })),
          },
          { description: 'the signature service time-stamp authority (signature.tsa.*)' },
        ),
      ),
      license: opt(Type.Object({})),
    },
    { $id: 'ApplicationConfig_Application' },
  ),
);

const ApplicationCheck = Type.Object(
  {
    checkType: Type.Enum(['license', 'tsa', 'executable', 'signature']),
    executables: opt(
      Type.Array(
        Type.Enum(['outsideIn', 'fisimple', 'tesseract', 'pdftools', 'officeBridge', 'sharePointBridge', 'chromium', 'imageMagick', 'libreoffice', 'python', 'ghostscript'], {
          description: 'Admin_ExecutableName; libreoffice, python and ghostscript are Quire additions',
        }),
      ),
    ),
  },
  { description: 'Admin_ApplicationCheck' },
);

// ---- server (ServerConfig_Server) ----

const Expiration = Type.Object({ expiration: opt(int('seconds; both tokens end with the session (session.lifetime)')) });

export const ServerConfigServer = component(
  Type.Object(
    {
      host: Type.Object({ name: opt(Type.String()), contextPath: opt(Type.String({ description: 'server.contextPath without its leading slash' })) }),
      connectors: Type.Object({
        connector: opt(
          Type.Array(
            Type.Object({
              address: opt(Type.String({ description: 'server.host' })),
              port: opt(int('server.port')),
              protocol: opt(Type.Enum(['HTTP/1.1', 'HTTP/2.0', 'AJP/1.3'])),
              enabled: opt(Type.Boolean()),
              ssl: opt(
                Type.Object(
                  {
                    scheme: opt(Type.String()),
                    clientAuth: opt(Type.Boolean()),
                    keystore: opt(
                      Type.Object({
                        type: opt(Type.Enum(['JKS', 'PKCS12', 'PEM', 'WINDOWS_MACHINE', 'WINDOWS_USER'], { description: 'https.keyStore.type (the Windows stores do not exist here)' })),
                        file: opt(Type.String({ description: 'https.keyStore.file: a file in <dataDir>/keystore, or an absolute path' })),
                        password: opt(Type.String({ description: 'https.keyStore.password (shown redacted)' })),
                        alias: opt(Type.String({ description: 'https.keyStore.alias' })),
                      }),
                    ),
                    protocols: opt(Type.Object({ protocol: opt(Type.Array(Type.Enum(['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3']), { description: 'https.minVersion and newer' })) })),
                    ciphers: opt(Type.Object({ cipher: opt(Type.Array(Type.String(), { description: "https.ciphers; empty = Node's default list" })), forceOrder: opt(Type.Boolean()) })),
                  },
                  { description: 'connector[1] only: the TLS of the HTTPS listener' },
                ),
              ),
            }),
            { description: 'connector[0]: the HTTP listener (server.*); connector[1]: the HTTPS listener (https.*); compression and proxy settings have no counterpart' },
          ),
        ),
      }),
      localAuth: opt(
        Type.Object({
          enabled: opt(Type.Boolean()),
          rest: Type.Object({
            enabled: opt(Type.Boolean()),
            allowAnonymous: opt(Type.Boolean({ description: 'anonymous' })),
            accessToken: opt(Expiration),
            refreshToken: opt(Expiration),
            limits: opt(
              Type.Object(
                {
                  uploadLimit: opt(int()),
                  uploadLimitUser: opt(int()),
                  diskSpaceLimit: opt(int()),
                  diskSpaceLimitUser: opt(int()),
                  maxFiles: opt(int()),
                  maxFilesUser: opt(int()),
                },
                { description: 'limits.anonymous and limits.user (*User); sizes in megabytes, 0 = unlimited' },
              ),
            ),
          }),
          soap: Type.Object({ enabled: opt(Type.Boolean()), allowAnonymous: opt(Type.Boolean()) }, { description: 'no SOAP: always disabled' }),
        }),
      ),
      oauth: opt(
        Type.Object({
          providers: opt(
            Type.Object({
              provider: opt(
                Type.Array(
                  Type.Object({
                    id: opt(Type.String()),
                    name: opt(Type.Enum(['generic', 'azureAd', 'auth0'])),
                    displayName: opt(Type.String()),
                    discoveryUrl: opt(Type.String({ description: '<issuer>/.well-known/openid-configuration' })),
                    claimRoles: opt(Type.String({ description: 'rolesClaim' })),
                    roleNameAdmin: opt(Type.String({ description: 'adminRoles, comma-separated' })),
                    roleNameUser: opt(Type.String({ description: 'userRoles, comma-separated' })),
                    maxTimeSkew: opt(int('clockTolerance (seconds)')),
                  }),
                  { description: 'oauth.providers: mapped fields can be changed and providers removed; new ones are configured in the file' },
                ),
              ),
            }),
          ),
        }),
      ),
      shutdown: Type.Object({ restart: opt(Type.Boolean()) }, { description: 'no shutdown port; GET admin/server/restart restarts' }),
      truststore: opt(
        Type.Object(
          {
            file: opt(Type.String({ description: 'truststore.file: the name shown; the content is stored as <dataDir>/keys/truststore' })),
            password: opt(Type.String({ description: 'truststore.password (shown redacted)' })),
          },
          { description: 'absent: no trust store (posting the envelope without it removes the trust store); its content is trustStoreKeyStore' },
        ),
      ),
      user: Type.Object({
        roleAdminGroup: opt(Type.String()),
        roleUserGroup: opt(Type.String()),
        xml: opt(Type.Object({}, { description: 'present: the built-in user database (admin/configuration/user)' })),
      }),
    },
    { $id: 'ServerConfig_Server' },
  ),
);

const ServerCheck = Type.Object(
  { checkType: Type.Enum(['user', 'truststore', 'connector']), name: opt(Type.String()), password: opt(Type.String()) },
  { description: 'Admin_ServerCheck: user = log in with name and password; connector = the posted address can be opened' },
);

// ---- user (UserConfig_Users) ----

export const UserConfigUsers = component(
  Type.Object(
    {
      user: opt(
        Type.Array(
          Type.Object({
            username: opt(Type.String()),
            password: opt(Type.String({ description: 'always "" when read; "" when posted keeps the password; plaintext or an $scrypt$/$argon2 hash sets it' })),
            roles: opt(Type.String({ description: 'comma-separated: user, admin' })),
            uniqueId: opt(Type.String({ description: 'the name when read: identifies a renamed user' })),
          }),
        ),
      ),
    },
    { $id: 'UserConfig_Users' },
  ),
);

// ---- log (Admin_LogFileConfiguration) ----

export const LogFileConfiguration = component(
  Type.Object(
    {
      debugMode: opt(Type.Enum(['none', 'debug', 'debugRequest', 'debugRequestPayload'], { description: 'none = info, debug(Request) = debug, debugRequestPayload = trace' })),
      level: opt(Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { description: 'Quire addition: log.level itself' })),
      log4j2Xml: opt(Type.String({ description: 'always empty: Quire logs with pino' })),
      updateXml: opt(Type.Boolean({ description: 'always false' })),
    },
    { $id: 'Admin_LogFileConfiguration' },
  ),
);

// ---- cluster (Cluster_Settings) and provider (Provider_Settings) ----

// Cluster_Settings is the cluster status's component, whose members are all required; a posted one may omit them.
const ClusterSettings = Type.Object(
  {
    mode: opt(Type.Enum(['single', 'cluster'])),
    role: opt(Type.Enum(['coordinator', 'member'])),
    name: opt(Type.String()),
    nodeName: opt(Type.String()),
    connectTimeout: opt(int()),
    secretKey: opt(Type.String()),
    stopOnError: opt(Type.Boolean()),
  },
  { description: "Cluster_Settings: mode is cluster.mode (a restart applies it); the other members are shown (node settings come from each node's environment)" },
);

const ProviderEntry = Type.Object({ name: opt(Type.String()) }, { description: 'Provider_ProviderEntry' });

export const ProviderSettings = component(
  Type.Object(
    { sessionStorage: opt(ProviderEntry), documentStorage: opt(ProviderEntry), fileStorage: opt(ProviderEntry) },
    { $id: 'Provider_Settings', description: 'the embedded stores in the data dir; they cannot be exchanged' },
  ),
);

// ---- envelopes ----

function envelope(type: ConfigurationType, id: string, configuration: TSchema, check: TSchema, extra: Record<string, TSchema> = {}) {
  return component(
    Type.Object(
      {
        configurationType: Type.Literal(type),
        configurationMode: ConfigurationModeSchema,
        configuration,
        configurationChecks: opt(Type.Array(check)),
        ...extra,
      },
      { $id: id },
    ),
  );
}

const FreeCheck = Type.Object({ checkType: Type.String() });

export const ENVELOPES: Record<ConfigurationType, TSchema & { $id?: string }> = {
  application: envelope('application', 'Admin_ApplicationConfiguration', ref(ApplicationConfigApplication), ApplicationCheck, {
    globalKeyStore: opt(KeyStoreContent),
  }),
  server: envelope('server', 'Admin_ServerConfiguration', ref(ServerConfigServer), ServerCheck, {
    connectorKeyStore: opt(Type.Record(Type.String(), KeyStoreContent)),
    trustStoreKeyStore: opt(KeyStoreContent),
  }),
  user: envelope('user', 'Admin_UserConfiguration', ref(UserConfigUsers), FreeCheck),
  log: envelope('log', 'Admin_LogConfiguration', ref(LogFileConfiguration), FreeCheck),
  cluster: envelope('cluster', 'Admin_ClusterConfiguration', ClusterSettings, Type.Object({ checkType: Type.Enum(['connect']) })),
  provider: envelope('provider', 'Admin_ProviderConfiguration', ref(ProviderSettings), Type.Object({ checkType: Type.Enum(['documentStorage', 'fileStorage', 'sessionStorage']) })),
};

export const AdminConfiguration = component(
  Type.Union(
    CONFIGURATION_TYPES.map((type) => ref(ENVELOPES[type])),
    { $id: 'Admin_Configuration', description: 'one envelope per configurationType' },
  ),
);

/** What the POST route validates first; the envelope of its `configurationType` is checked next. */
export const ConfigurationRequest = Type.Object(
  {
    configurationType: ConfigurationTypeSchema,
    configurationMode: ConfigurationModeSchema,
    configuration: Type.Object({}),
    configurationChecks: opt(Type.Array(Type.Object({ checkType: Type.String() }))),
  },
  { description: 'an Admin_Configuration: Admin_ApplicationConfiguration, Admin_ServerConfiguration, ... by configurationType' },
);

// ---- result ----

export const ExecutableResult = component(
  Type.Object(
    {
      applicationName: Type.String(),
      commandLine: Type.Array(Type.String()),
      consoleOutput: Type.Array(Type.String()),
      exitCode: int(),
      isSuccessful: Type.Boolean(),
      message: Type.String(),
    },
    { $id: 'Admin_ExecutableResult' },
  ),
);

export const ConfigurationResult = component(
  Type.Object(
    {
      operation: ConfigurationModeSchema,
      error: ref(WebserviceResult),
      executableError: opt(ref(ExecutableResult)),
      problems: Type.Array(
        Type.Object({
          field: Type.String({ description: 'path in the posted envelope' }),
          key: Type.String({ description: 'the configuration key (docs/configuration.md)' }),
          message: Type.String(),
        }),
        { description: 'Quire addition: every problem found' },
      ),
      restartRequired: Type.Boolean({ description: 'Quire addition: written values that take effect after a restart' }),
      restartKeys: Type.Array(Type.String(), { description: 'Quire addition' }),
      overridden: Type.Array(Type.Object({ key: Type.String(), variable: Type.String() }), {
        description: 'Quire addition: written keys that an environment variable overrides',
      }),
      configFile: Type.String({ description: 'Quire addition: the file written' }),
    },
    { $id: 'Admin_ConfigurationResult' },
  ),
);
