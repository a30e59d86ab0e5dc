import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Config } from '../../config/load.js';
import { loadSharp } from '../../engines/image/load-sharp.js';
import { AddressPolicy } from '../../engines/net/address-policy.js';
import { run } from '../../engines/process/run.js';
import { PopplerRunner } from '../../engines/poppler/tool.js';
import { REDACTED } from '../../config/redact.js';
import { requestTimeStamp } from '../../engines/signature/tsa.js';
import { trustStoreChanges } from './configuration-truststore.js';
import type { UserSource } from '../../auth/users.js';
import { getPath, type ConfigurationCheck, type ConfigurationProblem, type ConfigurationType, type ExecutableResult, type WireObject } from './configuration-wire.js';

export interface CheckContext {
  config: Config;
  users: UserSource;
  /** The posted `configuration`: checks test what would be written, not what runs. */
  posted: WireObject;
  /** The whole posted envelope (the trust store's content is beside `configuration`). */
  envelope?: WireObject;
}

export interface CheckOutcome {
  failed: ConfigurationProblem[];
  /** Checks this server cannot run (no TSA, no trust store, ...): reported, never passed silently. */
  unsupported: ConfigurationProblem[];
  /** Executables that cannot exist here (webPDF's Windows-only bridges, ...): -47. */
  unavailable: ConfigurationProblem[];
  /** The time-stamp authority gave no token: -34, as webPDF answers. */
  tsa: ConfigurationProblem[];
  executableError?: ExecutableResult;
}

type Verdict = { ok: true } | { ok: false; message: string; unsupported?: boolean; unavailable?: boolean; tsa?: boolean; executable?: ExecutableResult };

const OK: Verdict = { ok: true };
const unsupported = (message: string): Verdict => ({ ok: false, message, unsupported: true });

/** Runs the requested checks of one envelope, in order; every failure is reported. */
export async function runChecks(type: ConfigurationType, checks: readonly ConfigurationCheck[], context: CheckContext): Promise<CheckOutcome> {
  const outcome: CheckOutcome = { failed: [], unsupported: [], unavailable: [], tsa: [] };
  for (const [index, check] of checks.entries()) {
    const verdict = await runCheck(type, check, context);
    if (verdict.ok) continue;
    const problem = { field: `configurationChecks.${index}`, key: '', message: `${check.checkType}: ${verdict.message}` };
    (verdict.unsupported ? outcome.unsupported : verdict.unavailable ? outcome.unavailable : verdict.tsa ? outcome.tsa : outcome.failed).push(problem);
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
    case 'application/tsa':
      return timeStampAuthority(context);
    case 'server/user':
      return (await context.users.authenticate(check.name ?? '', check.password ?? '')) ? OK : { ok: false, message: `the local users do not accept "${check.name ?? ''}" with this password` };
    case 'server/connector':
      return connector(context);
    case 'server/truststore':
      return trustStore(context);
    case 'cluster/connect':
      return OK; // A single node has nothing to connect to.
    case 'provider/sessionStorage':
      return writable(path.join(context.config.dataDir, 'sessions'));
    case 'provider/documentStorage':
      return writable(path.join(context.config.dataDir, 'storage'));
    case 'provider/fileStorage':
      return writable(path.join(context.config.dataDir, 'datastore'));
    default:
      return unsupported('this server cannot run this check (no signature key store, user or log checks)');
  }
}

/**
 * The TSA check: asks the posted authority (`tsa.url`, else `signature.tsa.url`) for a real RFC 3161
 * token over random bytes, through the outbound address policy, as a signature would.
 */
async function timeStampAuthority(context: CheckContext): Promise<Verdict> {
  const posted = (key: string) => {
    const value = getPath(context.posted, `tsa.${key}`);
    return typeof value === 'string' ? value : undefined;
  };
  const configured = context.config.signature.tsa;
  const url = posted('url') ?? configured.url;
  if (!url) return { ok: false, message: 'no time-stamp authority is configured (tsa.url)', tsa: true };
  const hash = posted('hashAlgorithm');
  try {
    await requestTimeStamp(randomBytes(32), {
      url,
      hash: hash === 'SHA-384' || hash === 'SHA-512' || hash === 'SHA-256' ? hash : configured.hashAlgorithm,
      user: posted('user') ?? configured.user,
      // As read, the password is "[redacted]": that means the configured one.
      password: posted('password') === REDACTED ? configured.password : (posted('password') ?? configured.password),
      timeoutMs: Math.round(configured.timeout * 1000),
      policy: new AddressPolicy(context.config.network),
    });
    return OK;
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error), tsa: true };
  }
}

