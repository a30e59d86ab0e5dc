import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Config } from '../../config/load.js';
import type { UserSource } from '../../auth/users.js';
import { getPath, type ConfigurationCheck, type ConfigurationProblem, type ConfigurationType, type ExecutableResult, type WireObject } from './configuration-wire.js';

export interface CheckContext {
  config: Config;
  users: UserSource;
  /** The posted `configuration`: checks test what would be written, not what runs. */
  posted: WireObject;
}

export interface CheckOutcome {
  failed: ConfigurationProblem[];
  /** Checks this server cannot run (no TSA, no trust store, ...): reported, never passed silently. */
  unsupported: ConfigurationProblem[];
  executableError?: ExecutableResult;
}

type Verdict = { ok: true } | { ok: false; message: string; unsupported?: boolean; executable?: ExecutableResult };

const OK: Verdict = { ok: true };
const unsupported = (message: string): Verdict => ({ ok: false, message, unsupported: true });

/** Runs the requested checks of one envelope, in order; every failure is reported. */
export async function runChecks(type: ConfigurationType, checks: readonly ConfigurationCheck[], context: CheckContext): Promise<CheckOutcome> {
  const outcome: CheckOutcome = { failed: [], unsupported: [] };
  for (const [index, check] of checks.entries()) {
    const verdict = await runCheck(type, check, context);
    if (verdict.ok) continue;
    const problem = { field: `configurationChecks.${index}`, key: '', message: `${check.checkType}: ${verdict.message}` };
    (verdict.unsupported ? outcome.unsupported : outcome.failed).push(problem);
    outcome.executableError ??= verdict.executable;
  }
  return outcome;
}

async function runCheck(type: ConfigurationType, check: ConfigurationCheck, context: CheckContext): Promise<Verdict> {
  switch (`${type}/${check.checkType}`) {
    case 'application/executable':
      return executables(check.executables ?? [], context);
    case 'application/license':
      return OK; // Quire needs no license.
    case 'server/user':
      return (await context.users.authenticate(check.name ?? '', check.password ?? '')) ? OK : { ok: false, message: `the local users do not accept "${check.name ?? ''}" with this password` };
    case 'server/connector':
      return connector(context);
    case 'cluster/connect':
      return OK; // A single node has nothing to connect to.
    case 'provider/sessionStorage':
      return writable(path.join(context.config.dataDir, 'sessions'));
    case 'provider/documentStorage':
      return writable(path.join(context.config.dataDir, 'storage'));
    case 'provider/fileStorage':
      return writable(path.join(context.config.dataDir, 'datastore'));
    default:
      return unsupported('this server cannot run this check (no timestamp authority, signature key store, trust store, or user and log checks)');
  }
}

/**
 * The programs behind the executable names. `chromium` is the reference's own name; `libreoffice`,
 * `python` and `ghostscript` are Quire's additions. The reference's other names (OfficeBridge,
 * OutsideIn, ...) are not part of Quire and fail.
 */
function executablePath(name: string, context: CheckContext): string | undefined {
  const posted = getPath(context.posted, 'bridges.chromium.path');
  const engines = context.config.engines;
  switch (name) {
    case 'chromium':
      return typeof posted === 'string' ? posted : engines.chromium.executable;
    case 'libreoffice':
      return engines.libreoffice.executable;
    case 'python':
      return engines.python;
    case 'ghostscript':
      return engines.ghostscript.executable;
    default:
      return undefined;
  }
}

async function executables(names: readonly string[], context: CheckContext): Promise<Verdict> {
  for (const name of names) {
    const file = executablePath(name, context);
    const found = file === undefined ? undefined : await findExecutable(file);
    if (found) continue;
    const message = file === undefined ? `"${name}" is not part of Quire` : `"${name}": ${file} is not an executable file`;
    const executable: ExecutableResult = { applicationName: name, commandLine: file ? [file] : [], consoleOutput: [], exitCode: 0, isSuccessful: false, message };
    return { ok: false, message, executable };
  }
  return OK;
}

/** The path of an executable file: as given when it names a path, else looked up in PATH (as the engines start it). */
async function findExecutable(file: string): Promise<string | undefined> {
  const candidates = file.includes('/')
    ? [file]
    : (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, file));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here: try the next directory
    }
  }
  return undefined;
}

/** The posted listener address can be opened (the running one is open already). */
async function connector(context: CheckContext): Promise<Verdict> {
  const host = getPath(context.posted, 'connectors.connector.0.address');
  const port = getPath(context.posted, 'connectors.connector.0.port');
  const address = typeof host === 'string' ? host : context.config.server.host;
  const number = typeof port === 'number' ? port : context.config.server.port;
  if (address === context.config.server.host && number === context.config.server.port) return OK;
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: Error) => resolve({ ok: false, message: `cannot listen on ${address}:${number}: ${error.message}` }));
    probe.listen({ host: address, port: number }, () => probe.close(() => resolve(OK)));
  });
}

/** A store's folder accepts a new file (created, written, removed). */
async function writable(dir: string): Promise<Verdict> {
  const probe = path.join(dir, `.probe-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(probe, 'probe', { mode: 0o600 });
    await rm(probe);
    return OK;
  } catch (error) {
    await rm(probe, { force: true });
    return { ok: false, message: `${dir} is not writable: ${(error as Error).message}` };
  }
}
