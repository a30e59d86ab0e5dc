import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { ConfigSchema, DEFAULT_DATA_DIR, type OAuthProviderConfig, type RawConfig, type Role } from './schema.js';
import { parseSize } from './sizes.js';
import type { SchemaNode } from '../core/schema-defaults.js';
import { checkConfig } from './validate.js';

/** Per-session limits in bytes (0 = unlimited). */
export interface Limits {
  uploadLimit: number;
  maxFiles: number;
  diskSpaceLimit: number;
}

export interface UserEntry {
  name: string;
  password: string;
  roles: Role[];
}

/** The validated, resolved configuration every module receives. Sizes are bytes, durations are as named. */
export interface Config {
  dataDir: string;
  configFile: string | undefined;
  server: {
    host: string;
    port: number;
    contextPath: string;
    /** The public host name (server.hostName): the HTTP→HTTPS redirect's host when a request names none; answers carry relative URLs. */
    hostName: string;
    /** contextPath + "/rest": where every web service lives. */
    restBase: string;
    shutdownTimeoutMs: number;
    /** server.cpus resolved: the cores every "one per core" default counts (≥ 1). */
    cpus: number;
    jsonBodyLimit: number;
    debug: boolean;
    trustProxy: boolean;
    /** Slow and early-refused clients (http/plugins/slow-clients.ts, body-drain.ts); 0 = no limit. */
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    /** Bytes per second; 0 = no rate check. */
    minUploadRate: number;
    uploadRateWindowMs: number;
    drainLimit: number;
    drainTimeoutMs: number;
    /** The web portal (http/routes/portal.ts); directory absolute, '' = the installation's dist/portal. */
    portal: { enabled: boolean; directory: string };
  };
  /** The HTTPS listener (server-https.ts); key store paths as configured (relative = in <dataDir>/keystore). */
  https: RawConfig['https'];
  log: { level: string; console: boolean; retentionDays: number };
  metrics: { public: boolean };
  security: { login: LoginSecurity; anonymousSessionsPerAddress: number };
  statistics: { flushIntervalMs: number; retentionDays: number };
  datastore: { maxFileSize: number };
  queue: { maxPending: number; jobWorkers: number; maxAttempts: number; retryDelayMs: number; maxRetryDelayMs: number; keepResultsMs: number };
  webhooks: { secret: string; maxAttempts: number; retryDelayMs: number; maxRetryDelayMs: number; timeoutMs: number };
  anonymous: boolean;
  session: { lifetime: number; sweepIntervalMs: number; maxSessions: number; issuer: string };
  limits: { user: Limits; anonymous: Limits };
  documents: {
    metadataBudgetMs: number;
    toolTimeoutMs: number;
    /** Free space the data dir's disk keeps: `bytes`, or `percent` of the disk (one of them is 0; both 0 = no floor). */
    minFreeSpace: { bytes: number; percent: number };
    archive: { maxEntries: number; maxRatio: number; allowNested: boolean };
  };
  engines: {
    libreoffice: EngineConfig & { isolation: 'auto' | 'required' | 'off' };
    chromium: EngineConfig;
    tesseract: EngineConfig & { tessdata: string };
    python: string;
    qpdf: ToolConfig;
    /** `directory`: where poppler's tools are ("" = PATH). */
    poppler: { directory: string; maxMemoryBytes: number };
    /** The supervisor rules of the per-call tools (engines.<tool>.concurrency, queueSize, queueTimeout). */
    gates: { qpdf: ToolGateConfig; poppler: ToolGateConfig; ghostscript: ToolGateConfig };
    ghostscript: ToolConfig;
    print: { maxMemoryBytes: number };
  };
  network: { allowInternal: boolean; allowHosts: string[] };
  /** `timeoutMs`: one converter call, every step together (converter.timeout; 0 resolved to the slower rendering engine's timeout). */
  converter: { timeoutMs: number };
  /** The urlconverter's limits per call (urlconverter.*). */
  urlconverter: { timeoutMs: number; networkIdleTimeoutMs: number; maxBytes: number; maxRequests: number; maxPages: number };
  /** The barcode service's limits (barcode.*). */
  barcode: { timeoutMs: number; detectWorkers: number; detectQueue: number; detectTimeoutMs: number; detectMemoryMb: number };
  ocr: { timeoutMs: number };
  toolbox: { timeoutMs: number; printCommand: string[]; memoryScratchDir: string; memoryScratchBudget: number };
  users: UserEntry[];
  oauth: { providers: OAuthProviderConfig[] };
  /** single: embedded stores; cluster: Redis-backed stores (storage/redis) on `redis`, the data dir shared. */
  cluster: {
    mode: 'single' | 'cluster';
    redis: { url: string; keyPrefix: string; commandTimeoutMs: number; cacheEntries: number };
    queue: { lockDurationMs: number };
    /** This node (src/cluster): its name, role and address, and its heartbeat. */
    node: { id: string; role: 'all' | 'api' | 'worker'; address: string; heartbeatIntervalMs: number; missedHeartbeats: number };
  };
  /** webPDF's portal settings, kept as written (Quire has no portal). */
  portal: PortalConfig;
  /** The trust store (the file is <dataDir>/keys/truststore; `file` is its name as given, '' = none). */
  truststore: { file: string; password: string };
  /** The signature key store's type, stored and shown (the key store itself is the signature service's). */
  keystore: { type: RawConfig['keystore']['type'] };
  /** The signature service: its key store (NONE: generated in <dataDir>/keys), the default key, the call timeout (seconds). */
  signature: RawConfig['signature'];
  /** QUIRE_ADMIN_PASSWORD: the password of the generated admin when no users are configured. */
  adminPassword: string | undefined;
  /** Keys set by environment variables (dotted key → variable name): they win over the file. */
  overrides: Record<string, string>;
  /**
   * `QUIRE_` variables that name no configuration key (a deployment tool's own `QUIRE_VERSION`, a
   * typo): ignored, and named in a warning at start (main.ts) rather than refused.
   */
  ignoredEnvironment: string[];
}

