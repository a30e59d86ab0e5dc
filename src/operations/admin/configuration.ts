import path from 'node:path';
import type { BuiltInUserSource } from '../../auth/users.js';
import { ConfigError, DATA_DIR_CONFIG_FILE, loadConfig, type Config, type ConfigIssue } from '../../config/load.js';
import { redactConfig } from '../../config/redact.js';
import { checkConfigText, editConfigText, readConfigText, restoreConfigFile, writeConfigFile } from '../../config/write.js';
import { Errors, type ErrorName } from '../../core/errors.js';
import type { Session } from '../../sessions/session.js';
import { applicationSection } from './configuration-application.js';
import { runChecks } from './configuration-checks.js';
import { clusterSection } from './configuration-cluster.js';
import type { ConfigurationSection, FieldEdit, SectionChanges, SectionContext } from './configuration-fields.js';
import { logSection } from './configuration-log.js';
import { providerSection } from './configuration-provider.js';
import { serverSection } from './configuration-server.js';
import { userSection } from './configuration-user.js';
import type { ConfigurationEnvelope, ConfigurationMode, ConfigurationProblem, ConfigurationResult, ConfigurationType, ConfigurationView, WireObject } from './configuration-wire.js';

export interface ConfigurationDeps {
  config: Config;
  logger: { level: string; info(details: object, message: string): void };
  users: BuiltInUserSource;
  sessions: { list(): Promise<Session[]>; close(sessionId: string): Promise<boolean> };
  /** How a restart reads the configuration (server option); also gives the effective configuration after a write. */
  reloadConfig?: (() => Config) | undefined;
  /** Cluster mode: a write is stored centrally and published so that every node applies it (src/cluster/config-sync.ts). */
  central?: { publish(text: string, keys: string[]): Promise<void> } | undefined;
}

const SECTIONS: Record<ConfigurationType, ConfigurationSection> = {
  application: applicationSection,
  server: serverSection,
  user: userSection,
  log: logSection,
  cluster: clusterSection,
  provider: providerSection,
};

/**
 * Keys a write applies to the running server at once (prefixes); everything else waits for a restart.
 * The host name, portal, trust store and key store type change nothing the server does yet: they are
 * live so that a client reads back at once what it wrote.
 */
const LIVE_KEYS = ['users', 'anonymous', 'session.lifetime', 'limits', 'log.level', 'server.hostName', 'portal', 'truststore', 'keystore', 'signature.keyStore', 'signature.tsa'];
/**
 * Keys copied into the running configuration at once so that a client reads back what it wrote, though
 * only a restart makes them work (the cluster's stores, Redis connections and node role are set up at
 * start): the answer lists them among the keys a restart applies.
 */
const SHOWN_AT_ONCE = ['cluster'];

const within = (key: string, prefix: string) => key === prefix || key.startsWith(`${prefix}.`) || key.startsWith(`${prefix}[`);

/**
 * The configuration administration: our configuration in the reference's envelopes (GET), checked
 * (`validate`) or checked, written to the YAML file and applied as far as possible (`write`).
 * Writes run one at a time. The file is the one the server read (QUIRE_CONFIG), or
 * `<dataDir>/quire.yaml`, which the loader reads when QUIRE_CONFIG is unset.
 */
