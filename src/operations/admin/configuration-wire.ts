/**
 * The wire shapes of the configuration administration (reference §11.2 and Appendix B), as far as
 * the service works with them. The HTTP layer validates requests against the full schemas.
 */
export const CONFIGURATION_TYPES = ['application', 'server', 'user', 'log', 'cluster', 'provider'] as const;
export type ConfigurationType = (typeof CONFIGURATION_TYPES)[number];
export type ConfigurationMode = 'validate' | 'write';

/** A JSON object of the wire (a `configuration` member or a part of it). */
export type WireObject = Record<string, unknown>;
export type WireScalar = string | number | boolean;

/** `Admin_*Check`: `checkType` plus the members of its subtype. */
export interface ConfigurationCheck {
  checkType: string;
  executables?: string[];
  name?: string;
  password?: string;
}

/** `Admin_*Configuration` as posted: the clients also send back the key-store members of the last GET. */
export interface ConfigurationEnvelope {
  configurationType: ConfigurationType;
  configurationMode: ConfigurationMode;
  configuration: WireObject;
  configurationChecks?: ConfigurationCheck[];
}

/** `Admin_*Configuration` as read: the envelope plus the members the reference adds per type. */
export type ConfigurationView = ConfigurationEnvelope & WireObject;

/** `Admin_ExecutableResult`. */
export interface ExecutableResult {
  applicationName: string;
  commandLine: string[];
  consoleOutput: string[];
  exitCode: number;
  isSuccessful: boolean;
  message: string;
}

/** One problem of a posted configuration or of a check: the wire field, our configuration key, why. */
export interface ConfigurationProblem {
  /** Path in the posted envelope, e.g. `configuration.localAuth.rest.accessToken.expiration`. */
  field: string;
  /** The configuration key behind it (docs/configuration.md), e.g. `session.lifetime`; empty for checks. */
  key: string;
  message: string;
}

/** `Admin_ConfigurationResult` with Quire's additions (problems, restart and override notes). */
export interface ConfigurationResult {
  operation: ConfigurationMode;
  error: { code: number; description: string; exitCode: number; hideException: boolean };
  executableError?: ExecutableResult;
  problems: ConfigurationProblem[];
  restartRequired: boolean;
  /** Keys that were written but take effect only after a restart. */
  restartKeys: string[];
  /** Keys that were written but are set by an environment variable, which wins over the file. */
  overridden: { key: string; variable: string }[];
  /** The file that was (or would be) written. */
  configFile: string;
}

/** The value at a dotted path (`connectors.connector.0.port`); undefined when any step is missing. */
export function getPath(object: unknown, path: string): unknown {
  let node: unknown = object;
  for (const segment of path.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** Sets a dotted path, creating objects (or arrays, for numeric segments) on the way. */
export function setPath(object: WireObject, path: string, value: unknown): void {
  const segments = path.split('.');
  let node: Record<string, unknown> = object;
  segments.slice(0, -1).forEach((segment, i) => {
    if (typeof node[segment] !== 'object' || node[segment] === null) node[segment] = /^\d+$/.test(segments[i + 1]!) ? [] : {};
    node = node[segment] as Record<string, unknown>;
  });
  node[segments[segments.length - 1]!] = value;
}