export type PortalConfig = RawConfig['portal'];

/** Login throttling and the bound on password hashing (security.login), resolved to milliseconds and counts. */
export interface LoginSecurity {
  maxFailures: number;
  windowMs: number;
  lockoutMs: number;
  maxLockoutMs: number;
  userMaxFailures: number;
  userMaxLockoutMs: number;
  maxConcurrentHashes: number;
  maxWaitingHashes: number;
}

/** An external tool run once per call: its executable and address-space cap in bytes (0 = none). */
export interface ToolConfig {
  executable: string;
  maxMemoryBytes: number;
}

/** The supervisor rules of a per-call tool (engines/pool/tool-gate.ts); `concurrency` 0 = eight per CPU core. */
export interface ToolGateConfig {
  concurrency: number;
  queueSize: number;
  queueTimeoutMs: number;
}

/** A supervised engine's pool, resolved: counts, milliseconds and bytes. */
export interface EngineConfig {
  enabled: boolean;
  workers: number;
  queueSize: number;
  queueTimeoutMs: number;
  timeoutMs: number;
  maxJobs: number;
  maxMemoryBytes: number;
  /** Hard cap of a worker's memory while it runs a job (0 = none). */
  memoryLimitBytes: number;
  healthIntervalMs: number;
  executable: string;
}

/** One problem of a configuration: the key it concerns (dotted, `users[0].name`), where the value came from, and why. */
export interface ConfigIssue {
  key: string;
  /** e.g. "from QUIRE_SESSION__LIFETIME" or "in /etc/quire.yaml"; empty when the value came from neither. */
  origin: string;
  message: string;
}

export class ConfigError extends Error {
  /** Every issue as one line: `key (origin): message`. */
  readonly problems: string[];

