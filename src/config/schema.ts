import Type, { type Static } from 'typebox';
import { PortalSchema } from './portal-schema.js';

/**
 * The one configuration schema. The loader validates the YAML file plus environment overrides against
 * it, fills in the defaults given here, and docs/configuration.md describes the same keys.
 *
 * Sizes are a number of megabytes (as webPDF reports limits) or a string with a unit such as "512KB",
 * "1.5GB" (binary units: 1 KB = 1024 bytes). 0 means "no limit".
 */
const SIZE_FORMAT = 'megabytes, or a size with unit (B, KB, MB, GB, TB); 0 = unlimited';

export const SizeSchema = Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: '^\\s*\\d+(\\.\\d+)?\\s*([kKmMgGtT]i?[bB]|[bB])?\\s*$' })], { description: SIZE_FORMAT });

function limitsSchema(defaults: { uploadLimit: string; maxFiles: number; diskSpaceLimit: string }) {
  return Type.Object(
    {
      uploadLimit: Type.Union([SizeSchema], { default: defaults.uploadLimit, description: `largest single upload in ${SIZE_FORMAT}` }),
      maxFiles: Type.Integer({ minimum: 0, default: defaults.maxFiles, description: 'documents per session; 0 = unlimited' }),
      diskSpaceLimit: Type.Union([SizeSchema], { default: defaults.diskSpaceLimit, description: `total size stored per session in ${SIZE_FORMAT}` }),
    },
    { additionalProperties: false, default: {} },
  );
}

/** Supervisor settings of a process-based engine (a pool of warm workers with a queue in front). */
function engineSchema(defaults: { timeout: number; maxJobs: number; maxMemory: string; memoryLimit: string; executable: string }) {
  return Type.Object(
    {
      enabled: Type.Boolean({ default: true, description: 'start this engine; when false its conversions are refused' }),
      workers: Type.Integer({ minimum: 0, default: 0, description: 'warm workers; 0 = one per CPU core (server.cpus)' }),
      queueSize: Type.Integer({ minimum: 0, default: 100, description: 'jobs that may wait for a worker; past it calls get 429 with Retry-After' }),
      queueTimeout: Type.Number({ minimum: 0.1, default: 60, description: 'seconds a job may wait for a worker before 429' }),
      timeout: Type.Number({ minimum: 0.1, default: defaults.timeout, description: 'seconds one job may run; then the worker is killed and replaced' }),
      maxJobs: Type.Integer({ minimum: 0, default: defaults.maxJobs, description: 'recycle a worker after this many jobs; 0 = never' }),
      maxMemory: Type.Union([SizeSchema], { default: defaults.maxMemory, description: `recycle a worker whose resident memory passes this, in ${SIZE_FORMAT}` }),
      memoryLimit: Type.Union([SizeSchema], {
        default: defaults.memoryLimit,
        description: `hard cap while a job runs: a worker whose memory passes it is killed and the job fails with -109, in ${SIZE_FORMAT}`,
      }),
      healthInterval: Type.Number({ minimum: 0, default: 30, description: 'seconds between health checks of idle workers; 0 = none' }),
      executable: Type.String({ minLength: 1, default: defaults.executable }),
    },
    { additionalProperties: false, default: {} },
  );
}

/** An external tool started once per call: its executable and its memory cap (RLIMIT_AS through prlimit). */
/**
 * The supervisor rules of a tool run once per call (engines/pool/tool-gate.ts): runs at once, a
 * bounded queue (full: 429 with Retry-After) and its wait. The defaults are far above what a normal
 * load needs: they stop a flood, not a busy server.
 */
function gateProperties() {
  return {
    concurrency: Type.Integer({ minimum: 0, default: 0, description: 'runs at once; more wait in the queue; 0 = eight per CPU core (server.cpus)' }),
    queueSize: Type.Integer({ minimum: 0, default: 1000, description: 'runs that may wait for a free slot; past it calls get 429 with Retry-After' }),
    queueTimeout: Type.Number({ minimum: 0.1, default: 120, description: 'seconds a run may wait for a free slot before 429' }),
  };
}