export class ConfigurationService {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly deps: ConfigurationDeps) {}

  /** The file a write goes to. */
  get file(): string {
    return this.deps.config.configFile ?? path.join(this.deps.config.dataDir, DATA_DIR_CONFIG_FILE);
  }

  read(type: ConfigurationType): ConfigurationView {
    const { configuration, extras } = SECTIONS[type].read(this.context());
    return { configurationType: type, configurationMode: 'validate', configuration, configurationChecks: [], ...extras };
  }

  /** Validates, or validates and writes, a posted envelope; `callerSessionId` keeps the caller's own session open. */
  submit(envelope: ConfigurationEnvelope, callerSessionId: string): Promise<ConfigurationResult> {
    const run = this.queue.then(() => this.process(envelope, callerSessionId));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private context(): SectionContext {
    const { config, users } = this.deps;
    return { config, shown: redactConfig(config), users: users.records() };
  }

  private async process(envelope: ConfigurationEnvelope, callerSessionId: string): Promise<ConfigurationResult> {
    const { configurationType: type, configurationMode: mode } = envelope;
    const changes = await SECTIONS[type].changes(envelope.configuration, this.context(), mode, envelope as unknown as WireObject);
    const problems = [...changes.problems, ...conflicts(changes.edits)];
    const file = this.file;
    const result = (error: ErrorName | undefined, description: string, extra: Partial<ConfigurationResult> = {}) => this.result(mode, file, error, description, { problems, ...extra });

    let after: string;
    try {
      after = editConfigText(await readConfigText(file), changes.edits);
    } catch (error) {
      return result('CONFIGURATION_WRITE_FAILED', `The configuration file ${file} cannot be read: ${(error as Error).message}`);
    }
    if (changes.edits.length > 0) {
      // A field the section already objected to is not reported a second time in the loader's words.
      const reported = new Set(problems.map((p) => p.field));
      problems.push(
        ...checkConfigText(after)
          .map((issue) => problemOf(issue, changes))
          .filter((p) => !p.field || !reported.has(p.field)),
      );
    }

    const checks = await runChecks(type, envelope.configurationChecks ?? [], {
      config: this.deps.config,
      users: this.deps.users,
      posted: envelope.configuration,
      envelope: envelope as unknown as WireObject,
    });
    const executableError = checks.executableError ? { executableError: checks.executableError } : {};
    if (problems.length > 0) return result('CONFIGURATION_INVALID', `The configuration is not valid; nothing was saved. ${summary(problems)}`, executableError);
    if (checks.failed.length > 0 || checks.tsa.length > 0 || checks.unavailable.length > 0 || checks.unsupported.length > 0) {
      const failures = [...checks.failed, ...checks.tsa, ...checks.unavailable, ...checks.unsupported];
      // A check that ran and failed says the most; then a program that cannot exist here (-47, as webPDF answers).
      const error =
        checks.failed.length > 0
          ? 'CONFIGURATION_CHECK_FAILED'
          : checks.tsa.length > 0
            ? 'TSA_CHECK_FAILED'
            : checks.unavailable.length > 0
              ? 'EXECUTABLE_UNAVAILABLE'
              : 'CONFIGURATION_CHECK_UNSUPPORTED';
      return result(error, `A check did not pass; nothing was saved. ${summary(failures)}`, { problems: failures, ...executableError });
    }
    if (mode === 'validate') {
      const changed = [...changes.edits, ...(changes.files ?? [])];
      const pending = changed.length > 0 ? ` It changes ${keysOf(changed).join(', ')}; nothing was saved.` : ' It changes nothing.';
      return result(undefined, `The configuration is valid.${pending}`);
    }
    if (changes.edits.length === 0 && !changes.files?.length) return result(undefined, 'Nothing changed; the file was not written.');
    return this.write(file, after, changes, callerSessionId, result);
  }

  private async write(
    file: string,
    text: string,
    changes: SectionChanges,
    callerSessionId: string,
    result: (error: ErrorName | undefined, description: string, extra?: Partial<ConfigurationResult>) => ConfigurationResult,
  ): Promise<ConfigurationResult> {
    let backup: string | undefined;
    try {
      // Files the new settings name first: a configuration must never point at a file not written yet.
      for (const extra of changes.files ?? []) await extra.write();
      ({ backup } = await writeConfigFile(file, text));
    } catch (error) {
      return result('CONFIGURATION_WRITE_FAILED', `The configuration file ${file} cannot be written: ${(error as Error).message}`);
    }
    let next: Config;
    try {
      next = (this.deps.reloadConfig ?? (() => loadConfig()))();
    } catch (error) {
      // The file is valid on its own but not together with the environment: the next start would fail. Undo.
      await restoreConfigFile(file, backup);
      if (!(error instanceof ConfigError)) throw error;
      const problems = error.issues.map((issue) => problemOf(issue, changes));
      return result('CONFIGURATION_INVALID', `The configuration does not load together with the environment; nothing was saved. ${summary(problems)}`, { problems });
    }

    const keys = keysOf([...changes.edits, ...(changes.files ?? [])]);
    const { overridden, live, restartKeys } = splitKeys(keys, next);
    const shown = restartKeys.filter((key) => SHOWN_AT_ONCE.some((prefix) => within(key, prefix)));
    await this.applyLive([...live, ...shown], next, changes.endSessionsOf ?? [], callerSessionId);
    this.deps.logger.info({ file, keys, live, restartKeys }, 'configuration written');
    const unpublished = await this.publish(text, keys);

    const created = this.deps.config.configFile === undefined;
    this.deps.config.configFile = next.configFile;
    const notes = [
      created ? `Created ${file}; Quire reads it at start while QUIRE_CONFIG is unset.` : `Written to ${file}${backup ? ` (the previous version is ${backup})` : ''}.`,
      live.length > 0 ? `Applied at once: ${live.join(', ')}.` : '',
      restartKeys.length > 0 ? `Takes effect after a restart (GET admin/server/restart): ${restartKeys.join(', ')}.` : '',
      overridden.length > 0 ? `Set by the environment, which wins over the file: ${overridden.map((o) => `${o.key} (${o.variable})`).join(', ')}.` : '',
      unpublished,
    ];
    return result(undefined, notes.filter(Boolean).join(' '), { restartRequired: restartKeys.length > 0, restartKeys, overridden });
  }

  /** Cluster mode: tells the other nodes; a failure leaves this node's write in place and is said in the answer. */
  private async publish(text: string, keys: string[]): Promise<string> {
    if (!this.deps.central) return '';
    try {
      await this.deps.central.publish(text, keys);
      return 'Published to every node of the cluster.';
    } catch (error) {
      this.deps.logger.info({ err: error }, 'configuration written on this node only: the cluster store is not available');
      return `Not published to the other nodes (the cluster store is not available: ${(error as Error).message}); write it again when it is back.`;
    }
  }

  /**
   * Cluster mode: the configuration another node wrote (config-sync.ts). It becomes this node's file
   * (unless the nodes share it), and its live keys apply at once; `keys` undefined applies every live
   * key (writes were missed). Sessions are shared in cluster mode: the writing node ended those a
   * change of users ends.
   */
  applyCentral(text: string, keys: string[] | undefined): Promise<void> {
    const run = this.queue.then(async () => {
      const file = this.file;
      if ((await readConfigText(file)) !== text) await writeConfigFile(file, text);
      const next = (this.deps.reloadConfig ?? (() => loadConfig()))();
      await this.applyLive(splitKeys(keys ?? LIVE_KEYS, next).live, next, [], '');
      this.deps.config.configFile = next.configFile;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Copies the live keys of the reloaded configuration into the running one (the object every service reads). */
  private async applyLive(keys: string[], next: Config, endSessionsOf: string[], callerSessionId: string): Promise<void> {
    const { config, logger, users, sessions } = this.deps;
    const has = (prefix: string) => keys.some((key) => within(key, prefix));
    if (has('users')) {
      await users.replaceUsers(next.users);
      config.users = next.users;
      // Sessions keep the roles of their login: the sessions of removed or changed users end now.
      const names = new Set(endSessionsOf);
      for (const session of await sessions.list()) {
        if (session.kind === 'user' && session.providerId === '' && names.has(session.userName) && session.id !== callerSessionId) {
          await sessions.close(session.id);
        }
      }
    }
    if (has('anonymous')) config.anonymous = next.anonymous;
    if (has('session.lifetime')) config.session.lifetime = next.session.lifetime;
    if (has('limits')) {
      Object.assign(config.limits.user, next.limits.user);
      Object.assign(config.limits.anonymous, next.limits.anonymous);
    }
    if (has('log.level')) {
      config.log.level = next.log.level;
      logger.level = next.log.level;
    }
    if (has('server.hostName')) config.server.hostName = next.server.hostName;
    if (has('cluster')) config.cluster = next.cluster;
    if (has('portal')) config.portal = next.portal;
    if (has('truststore')) config.truststore = next.truststore;
    if (has('keystore')) config.keystore = next.keystore;
    // The signature service reads these at each call (a new keyStore object makes it read the store again).
    if (has('signature.keyStore')) config.signature.keyStore = next.signature.keyStore;
    if (has('signature.tsa')) config.signature.tsa = next.signature.tsa;
  }

  private result(mode: ConfigurationMode, file: string, error: ErrorName | undefined, description: string, extra: Partial<ConfigurationResult>): ConfigurationResult {
    return {
      operation: mode,
      error: { code: error ? Errors[error].errorCode : 0, description, exitCode: 0, hideException: false },
      problems: [],
      restartRequired: false,
      restartKeys: [],
      overridden: [],
      configFile: file,
      ...extra,
    };
  }
}

/** Keys a write changed: set by the environment (the file changes nothing), applied at once, or waiting for a restart. */
function splitKeys(keys: string[], next: Config): { overridden: Array<{ key: string; variable: string }>; live: string[]; restartKeys: string[] } {
  const overridden = Object.entries(next.overrides)
    .filter(([key]) => keys.some((edited) => within(key, edited) || within(edited, key)))
    .map(([key, variable]) => ({ key, variable }));
  const isOverridden = (key: string) => overridden.some((o) => within(o.key, key) || within(key, o.key));
  const live = keys.filter((key) => LIVE_KEYS.some((prefix) => within(key, prefix)) && !isOverridden(key));
  const restartKeys = keys.filter((key) => !LIVE_KEYS.some((prefix) => within(key, prefix)) && !isOverridden(key));
  return { overridden, live, restartKeys };
}

function keysOf(edits: readonly Pick<FieldEdit, 'key'>[]): string[] {
  return [...new Set(edits.map((e) => e.key.join('.')))];
}

/** Two fields of one envelope that set the same key to different values. */
function conflicts(edits: readonly FieldEdit[]): ConfigurationProblem[] {
  const first = new Map<string, FieldEdit>();
  const problems: ConfigurationProblem[] = [];
  for (const edit of edits) {
    const key = edit.key.join('.');
    const seen = first.get(key);
    if (!seen) first.set(key, edit);
    else if (JSON.stringify(seen.value) !== JSON.stringify(edit.value)) {
      problems.push({ field: edit.field, key, message: `conflicts with ${seen.field}: both set ${key}` });
    }
  }
  return problems;
}

/** A loader issue as a problem of the posted envelope: the wire field of its key where one is known. */
function problemOf(issue: ConfigIssue, changes: SectionChanges): ConfigurationProblem {
  const field = changes.fieldOf?.(issue.key) ?? changes.edits.find((e) => within(issue.key, e.key.join('.')))?.field ?? '';
  return { field, key: issue.key, message: issue.message };
}

function summary(problems: readonly ConfigurationProblem[]): string {
  const shown = problems.slice(0, 5).map((p) => `${p.field || p.key || 'configuration'}: ${p.message}`);
  return `${shown.join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}.`;
}