  constructor(readonly issues: ConfigIssue[]) {
    const problems = issues.map((i) => `${i.key}${i.origin ? ` (${i.origin})` : ''}: ${i.message}`);
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** The file Quire reads when QUIRE_CONFIG is unset (if it exists), and where the administration writes then. */
export const DATA_DIR_CONFIG_FILE = 'quire.yaml';

/** Environment variables with a meaning of their own, not mapped onto a configuration key. */
const RESERVED_ENV = new Set(['QUIRE_CONFIG', 'QUIRE_ADMIN_PASSWORD']);
/** Short names kept for convenience, each mapped onto a key. */
const ENV_ALIASES: Record<string, string[]> = { PORT: ['server', 'port'] };

type Env = Record<string, string | undefined>;

/**
 * Loads the configuration: defaults, then the YAML file, then environment overrides. The file is the
 * one QUIRE_CONFIG names, or else `<dataDir>/quire.yaml` when it exists (the file the configuration
 * administration writes). Any `QUIRE_<KEY>` variable sets a key; nested keys are joined by `__` and
 * written in upper snake case (`QUIRE_SESSION__LIFETIME`, `QUIRE_LIMITS__ANONYMOUS__UPLOAD_LIMIT`).
 * Values are read as YAML scalars, so lists can be given as `[a, b]`. Throws ConfigError naming every bad key.
 */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const dataDirFile = path.join(path.resolve(cwd, env.QUIRE_DATA_DIR ?? DEFAULT_DATA_DIR), DATA_DIR_CONFIG_FILE);
  const configFile = env.QUIRE_CONFIG ? path.resolve(cwd, env.QUIRE_CONFIG) : existsSync(dataDirFile) ? dataDirFile : undefined;
  const raw = configFile ? readYamlFile(configFile) : {};
  // The data dir cannot be moved by a file that lives inside it: the next start would not find the file.
  if (!env.QUIRE_CONFIG && configFile && raw.dataDir !== undefined) {
    throw new ConfigError([{ key: 'dataDir', origin: `in ${configFile}`, message: 'cannot be set in the file inside the data dir; use QUIRE_DATA_DIR' }]);
  }
  return buildConfig(raw, { configFile, env, cwd });
}

/**
 * The loader's checks and resolution for configuration content already read: `file` (the file's
 * mapping; left unchanged) plus the environment overrides of `env`. The configuration administration validates a
 * file it is about to write through this, so both paths apply the same rules.
 */
export function buildConfig(file: Record<string, unknown>, options: { configFile: string | undefined; env: Env; cwd: string }): Config {
  const { configFile, env, cwd } = options;
  const raw = structuredClone(file);
  const sources = new Map<string, string>();
  const issues: ConfigIssue[] = [];
  const fileOrigin = configFile ? `in ${configFile}` : '';
  const ignoredEnvironment: string[] = [];

  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const keyPath = ENV_ALIASES[name] ?? envKeyPath(name);
    if (!keyPath) continue;
    const target = schemaAt(CONFIG_TREE, keyPath);
    if (!target) {
      // The environment is shared with deployment tools that use the prefix too (QUIRE_VERSION): a
      // warning, not a refusal to start. A key the file does not know stays an error (the schema's).
      ignoredEnvironment.push(name);
      continue;
    }
    setPath(raw, keyPath, acceptsOnlyStrings(target) ? value : parseScalar(value));
    sources.set(keyPath.join('.'), name);
  }

  const { value: withDefaults, errors } = checkConfig(raw);
  if (errors.length > 0) {
    const seen = new Set<string>();
    for (const error of errors) {
      const key = pointerToKey(error.instancePath, error.params);
      if (seen.has(key)) continue;
      seen.add(key);
      const origin = sources.get(key) ? `from ${sources.get(key)}` : fileOrigin;
      const node = schemaAt(
        CONFIG_TREE,
        key
          .replace(/\[(\d+)\]/g, '.$1')
          .split('.')
          .filter(Boolean),
      );
      issues.push({ key: key || '(root)', origin, message: describe(error.keyword, error.message, error.params, node) });
    }
    throw new ConfigError(issues);
  }
  return resolve(withDefaults as RawConfig, configFile, env, cwd, Object.fromEntries(sources), ignoredEnvironment.sort());
}