/** How long one version probe may take, and the address space it may use (a `--version` needs little). */
const PROBE_TIMEOUT_MS = 10_000;
const PROBE_MEMORY_BYTES = 1024 * 1024 * 1024;

/** One program a check starts: its path, the arguments that make it print its version, and what that version looks like. */
interface Probe {
  /** The configuration key that names the program (for the message). */
  setting: string;
  file: string;
  args: string[];
  expect: RegExp;
  /** Address-space cap of the probe; default PROBE_MEMORY_BYTES. */
  maxMemoryBytes?: number;
}

/**
 * The webPDF executable names (`Admin_ExecutableName`) mapped onto the Quire engines that do the same
 * job (docs/administration.md, "Executable checks"): `outsideIn` (Office formats) is LibreOffice and
 * the Python that drives it over UNO; `pdftools` is qpdf, poppler and Ghostscript; `chromium` is the
 * Chromium of `bridges.chromium.path` as posted, else the configured one. `libreoffice`, `python` and
 * `ghostscript` are Quire's own names. `imageMagick` (images) is sharp/libvips and `fisimple` (file
 * identification) the format detection, both inside the server process: nothing to start. Names
 * without a counterpart (`UNAVAILABLE`) answer -47.
 */
function probesOf(name: string, context: CheckContext): Probe[] | 'in-process' | undefined {
  const posted = getPath(context.posted, 'bridges.chromium.path');
  const engines = context.config.engines;
  const libreoffice: Probe = { setting: 'engines.libreoffice.executable', file: engines.libreoffice.executable, args: ['--version'], expect: /LibreOffice \d/ };
  // The driver needs the uno module (python3-uno), not only a Python.
  const python: Probe = { setting: 'engines.python', file: engines.python, args: ['-c', 'import sys, uno; print("Python", sys.version.split()[0], "uno")'], expect: /^Python \S+ uno/m };
  const ghostscript: Probe = { setting: 'engines.ghostscript.executable', file: engines.ghostscript.executable, args: ['--version'], expect: /^\d+\.\d+/m };
  switch (name) {
    case 'outsideIn':
      return [libreoffice, python];
    case 'pdftools':
      return [
        { setting: 'engines.qpdf.executable', file: engines.qpdf.executable, args: ['--version'], expect: /qpdf version/i },
        { setting: 'engines.poppler.directory', file: new PopplerRunner({ directory: engines.poppler.directory }).executable('pdftotext'), args: ['-v'], expect: /pdftotext version/i },
        ghostscript,
      ];
    case 'chromium':
      return [
        {
          setting: 'engines.chromium.executable',
          file: typeof posted === 'string' ? posted : engines.chromium.executable,
          args: ['--version'],
          expect: /Chrom(e|ium) \d/,
          // V8 reserves tens of GB of address space at start (SIGTRAP under a 16 GB RLIMIT_AS), even for
          // --version; the Chromium pool caps memory by polling for the same reason. The time cap stays.
          maxMemoryBytes: 0,
        },
      ];
    case 'libreoffice':
      return [libreoffice];
    case 'python':
      return [python];
    case 'ghostscript':
      return [ghostscript];
    case 'imageMagick':
    case 'fisimple':
      return 'in-process';
    default:
      return undefined;
  }
}

/** webPDF executables with no counterpart here, and why (the -47 message). */
const UNAVAILABLE: Record<string, string> = {
  officeBridge: 'the Microsoft Office bridge runs only on Windows with Office installed; Quire converts Office formats with LibreOffice (check "outsideIn")',
  sharePointBridge: 'the SharePoint bridge runs only on Windows; Quire has none',
  tesseract: 'Quire has no OCR engine (the ocr web service is not offered)',
};