function toolSchema(defaults: { executable: string; maxMemory: string }) {
  return Type.Object(
    {
      ...gateProperties(),
      executable: Type.String({ minLength: 1, default: defaults.executable }),
      maxMemory: Type.Union([SizeSchema], {
        default: defaults.maxMemory,
        description: `address space one run may use; past it the call fails with -109, in ${SIZE_FORMAT}`,
      }),
    },
    { additionalProperties: false, default: {} },
  );
}

/** Where state lives unless dataDir or QUIRE_DATA_DIR says otherwise (relative to the working directory). */
export const DEFAULT_DATA_DIR = './data';

export const RoleSchema = Type.Enum(['user', 'admin']);

/** What a signing key store says besides its type and name (signature.keyStore, signature.userKeyStores[]). */
const signingKeyStoreFields = {
  file: Type.String({ default: '', description: 'JKS/PKCS12: the key store; PEM: the certificate chain (and the key when keyFile is empty); a relative path is in <dataDir>/keystore' }),
  keyFile: Type.String({ default: '', description: "PEM: the private key's file when `file` holds only the certificates" }),
  password: Type.String({
    default: '',
    description:
      "opens the key store (and its keys, unless a call or the session gives a key password); '' = locked until a session unlocks it (PUT authentication/user/certificates/passwords/{name})",
  }),
  entries: Type.Array(Type.Object({ alias: Type.String({ minLength: 1 }), password: Type.String() }, { additionalProperties: false }), {
    default: [],
    description: "passwords of single keys (ApplicationConfig_KeystoreEntry): a key's own password when it differs from the store's",
  }),
  filter: Type.Array(Type.String(), {
    default: [],
    description: 'regular expressions (whole alias, case-insensitive) of the keys offered to sessions (ApplicationConfig_KeystoreFilter); [] = every key',
  }),
};

const UserSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, pattern: '^[^:\\s]+$', description: 'login name (no colon, no spaces)' }),
    password: Type.String({ minLength: 1, description: 'plaintext (hashed when loaded) or an $scrypt$ / $argon2id$ hash' }),
    roles: Type.Array(RoleSchema, { default: ['user'], minItems: 1 }),
  },
  { additionalProperties: false },
);

/** How the portal's login page signs in with a provider (authorization code with PKCE in the browser). */
const PortalLoginSchema = {
  name: Type.String({ default: '', description: "shown on the portal's login button; '' = the id" }),
  clientId: Type.String({ default: '', description: "the portal's public client at the provider; '' = the provider is not offered on the login page" }),
  scope: Type.String({ default: 'openid profile', description: 'scopes the portal asks for' }),
  authorizationEndpoint: Type.String({ default: '', pattern: '^(https?://.*)?$', description: "'' = from the issuer's /.well-known/openid-configuration" }),
  tokenEndpoint: Type.String({ default: '', pattern: '^(https?://.*)?$', description: "'' = from the issuer's /.well-known/openid-configuration" }),
  portalToken: Type.Enum(['access_token', 'id_token'], {
    default: 'access_token',
    description: "the token of the provider's answer the portal sends to Quire (its audience must be `audience`)",
  }),
};

const OAuthProviderSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, pattern: '^[A-Za-z0-9._-]+$', description: 'name of the provider, shown as providerId' }),
    issuer: Type.String({ minLength: 1 }),
    jwksUri: Type.String({ pattern: '^https?://' }),
    audience: Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })]),
    algorithms: Type.Array(Type.String({ pattern: '^(RS|PS|ES)(256|384|512)$|^EdDSA$' }), {
      default: ['RS256', 'ES256'],
      minItems: 1,
    }),
    userNameClaim: Type.String({ default: 'preferred_username' }),
    rolesClaim: Type.String({ default: 'roles', description: 'claim holding the roles; dotted paths reach nested claims' }),
    adminRoles: Type.Array(Type.String(), { default: [], description: 'claim values that make the subject an administrator' }),
    userRoles: Type.Array(Type.String(), {
      default: [],
      description: 'claim values that make the subject a user; empty means every valid token is a user',
    }),
    clockTolerance: Type.Integer({ minimum: 0, default: 30, description: 'seconds of clock skew accepted' }),
    jwksCooldown: Type.Number({
      minimum: 0,
      default: 30,
      description: 'seconds between two fetches of the key set triggered by unknown key ids',
    }),
    ...PortalLoginSchema,
  },
  { additionalProperties: false },
);