function resolve(raw: RawConfig, configFile: string | undefined, env: Env, cwd: string, overrides: Record<string, string>, ignoredEnvironment: string[]): Config {
  const limits = (l: RawConfig['limits']['user']): Limits => ({
    uploadLimit: parseSize(l.uploadLimit),
    maxFiles: l.maxFiles,
    diskSpaceLimit: parseSize(l.diskSpaceLimit),
  });
  const contextPath = raw.server.contextPath;
  const names = new Set<string>();
  const issues: ConfigIssue[] = [];
  const origin = (key: string) => (overrides[key] ? `from ${overrides[key]}` : configFile ? `in ${configFile}` : '');
  raw.users.forEach((u, i) => {
    if (names.has(u.name)) issues.push({ key: `users[${i}].name`, origin: origin('users'), message: `duplicate user name "${u.name}"` });
    names.add(u.name);
  });
  const ids = new Set<string>();
  raw.oauth.providers.forEach((p, i) => {
    if (ids.has(p.id)) issues.push({ key: `oauth.providers[${i}].id`, origin: origin('oauth.providers'), message: `duplicate provider id "${p.id}"` });
    ids.add(p.id);
  });
  const minFreeSpace = freeSpaceFloor(raw.documents.minFreeSpace);
  if (minFreeSpace.percent > 100) issues.push({ key: 'documents.minFreeSpace', origin: origin('documents.minFreeSpace'), message: 'a percentage of the disk cannot exceed 100%' });
  if (issues.length > 0) throw new ConfigError(issues);
  const login = raw.security.login;
  const cpus = raw.server.cpus === 0 ? Math.max(1, availableParallelism()) : raw.server.cpus;
  return {
    dataDir: path.resolve(cwd, raw.dataDir),
    configFile,
    server: {
      host: raw.server.host,
      port: raw.server.port,
      contextPath,
      hostName: raw.server.hostName,
      restBase: `${contextPath}/rest`,
      shutdownTimeoutMs: raw.server.shutdownTimeout * 1000,
      cpus,
      jsonBodyLimit: parseSize(raw.server.jsonBodyLimit),
      debug: raw.server.debug,
      trustProxy: raw.server.trustProxy,
      headersTimeoutMs: Math.round(raw.server.headersTimeout * 1000),
      requestTimeoutMs: Math.round(raw.server.requestTimeout * 1000),
      minUploadRate: parseSize(raw.server.minUploadRate),
      uploadRateWindowMs: Math.round(raw.server.uploadRateWindow * 1000),
      drainLimit: parseSize(raw.server.drainLimit),
      drainTimeoutMs: Math.round(raw.server.drainTimeout * 1000),
      portal: { enabled: raw.server.portal.enabled, directory: raw.server.portal.directory === '' ? '' : path.resolve(cwd, raw.server.portal.directory) },
    },
    https: raw.https,
    log: { level: raw.log.level, console: raw.log.console, retentionDays: raw.log.retentionDays },
    metrics: { public: raw.metrics.public },
    security: {
      login: {
        maxFailures: login.maxFailures,
        windowMs: Math.round(login.window * 1000),
        lockoutMs: Math.round(login.lockout * 1000),
        maxLockoutMs: Math.round(Math.max(login.maxLockout, login.lockout) * 1000),
        userMaxFailures: login.userMaxFailures,
        userMaxLockoutMs: Math.round(login.userMaxLockout * 1000),
        // Password hashing is CPU-bound: half the cores leave the other half to conversions.
        maxConcurrentHashes: login.maxConcurrentHashes === 0 ? Math.max(1, Math.floor(cpus / 2)) : login.maxConcurrentHashes,
        maxWaitingHashes: login.maxWaitingHashes,
      },
      anonymousSessionsPerAddress: raw.security.anonymousSessionsPerAddress,
    },
    statistics: { flushIntervalMs: Math.round(raw.statistics.flushInterval * 1000), retentionDays: raw.statistics.retentionDays },
    datastore: { maxFileSize: parseSize(raw.datastore.maxFileSize) },
    queue: {
      maxPending: raw.queue.maxPending,
      jobWorkers: raw.queue.jobWorkers === 0 ? cpus : raw.queue.jobWorkers,
      maxAttempts: raw.queue.maxAttempts,
      retryDelayMs: Math.round(raw.queue.retryDelay * 1000),
      maxRetryDelayMs: Math.round(raw.queue.maxRetryDelay * 1000),
      keepResultsMs: Math.round(raw.queue.keepResults * 1000),
    },
    webhooks: {
      secret: raw.webhooks.secret,
      maxAttempts: raw.webhooks.maxAttempts,
      retryDelayMs: Math.round(raw.webhooks.retryDelay * 1000),
      maxRetryDelayMs: Math.round(raw.webhooks.maxRetryDelay * 1000),
      timeoutMs: Math.round(raw.webhooks.timeout * 1000),
    },
    anonymous: raw.anonymous,
    session: {
      lifetime: raw.session.lifetime,
      sweepIntervalMs: Math.round(raw.session.sweepInterval * 1000),
      maxSessions: raw.session.maxSessions,
      issuer: raw.session.issuer,
    },
    limits: { user: limits(raw.limits.user), anonymous: limits(raw.limits.anonymous) },
    documents: {
      metadataBudgetMs: Math.round(raw.documents.metadataBudget * 1000),
      toolTimeoutMs: Math.round(raw.documents.toolTimeout * 1000),
      minFreeSpace,
      archive: { ...raw.documents.archive },
    },
    engines: {
      libreoffice: { ...engine(raw.engines.libreoffice, cpus), isolation: raw.engines.libreoffice.isolation },
      chromium: engine(raw.engines.chromium, cpus),
      tesseract: { ...engine(raw.engines.tesseract, cpus), tessdata: raw.engines.tesseract.tessdata },
      python: raw.engines.python,
      qpdf: tool(raw.engines.qpdf),
      poppler: { directory: raw.engines.poppler.directory, maxMemoryBytes: parseSize(raw.engines.poppler.maxMemory) },
      gates: {
        qpdf: gate(raw.engines.qpdf),
        poppler: gate(raw.engines.poppler),
        ghostscript: typeof raw.engines.ghostscript === 'string' ? gate({ concurrency: 0, queueSize: 1000, queueTimeout: 120 }) : gate(raw.engines.ghostscript),
      },
      // The old form, a plain string, is the executable under the default cap.
      ghostscript: tool(typeof raw.engines.ghostscript === 'string' ? { executable: raw.engines.ghostscript, maxMemory: '2GB' } : raw.engines.ghostscript),
      print: { maxMemoryBytes: parseSize(raw.engines.print.maxMemory) },
    },
    network: { allowInternal: raw.network.allowInternal, allowHosts: [...raw.network.allowHosts] },
    converter: {
      timeoutMs: Math.round((raw.converter.timeout || Math.max(raw.engines.libreoffice.timeout, raw.engines.chromium.timeout)) * 1000),
    },
    urlconverter: {
      timeoutMs: Math.round(raw.urlconverter.timeout * 1000),
      networkIdleTimeoutMs: Math.round(raw.urlconverter.networkIdleTimeout * 1000),
      maxBytes: parseSize(raw.urlconverter.maxBytes),
      maxRequests: raw.urlconverter.maxRequests,
      maxPages: raw.urlconverter.maxPages,
    },
    barcode: {
      timeoutMs: Math.round(raw.barcode.timeout * 1000),
      detectWorkers: raw.barcode.detectWorkers,
      detectQueue: raw.barcode.detectQueue,
      detectTimeoutMs: Math.round(raw.barcode.detectTimeout * 1000),
      detectMemoryMb: raw.barcode.detectMemory,
    },
    ocr: { timeoutMs: Math.round(raw.ocr.timeout * 1000) },
    toolbox: {
      timeoutMs: Math.round(raw.toolbox.timeout * 1000),
      printCommand: [...raw.toolbox.printCommand],
      memoryScratchDir: raw.toolbox.memoryScratchDir,
      memoryScratchBudget: parseSize(raw.toolbox.memoryScratchBudget),
    },
    users: raw.users.map((u) => ({ name: u.name, password: u.password, roles: [...new Set(u.roles)] })),
    oauth: { providers: raw.oauth.providers },
    cluster: {
      mode: raw.cluster.mode,
      redis: {
        url: raw.cluster.redis.url,
        keyPrefix: raw.cluster.redis.keyPrefix,
        commandTimeoutMs: Math.round(raw.cluster.redis.commandTimeout * 1000),
        cacheEntries: raw.cluster.redis.cacheEntries,
      },
      queue: { lockDurationMs: Math.round(raw.cluster.queue.lockDuration * 1000) },
      node: {
        id: raw.cluster.node.id,
        role: raw.cluster.node.role,
        address: raw.cluster.node.address,
        heartbeatIntervalMs: Math.round(raw.cluster.node.heartbeatInterval * 1000),
        missedHeartbeats: raw.cluster.node.missedHeartbeats,
      },
    },
    portal: structuredClone(raw.portal),
    truststore: { file: raw.truststore.file, password: raw.truststore.password },
    keystore: { type: raw.keystore.type },
    signature: raw.signature,
    adminPassword: env.QUIRE_ADMIN_PASSWORD || undefined,
    overrides,
    ignoredEnvironment,
  };
}