/**
 * Every named program is checked; the verdict is a failure when one that should be here failed, else
 * "unavailable" (-47) when one cannot exist here. The message names every program that did not pass;
 * `executableError` describes the first of the deciding kind.
 */
async function executables(names: readonly string[], context: CheckContext): Promise<Verdict> {
  const failures: ExecutableResult[] = [];
  const unavailable: ExecutableResult[] = [];
  for (const name of names) {
    const probes = probesOf(name, context);
    if (probes === 'in-process') {
      const problem = await inProcess(name);
      if (problem) failures.push(problem);
    } else if (probes === undefined) {
      const message = `"${name}" cannot run on this server: ${UNAVAILABLE[name] ?? 'it is not part of Quire'}`;
      unavailable.push({ applicationName: name, commandLine: [], consoleOutput: [], exitCode: 0, isSuccessful: false, message });
    } else {
      for (const probe of probes) {
        const failure = await versionProbe(name, probe);
        if (failure) {
          failures.push(failure);
          break;
        }
      }
    }
  }
  const deciding = failures[0] ?? unavailable[0];
  if (!deciding) return OK;
  const message = [...failures, ...unavailable].map((result) => result.message).join('; ');
  return { ok: false, message, unavailable: failures.length === 0, executable: deciding };
}

/** An in-process engine: the image engine's native module (sharp/libvips) loads; format detection is plain code. */
async function inProcess(name: string): Promise<ExecutableResult | undefined> {
  if (name !== 'imageMagick') return undefined;
  try {
    const sharp = await loadSharp();
    if (typeof sharp.versions.vips === 'string') return undefined;
  } catch (error) {
    return { applicationName: name, commandLine: [], consoleOutput: [], exitCode: 0, isSuccessful: false, message: `"${name}": the image engine (sharp) does not load: ${(error as Error).message}` };
  }
  return { applicationName: name, commandLine: [], consoleOutput: [], exitCode: 0, isSuccessful: false, message: `"${name}": the image engine (sharp) reports no libvips version` };
}

/** Starts the program once with its version arguments: undefined when it answers as expected, else what went wrong. */
async function versionProbe(name: string, probe: Probe): Promise<ExecutableResult | undefined> {
  const commandLine = [probe.file, ...probe.args];
  const failed = (message: string, exitCode = 0, consoleOutput: string[] = []): ExecutableResult => ({
    applicationName: name,
    commandLine,
    consoleOutput,
    exitCode,
    isSuccessful: false,
    message: `"${name}": ${message} (${probe.setting})`,
  });
  const found = await findExecutable(probe.file);
  if (!found) return failed(`${probe.file} is not an executable file`);
  try {
    const result = await run(found, probe.args, { timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 16 * 1024, maxMemoryBytes: probe.maxMemoryBytes ?? PROBE_MEMORY_BYTES, memorySetting: probe.setting });
    const output = `${result.stdout.toString('utf8')}\n${result.stderr}`;
    const lines = output
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .slice(0, 20);
    if (result.timedOut) return failed(`${probe.file} ${probe.args.join(' ')} did not answer within ${PROBE_TIMEOUT_MS / 1000} s`, result.exitCode ?? -1, lines);
    if (result.exitCode !== 0 || !probe.expect.test(output))
      return failed(`${probe.file} ${probe.args.join(' ')} did not print its version (exit ${result.exitCode ?? result.signal})`, result.exitCode ?? -1, lines);
    return undefined;
  } catch (error) {
    return failed(`${probe.file} cannot be started: ${(error as Error).message}`);
  }
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

/** The trust store the envelope would leave in place (posted, else the stored one) exists and its password opens it. */
async function trustStore(context: CheckContext): Promise<Verdict> {
  if (!context.posted.truststore) return { ok: false, message: 'no trust store is configured (configuration.truststore)' };
  const { problems } = await trustStoreChanges(context.posted, context.envelope ?? {}, context.config);
  return problems.length === 0 ? OK : { ok: false, message: problems.map((p) => `${p.field}: ${p.message}`).join('; ') };
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
