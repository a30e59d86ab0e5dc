import os from 'node:os';
import type { Config } from '../../config/load.js';
import { run } from '../../engines/process/run.js';

/** How long one `--version` probe may take; the probes run side by side. */
const PROBE_TIMEOUT_MS = 3000;

/** The build as version.ts describes it (operations do not import it: the HTTP layer hands it over). */
export interface BuildInfo {
  version: string;
  buildTime: string;
  label: string;
}

export interface EnvironmentInput {
  config: Config;
  build: BuildInfo;
  startedAt: Date;
  now: number;
}

/**
 * `init/environment.json` of the support package: the build, runtime, machine, engines and the
 * names of the QUIRE_ variables that were set. Values of environment variables are never included:
 * they carry passwords (QUIRE_ADMIN_PASSWORD) and anything else the operator put there.
 */
export async function environmentReport(input: EnvironmentInput) {
  const { config, build, startedAt, now } = input;
  const memory = process.memoryUsage();
  const cpus = os.cpus();
  return {
    server: {
      product: 'Quire',
      version: build.version,
      buildTime: build.buildTime,
      label: build.label,
      startedAt: startedAt.toISOString(),
      uptimeSeconds: Math.round((now - startedAt.getTime()) / 1000),
      pid: process.pid,
      dataDir: config.dataDir,
      configFile: config.configFile ?? null,
      contextPath: config.server.contextPath,
    },
    node: {
      version: process.version,
      versions: process.versions,
      execArgv: process.execArgv,
      memory: { rss: memory.rss, heapTotal: memory.heapTotal, heapUsed: memory.heapUsed, external: memory.external },
    },
    os: {
      type: os.type(),
      platform: os.platform(),
      release: os.release(),
      version: os.version(),
      arch: os.arch(),
      hostname: os.hostname(),
      cpus: { count: cpus.length, available: os.availableParallelism(), model: cpus[0]?.model ?? '' },
      memory: { total: os.totalmem(), free: os.freemem() },
      loadAverage: os.loadavg(),
      uptimeSeconds: Math.round(os.uptime()),
    },
    engines: await engines(config),
    environment: Object.keys(process.env)
      .filter((name) => name.startsWith('QUIRE_'))
      .sort(),
  };
}

/** The configured engines and tools with the version each reports (null when it cannot be run). */
async function engines(config: Config) {
  const { libreoffice, chromium } = config.engines;
  const [libreofficeVersion, chromiumVersion, python, ghostscript, qpdf, poppler] = await Promise.all([
    libreoffice.enabled ? probe(libreoffice.executable, ['--version']) : null,
    chromium.enabled ? probe(chromium.executable, ['--version']) : null,
    libreoffice.enabled ? probe(config.engines.python, ['--version']) : null,
    probe(config.engines.ghostscript.executable, ['--version']),
    probe(config.engines.qpdf.executable, ['--version']),
    probe('pdftoppm', ['-v']),
  ]);
  return {
    libreoffice: { enabled: libreoffice.enabled, executable: libreoffice.executable, workers: libreoffice.workers, version: libreofficeVersion },
    chromium: { enabled: chromium.enabled, executable: chromium.executable, workers: chromium.workers, version: chromiumVersion },
    python: { executable: config.engines.python, version: python },
    ghostscript: { executable: config.engines.ghostscript.executable, version: ghostscript },
    qpdf: { executable: config.engines.qpdf.executable, version: qpdf },
    poppler: { executable: 'pdftoppm', version: poppler },
  };
}

/** The first line of a tool's version output (stdout, else stderr), or null. */
async function probe(executable: string, args: string[]): Promise<string | null> {
  try {
    const result = await run(executable, args, { timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 4096 });
    if (result.timedOut) return null;
    const line = (text: string) =>
      text
        .split('\n')
        .find((l) => /\d+\.\d+/.test(l))
        ?.trim();
    return line(result.stdout.toString('utf8')) ?? line(result.stderr) ?? null;
  } catch {
    return null;
  }
}