export const ConfigSchema = Type.Object(
  {
    dataDir: Type.String({ minLength: 1, default: DEFAULT_DATA_DIR }),
    server: Type.Object(
      {
        host: Type.String({ default: '0.0.0.0' }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
        contextPath: Type.String({ pattern: '^(/[A-Za-z0-9._~-]+)*$', default: '/webPDF' }),
        hostName: Type.String({
          pattern: '^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$|^\\[[0-9A-Fa-f:.]+\\]$',
          default: 'localhost',
          description: 'the public host name of the server (a DNS name, an IPv4 address or a bracketed IPv6 address; no scheme, port or path)',
        }),
        shutdownTimeout: Type.Number({ minimum: 0, default: 30, description: 'seconds in-flight requests get on SIGTERM' }),
        cpus: Type.Integer({
          minimum: 0,
          maximum: 1024,
          default: 0,
          description:
            "CPU cores this server counts as its own for every 'one per core' default (engine workers, async job workers, password hashing, tool runs); 0 = the cores the process may run on. Set it to a container's CPU limit, or to a share of the machine when several nodes run on it",
        }),
        jsonBodyLimit: Type.Union([SizeSchema], { default: '16MB', description: `largest JSON request body in ${SIZE_FORMAT}` }),
        debug: Type.Boolean({ default: false, description: 'send stack traces in error responses' }),
        trustProxy: Type.Boolean({ default: false }),
        headersTimeout: Type.Number({ minimum: 0, default: 20, description: 'seconds a client has to send the request line and headers; then 408; 0 = no limit' }),
        requestTimeout: Type.Number({
          minimum: 0,
          default: 300,
          description: 'seconds a request body other than a multipart upload may take to arrive once the server reads it; then 408; 0 = no limit',
        }),
        minUploadRate: Type.Union([SizeSchema], {
          default: '1KB',
          description: `bytes per second a request body must average over uploadRateWindow while the server waits for it; slower clients get 408; in ${SIZE_FORMAT}`,
        }),
        uploadRateWindow: Type.Number({ minimum: 0.1, default: 30, description: 'seconds over which minUploadRate is measured' }),
        drainLimit: Type.Union([SizeSchema], {
          default: '8MB',
          description: `body bytes read and discarded after an early refusal so the client can read the answer; then the connection is closed; in ${SIZE_FORMAT}`,
        }),
        drainTimeout: Type.Number({ minimum: 0, default: 5, description: 'seconds the discarded body of an early refusal may take before the connection is closed' }),
        portal: Type.Object(
          {
            enabled: Type.Boolean({ default: true, description: 'serve the web portal at <contextPath>/ and Swagger UI at <contextPath>/api-docs/' }),
            directory: Type.String({ default: '', description: "the built portal (index.html and assets/); '' = dist/portal of this installation (npm run build)" }),
          },
          { additionalProperties: false, default: {} },
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    https: Type.Object(
      {
        enabled: Type.Boolean({ default: false, description: 'open the HTTPS listener next to the HTTP one (the same application serves both)' }),
        host: Type.String({ default: '', description: "address the HTTPS listener binds to; '' = server.host" }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 8443 }),
        redirectHttp: Type.Boolean({ default: false, description: 'the HTTP listener answers every request with 308 to the same path on the HTTPS listener' }),
        minVersion: Type.Enum(['TLSv1.2', 'TLSv1.3'], { default: 'TLSv1.2', description: 'oldest TLS version accepted' }),
        ciphers: Type.String({ default: '', description: "OpenSSL cipher list for TLS 1.2; '' = Node's default list" }),
        keyStore: Type.Object(
          {
            type: Type.Enum(['JKS', 'PKCS12', 'PEM'], { default: 'JKS', description: 'JKS and PKCS12 each read both formats (as Java does); PEM: certificate chain and key as text' }),
            file: Type.String({ minLength: 1, default: 'ssl.jks', description: 'the key store; a relative path is in <dataDir>/keystore' }),
            password: Type.String({ default: 'webpdf', description: 'opens the key store and its key; PEM: the key, when it is encrypted' }),
            alias: Type.String({ default: '', description: "JKS: the key entry to serve; '' = the first with a private key" }),
            keyFile: Type.String({ default: '', description: "PEM: the private key's file when `file` holds only the certificates (relative: in <dataDir>/keystore)" }),
          },
          { additionalProperties: false, default: {} },
        ),
        selfSignedHostNames: Type.Array(Type.String({ minLength: 1 }), {
          default: [],
          description: 'names and addresses of a generated self-signed certificate; empty = the machine host name, localhost, 127.0.0.1 and ::1',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    log: Type.Object(
      {
        level: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
        console: Type.Boolean({ default: true, description: 'also write log lines to stdout (the daily files in <dataDir>/logs are always written)' }),
        retentionDays: Type.Integer({ minimum: 1, default: 30, description: 'days a daily log file is kept' }),
      },
      { additionalProperties: false, default: {} },
    ),
    anonymous: Type.Boolean({ default: true, description: 'allow login without credentials' }),
    session: Type.Object(
      {
        lifetime: Type.Integer({ minimum: 1, default: 3600, description: 'seconds from token issuance to session end' }),
        sweepInterval: Type.Number({ minimum: 0.05, default: 5, description: 'seconds between sweeps of expired sessions' }),
        maxSessions: Type.Integer({ minimum: 1, default: 10000 }),
        issuer: Type.String({ minLength: 1, default: 'quire', description: 'iss and aud of the tokens Quire issues' }),
      },
      { additionalProperties: false, default: {} },
    ),
    limits: Type.Object(
      {
        user: limitsSchema({ uploadLimit: '2GB', maxFiles: 1000, diskSpaceLimit: '10GB' }),
        anonymous: limitsSchema({ uploadLimit: '100MB', maxFiles: 100, diskSpaceLimit: '500MB' }),
      },
      { additionalProperties: false, default: {} },
    ),
    documents: Type.Object(
      {
        metadataBudget: Type.Number({
          minimum: 0,
          default: 2,
          description: 'seconds GET info waits for metadata of a new document; slower metadata is finished in the background and shown later',
        }),
        toolTimeout: Type.Number({ minimum: 1, default: 30, description: 'seconds one inspection of a document (qpdf) may take' }),
        minFreeSpace: Type.Union([SizeSchema, Type.String({ pattern: '^\\s*\\d+(\\.\\d+)?\\s*%\\s*$' })], {
          default: '1GB',
          description:
            'free space the data dir\'s disk keeps (uploads and new results are refused below it): megabytes, a size with unit (B, KB, MB, GB, TB) or a percentage of the disk such as "5%"; 0 = no floor',
        }),
        archive: Type.Object(
          {
            maxEntries: Type.Integer({ minimum: 1, default: 10000, description: 'entries a ZIP may have to be read at all' }),
            maxRatio: Type.Number({ minimum: 1, default: 200, description: 'highest compression ratio of a member above 1 MB (zip bombs)' }),
            allowNested: Type.Boolean({ default: false, description: 'allow extracting members that are archives themselves' }),
          },
          { additionalProperties: false, default: {} },
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    engines: Type.Object(
      {
        libreoffice: Type.Object(
          {
            ...engineSchema({ timeout: 120, maxJobs: 1000, maxMemory: '1GB', memoryLimit: '4GB', executable: '/usr/lib/libreoffice/program/soffice.bin' }).properties,
            isolation: Type.Enum(['auto', 'required', 'off'], {
              default: 'auto',
              description:
                'kernel walls around LibreOffice (empty network namespace, Landlock filesystem sandbox): auto = what the system allows, with a warning for what is missing; required = no Office conversion without both; off = none (LibreOffice settings only)',
            }),
          },
          { additionalProperties: false, default: {} },
        ),
        chromium: engineSchema({ timeout: 60, maxJobs: 100, maxMemory: '1GB', memoryLimit: '4GB', executable: '/usr/bin/chromium' }),
        tesseract: Type.Object(
          {
            ...engineSchema({ timeout: 120, maxJobs: 0, maxMemory: '0', memoryLimit: '2GB', executable: '/usr/bin/tesseract' }).properties,
            tessdata: Type.String({ default: '', description: "folder of the traineddata files; empty: Tesseract's own (Debian: /usr/share/tesseract-ocr/5/tessdata)" }),
          },
          { additionalProperties: false, default: {}, description: 'the OCR pool: timeout = seconds per page, memoryLimit = address space of one run' },
        ),
        python: Type.String({ minLength: 1, default: '/usr/bin/python3', description: 'Python with the uno module (Debian python3-uno) that drives LibreOffice' }),
        qpdf: toolSchema({ executable: 'qpdf', maxMemory: '2GB' }),
        poppler: Type.Object(
          {
            ...gateProperties(),
            directory: Type.String({ default: '', description: 'folder of pdftotext, pdftoppm, pdfimages, pdftocairo, pdfinfo; empty: found on PATH' }),
            maxMemory: Type.Union([SizeSchema], { default: '2GB', description: `address space one poppler run may use; past it the call fails with -109, in ${SIZE_FORMAT}` }),
          },
          { additionalProperties: false, default: {} },
        ),
        // The plain string form (the executable) is what configurations before issue 11 have.
        ghostscript: Type.Union([Type.String({ minLength: 1 }), toolSchema({ executable: 'gs', maxMemory: '2GB' })], {
          default: {},
          description: 'the Ghostscript executable, or {executable, maxMemory}',
        }),
        print: Type.Object(
          {
            maxMemory: Type.Union([SizeSchema], { default: '1GB', description: `address space the print command (toolbox.printCommand) may use, in ${SIZE_FORMAT}` }),
          },
          { additionalProperties: false, default: {} },
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    converter: Type.Object(
      {
        timeout: Type.Number({
          minimum: 0,
          default: 0,
          description:
            'seconds one converter call may take, every step together (waiting for a worker, rendering, page selection, compression, down-sampling); 0 = the longer of engines.libreoffice.timeout and engines.chromium.timeout',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    urlconverter: Type.Object(
      {
        timeout: Type.Number({
          minimum: 1,
          default: 60,
          description: 'seconds one urlconverter call may take (waiting for a browser, loading, printing); a page that has not loaded by then fails with -93 and its browser is replaced',
        }),
        networkIdleTimeout: Type.Number({ minimum: 0, default: 10, description: 'seconds after the load event that the page may keep the network busy before what has arrived is printed' }),
        maxBytes: Type.Union([SizeSchema], { default: '100MB', description: `bytes one page may download, every resource together, in ${SIZE_FORMAT}` }),
        maxRequests: Type.Integer({ minimum: 1, default: 1000, description: 'requests one page may make, every resource together' }),
        maxPages: Type.Integer({ minimum: 1, default: 1000, description: 'pages one page may print to, estimated from its laid-out height before printing' }),
      },
      { additionalProperties: false, default: {} },
    ),
    ocr: Type.Object(
      {
        timeout: Type.Number({ minimum: 1, default: 600, description: 'seconds one ocr call may take, every page together (waiting for the pool, rasterising, recognising, grafting)' }),
      },
      { additionalProperties: false, default: {} },
    ),
    barcode: Type.Object(
      {
        timeout: Type.Number({ minimum: 1, default: 300, description: 'seconds one barcode call may take (stamping every code, or detecting on every page)' }),
        detectWorkers: Type.Integer({ minimum: 1, maximum: 64, default: 2, description: 'worker threads decoding images for barcode.detect at once (zxing-wasm)' }),
        detectQueue: Type.Integer({ minimum: 0, default: 32, description: 'images that may wait for a detection thread; past it calls are refused with 429' }),
        detectTimeout: Type.Number({ minimum: 1, default: 60, description: 'seconds one image (page) may take to decode; then its thread is terminated and replaced' }),
        detectMemory: Type.Integer({ minimum: 64, default: 1024, description: 'heap cap of each detection thread, in MB' }),
      },
      { additionalProperties: false, default: {} },
    ),
    toolbox: Type.Object(
      {
        timeout: Type.Number({ minimum: 1, default: 300, description: 'seconds one toolbox call (all its operations) may take' }),
        printCommand: Type.Array(Type.String({ minLength: 1 }), {
          default: [],
          description: 'command (argv, no shell) the print operation pipes the PDF to, e.g. [lp, -d, office]; empty: printing is refused',
        }),
        memoryScratchDir: Type.String({ default: '/dev/shm', description: 'tmpfs directory for many-small-file intermediates (split parts); "" = always the disk' }),
        memoryScratchBudget: Type.Union([SizeSchema], {
          default: '256MB',
          description: `bytes all running calls may keep in the memory scratch together, in ${SIZE_FORMAT}; 0 = off`,
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    network: Type.Object(
      {
        allowInternal: Type.Boolean({
          default: false,
          description: 'let conversions fetch from loopback, private and link-local addresses (off: only public addresses)',
        }),
        allowHosts: Type.Array(Type.String({ minLength: 1 }), {
          default: [],
          description: 'host names or CIDR ranges fetched even when internal',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    security: Type.Object(
      {
        login: Type.Object(
          {
            maxFailures: Type.Integer({ minimum: 0, default: 10, description: 'failed logins from one client address within window before the address is locked; 0 = no address lock' }),
            window: Type.Number({ minimum: 1, default: 300, description: 'seconds in which failed logins are counted' }),
            lockout: Type.Number({ minimum: 0.1, default: 60, description: 'seconds of the first lock; each further lock of the same address or name doubles it' }),
            maxLockout: Type.Number({ minimum: 0.1, default: 3600, description: 'longest lock of an address, seconds' }),
            userMaxFailures: Type.Integer({
              minimum: 0,
              default: 20,
              description: 'failed logins for one user name within window before the name is throttled for addresses it never logged in from; 0 = no name throttle',
            }),
            userMaxLockout: Type.Number({ minimum: 0.1, default: 300, description: 'longest throttle of a user name, seconds (kept short: anyone can trigger it)' }),
            maxConcurrentHashes: Type.Integer({ minimum: 0, default: 0, description: 'password checks (scrypt/argon2) computed at once; 0 = half the CPU cores, at least 1' }),
            maxWaitingHashes: Type.Integer({ minimum: 0, default: 32, description: 'password checks that may wait for a free slot; past it logins get 429 with Retry-After' }),
          },
          { additionalProperties: false, default: {} },
        ),
        anonymousSessionsPerAddress: Type.Integer({ minimum: 0, default: 20, description: 'open anonymous sessions one client address may hold; 0 = unlimited' }),
      },
      { additionalProperties: false, default: {} },
    ),
    metrics: Type.Object(
      {
        public: Type.Boolean({ default: false, description: 'serve the Prometheus metrics without credentials (off: an admin session or admin Basic credentials)' }),
      },
      { additionalProperties: false, default: {} },
    ),
    statistics: Type.Object(
      {
        flushInterval: Type.Number({ minimum: 1, default: 60, description: 'seconds between writes of the persistent statistics to the data dir' }),
        retentionDays: Type.Integer({ minimum: 1, default: 400, description: 'days the persistent statistics keep their minute-to-day buckets' }),
      },
      { additionalProperties: false, default: {} },
    ),
    datastore: Type.Object(
      {
        maxFileSize: Type.Union([SizeSchema], { default: '10MB', description: `largest file of the admin data store (theme, logo, background, generic) in ${SIZE_FORMAT}` }),
      },
      { additionalProperties: false, default: {} },
    ),
    queue: Type.Object(
      {
        maxPending: Type.Integer({ minimum: 1, default: 10000, description: 'waiting or running entries of the work queue; past it synchronous and asynchronous calls get 429' }),
        jobWorkers: Type.Integer({ minimum: 0, default: 0, description: 'asynchronous web-service jobs run at once; 0 = one per CPU core (server.cpus)' }),
        maxAttempts: Type.Integer({ minimum: 1, default: 3, description: 'attempts of a job that failed for a passing reason (engine busy or down, server stopped)' }),
        retryDelay: Type.Number({ minimum: 0, default: 1, description: 'seconds before the second attempt; doubled per attempt, with full jitter' }),
        maxRetryDelay: Type.Number({ minimum: 0, default: 300, description: 'longest delay between two attempts, seconds' }),
        keepResults: Type.Number({ minimum: 0, default: 3600, description: 'seconds a finished job stays readable at GET jobs/{jobId}' }),
      },
      { additionalProperties: false, default: {} },
    ),
    webhooks: Type.Object(
      {
        secret: Type.String({ default: '', description: 'HMAC-SHA256 key of the X-Quire-Signature header; empty: generated once into <dataDir>/keys/webhook-secret' }),
        maxAttempts: Type.Integer({ minimum: 1, default: 8, description: 'delivery attempts before the delivery goes to FAILED_PERMANENT (the replay queue)' }),
        retryDelay: Type.Number({ minimum: 0, default: 2, description: 'seconds before the second delivery attempt; doubled per attempt, with full jitter' }),
        maxRetryDelay: Type.Number({ minimum: 0, default: 600, description: 'longest delay between two delivery attempts, seconds' }),
        timeout: Type.Number({ minimum: 0.1, default: 10, description: 'seconds a receiver has to answer one delivery' }),
      },
      { additionalProperties: false, default: {} },
    ),
    users: Type.Array(UserSchema, { default: [] }),
    oauth: Type.Object({ providers: Type.Array(OAuthProviderSchema, { default: [] }) }, { additionalProperties: false, default: {} }),
    cluster: Type.Object(
      {
        mode: Type.Enum(['single', 'cluster'], {
          default: 'single',
          description: 'single: the embedded stores in the data dir; cluster: sessions, document index, locks and counters in Redis, the data dir a shared mount',
        }),
        redis: Type.Object(
          {
            url: Type.String({ minLength: 1, default: 'redis://127.0.0.1:6379', description: 'the Redis every node of the cluster uses (redis:// or rediss://, user and password in the URL)' }),
            keyPrefix: Type.String({ default: 'quire:', description: 'put in front of every key, so several installations can share one Redis' }),
            commandTimeout: Type.Number({ minimum: 0.1, default: 5, description: 'seconds a Redis command (and the connection) may take; past it the call gets 503 (-91)' }),
            cacheEntries: Type.Integer({
              minimum: 0,
              maximum: 1_000_000,
              default: 10_000,
              description: 'sessions and document records a node keeps from Redis, dropped as soon as Redis reports a change (client-side caching); 0 = read Redis on every call',
            }),
          },
          { additionalProperties: false, default: {} },
        ),
        node: Type.Object(
          {
            id: Type.String({ default: '', description: "this node's name in the cluster, unique; '' = <host name>:<port>" }),
            role: Type.Enum(['all', 'api', 'worker'], {
              default: 'all',
              description: 'all: API, engines and queue; api: API only, no warm engines, no queue consumers; worker: engines and queue, only health and metrics on HTTP',
            }),
            address: Type.String({ default: '', description: "where this node is reached, shown in admin/cluster/status; '' = http://<server.host>:<port>" }),
            heartbeatInterval: Type.Number({ minimum: 0.1, maximum: 60, default: 2, description: 'seconds between two heartbeats of this node in Redis' }),
            missedHeartbeats: Type.Integer({ minimum: 2, maximum: 100, default: 3, description: 'heartbeats a node may miss before the others see it as lost (its document locks are released then)' }),
          },
          { additionalProperties: false, default: {} },
        ),
        queue: Type.Object(
          {
            lockDuration: Type.Number({
              minimum: 1,
              maximum: 600,
              default: 30,
              description: "seconds a running job's lock lives unless its node renews it (every half of it); a dead node's jobs run again on another node after at most twice this",
            }),
          },
          { additionalProperties: false, default: {} },
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    portal: PortalSchema,
    truststore: Type.Object(
      {
        file: Type.String({ default: '', description: "the trust store's name as the administration gave it (shown only; the content is <dataDir>/keys/truststore); '' = none" }),
        password: Type.String({ default: '', description: 'opens the trust store and checks its integrity' }),
      },
      { additionalProperties: false, default: {} },
    ),
    signature: Type.Object(
      {
        keyStore: Type.Object(
          {
            type: Type.Enum(['NONE', 'JKS', 'PKCS12', 'PEM'], {
              default: 'NONE',
              description: "the server's signing key store; NONE = the one generated at the first start (<dataDir>/keys/signature.p12, alias 'Generic self-signed certificate')",
            }),
            ...signingKeyStoreFields,
            name: Type.String({ minLength: 1, default: 'global', description: 'the key store name sessions see (keyStoreName) and unlock it by' }),
          },
          { additionalProperties: false, default: {} },
        ),
        userKeyStores: Type.Array(
          Type.Object(
            {
              name: Type.String({ minLength: 1, description: 'the key store name its sessions see (keyStoreName) and unlock it by; unique among all signing key stores' }),
              user: Type.String({ default: '', description: "set: the store of this user only (origin principal); '' = the store of the roles below (origin local)" }),
              roles: Type.Array(RoleSchema, { default: [], description: 'with user empty: the roles whose sessions may use the store (origin local)' }),
              type: Type.Enum(['JKS', 'PKCS12', 'PEM']),
              ...signingKeyStoreFields,
            },
            { additionalProperties: false },
          ),
          { default: [], description: 'signing key stores of single users (principal) or roles (local), besides signature.keyStore (global, every session)' },
        ),
        defaultKeyName: Type.String({ default: '', description: "alias of the key a call without keyName signs with; '' = the generated key, or the first key entry of the configured store" }),
        tsa: Type.Object(
          {
            url: Type.String({ default: '', description: "RFC 3161 time-stamp authority (http or https); set: signatures are PAdES B-T; '' = B-B" }),
            hashAlgorithm: Type.Enum(['SHA-256', 'SHA-384', 'SHA-512'], { default: 'SHA-256', description: 'hash of the signature value sent to the authority' }),
            user: Type.String({ default: '', description: "Basic authentication user at the authority; '' = none" }),
            password: Type.String({ default: '' }),
            timeout: Type.Number({ minimum: 1, default: 10, description: 'seconds the authority may take to answer' }),
          },
          { additionalProperties: false, default: {} },
        ),
        revocation: Type.Object(
          {
            check: Type.Enum(['off', 'ocsp', 'crl', 'both'], {
              default: 'off',
              description:
                "PAdES B-LT: the revocation data of every certificate of the signer's (and the authority's) chain in a DSS; ocsp = OCSP (a CRL where no responder is named), crl = the reverse, both = every source named; off = no B-LT",
            }),
            required: Type.Boolean({ default: true, description: 'a certificate whose status cannot be established fails the call (else it goes without)' }),
            timeout: Type.Number({ minimum: 1, default: 10, description: 'seconds each OCSP responder or CRL download may take' }),
          },
          { additionalProperties: false, default: {} },
        ),
        documentTimestamp: Type.Boolean({
          default: false,
          description: 'PAdES B-LTA: a document time-stamp (ETSI.RFC3161) from signature.tsa.url over the whole file, after the DSS; needs signature.tsa.url',
        }),
        timeout: Type.Number({ minimum: 1, default: 120, description: 'seconds one signature call may take' }),
      },
      { additionalProperties: false, default: {} },
    ),
    keystore: Type.Object(
      {
        type: Type.Enum(['NONE', 'JKS', 'PKCS12', 'PKCS11'], {
          default: 'NONE',
          description: "the signature key store's type (ApplicationConfig_Keystore.type): stored and shown; the key store itself is the signature service's",
        }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false },
);

export type RawConfig = Static<typeof ConfigSchema>;
export type Role = Static<typeof RoleSchema>;
export type OAuthProviderConfig = Static<typeof OAuthProviderSchema>;