/** `documents.minFreeSpace`: a size, or a percentage of the disk ("5%"). */
function freeSpaceFloor(value: number | string): { bytes: number; percent: number } {
  const percent = typeof value === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(value) : null;
  return percent ? { bytes: 0, percent: Number(percent[1]) } : { bytes: parseSize(value), percent: 0 };
}

function engine(raw: RawConfig['engines']['chromium'], cpus: number): EngineConfig {
  return {
    enabled: raw.enabled,
    workers: raw.workers === 0 ? cpus : raw.workers,
    queueSize: raw.queueSize,
    queueTimeoutMs: Math.round(raw.queueTimeout * 1000),
    timeoutMs: Math.round(raw.timeout * 1000),
    maxJobs: raw.maxJobs,
    maxMemoryBytes: parseSize(raw.maxMemory),
    memoryLimitBytes: parseSize(raw.memoryLimit),
    healthIntervalMs: Math.round(raw.healthInterval * 1000),
    executable: raw.executable,
  };
}

function tool(raw: { executable: string; maxMemory: number | string }): ToolConfig {
  return { executable: raw.executable, maxMemoryBytes: parseSize(raw.maxMemory) };
}

function gate(raw: { concurrency: number; queueSize: number; queueTimeout: number }): ToolGateConfig {
  return { concurrency: raw.concurrency, queueSize: raw.queueSize, queueTimeoutMs: Math.round(raw.queueTimeout * 1000) };
}

function readYamlFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([{ key: 'QUIRE_CONFIG', origin: '', message: `cannot read ${file}: ${(error as Error).message}` }]);
  }
  let parsed: unknown;
  try {
    parsed = YAML.parse(text);
  } catch (error) {
    throw new ConfigError([{ key: file, origin: '', message: `not valid YAML: ${(error as Error).message}` }]);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError([{ key: file, origin: '', message: 'the top level must be a mapping of keys' }]);
  }
  return parsed as Record<string, unknown>;
}

function envKeyPath(name: string): string[] | undefined {
  if (!name.startsWith('QUIRE_') || RESERVED_ENV.has(name)) return undefined;
  return name
    .slice('QUIRE_'.length)
    .split('__')
    .map((segment) => segment.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()));
}

const CONFIG_TREE = ConfigSchema as unknown as SchemaNode;

function schemaAt(schema: SchemaNode, keyPath: string[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = schema;
  for (const key of keyPath) {
    if (node?.items && /^\d+$/.test(key)) {
      node = node.items;
      continue;
    }
    const object: SchemaNode | undefined = node?.properties ? node : node?.anyOf?.find((s) => s.properties);
    node = object?.properties?.[key];
    if (!node) return undefined;
  }
  return node;
}

function acceptsOnlyStrings(node: SchemaNode): boolean {
  return node.type === 'string';
}

function parseScalar(value: string): unknown {
  try {
    return YAML.parse(value);
  } catch {
    return value;
  }
}

function setPath(target: Record<string, unknown>, keyPath: string[], value: unknown): void {
  let node = target;
  keyPath.slice(0, -1).forEach((key) => {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  });
  node[keyPath[keyPath.length - 1]!] = value;
}

function pointerToKey(pointer: string, params: unknown): string {
  const parts = pointer
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const extra = (params as { additionalProperties?: string[] } | undefined)?.additionalProperties;
  if (Array.isArray(extra) && extra.length > 0) parts.push(extra[0]!);
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function describe(keyword: string, message: string, params: unknown, node: SchemaNode | undefined): string {
  // TypeBox reports a key that additionalProperties: false forbids as "schema is false" at the key's own path.
  if (keyword === 'additionalProperties' || message === 'schema is false') return 'unknown key';
  if (node?.description && ['type', 'pattern', 'anyOf', 'oneOf'].includes(keyword)) {
    return `invalid value; expected ${node.description}`;
  }
  const allowed = (params as { allowedValues?: unknown[] } | undefined)?.allowedValues;
  return allowed ? `${message}: ${allowed.join(', ')}` : message;
}
