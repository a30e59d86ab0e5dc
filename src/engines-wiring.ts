import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { ConfigError, type Config, type EngineConfig, type ToolGateConfig } from './config/load.js';
import { openFontFolder, type FontFolder } from './engines/fonts/font-folder.js';
import { FontInventory } from './engines/fonts/font-inventory.js';
import { Ghostscript } from './engines/ghostscript/ghostscript.js';
import { ChromiumEngine } from './engines/chromium/chromium-engine.js';
import { removeStaleProfiles } from './engines/chromium/leftovers.js';
import { removeOfficeLeftovers } from './engines/libreoffice/leftovers.js';
import { LibreOfficeEngine, LIBREOFFICE_DEFAULTS } from './engines/libreoffice/libreoffice-engine.js';
import type { Task } from './engines/pool/in-process-worker.js';
import { BackgroundStart } from './engines/background-start.js';
import type { HtmlRenderer, OfficeConverter } from './engines/contracts.js';
import { ambientCancellation } from './core/cancellation.js';
import type { PoolEvents, PoolSettings, PoolStats, WorkerPool } from './engines/pool/worker-pool.js';
import { PdfRewriter } from './engines/pdf/rewriter.js';
import { createPdfInspector, type PdfInspector } from './engines/pdf/index.js';
import { QpdfRunner } from './engines/pdf/qpdf.js';
import { PopplerRunner } from './engines/poppler/tool.js';
import { ToolGate } from './engines/pool/tool-gate.js';
import { TesseractEngine } from './engines/tesseract/tesseract-engine.js';
import type { PdfStructureTool } from './engines/contracts.js';
import { sweepLeftovers } from './engines/process/leftovers.js';
import { parentDeathAvailable, setEngineOwner } from './engines/process/parent-death.js';
import { memoryCapsAvailable, run } from './engines/process/run.js';
import { configureTools } from './engines/process/tools.js';
import type { ExecutableState } from './operations/admin/server-status.js';
import type { ConverterEngines } from './operations/converter/converter-service.js';
import type { EngineName } from './operations/webservice.js';
import { createImagePool, createRenderers } from './operations/converter/renderers.js';
import { BarcodeDetector } from './engines/barcode/index.js';
import { engineWorkDir } from './cluster/roles.js';

/** The started engines of the server and how to stop them. */
export interface Engines {
  converter: ConverterEngines;
  /** qpdf: the one runner of the server (engines.qpdf.executable, its gate). */
  qpdf: PdfStructureTool;
  /** poppler: the one runner of the server (engines.poppler.directory, its gate). */
  poppler: PopplerRunner;
  /** The PDF inspector of stored documents (over `qpdf`). */
  pdf: PdfInspector;
  /** Absent when switched off in the configuration; otherwise starting, running or failed (see BackgroundStart). */
  libreoffice?: BackgroundStart<LibreOfficeEngine>;
  chromium?: BackgroundStart<ChromiumEngine>;
  /** The OCR pool; absent when switched off or when Tesseract could not start (ocr calls: -107). */
  tesseract?: TesseractEngine;
  images: WorkerPool<Task<unknown>, unknown>;
  /** Barcode detection (zxing-wasm worker threads; started by the first detection). */
  barcode: BarcodeDetector;
  fonts: FontFolder;
  /** Queue, busy workers, job counts and restarts of every pool (for the administration's metrics). */
  stats(): PoolStats[];
  /** Calls the listener after every job of every pool; returns the function that stops it. */
  onJob(listener: (job: PoolJob) => void): () => void;
  /** Resolves when the engines started in the background have started or failed to (tests, benchmarks). */
  started(): Promise<void>;
  /** A real check of every engine (see `checkHealth`); takes up to HEALTH_TIMEOUT_MS. */
  health(): Promise<EngineHealth>;
  close(): Promise<void>;
}

export type PoolJob = PoolEvents['job'][0];

/** The engines a health check covers: one vocabulary with the web-service modules' `engines` (operations/webservice.ts). */
export type { EngineName };
export type EngineHealth = Record<EngineName, ExecutableState>;

/** Longest wait for one engine's answer: a status page must not hang on a stuck engine. */
const HEALTH_TIMEOUT_MS = 5_000;

/**
 * Starts the configured engines: the warm pools start in parallel; an engine that cannot start is
 * logged and left out (its conversions answer ENGINE_UNAVAILABLE) rather than stopping the server.
 */
export async function startEngines(config: Config, logger: FastifyBaseLogger): Promise<Engines> {
  const work = engineWorkDir(config);
  // Before anything starts: a missing tool stops the start with the setting to fix.
  await probeTools(config, new PopplerRunner({ directory: config.engines.poppler.directory }), logger);
  // Every engine process from here on names this server and data dir (for the sweep of a later start).
  setEngineOwner(config.dataDir);
  await removeLeftovers(config.dataDir, work, logger);
  if (!parentDeathAvailable()) logger.warn('setpriv (util-linux 2.33+) not found: engine processes may outlive a server that crashes');
  let inventory: FontInventory | undefined;
  let onFontsChanged: (reason: string) => void = () => undefined;
  const fonts = await openFontFolder(config.dataDir, () => {
    logger.info('fonts folder changed: recycling the engine workers');
    inventory?.invalidate();
    onFontsChanged('fonts changed');
  });
  const env = { ...process.env, ...fonts.env };
  inventory = new FontInventory(fonts.env);
  configureEngineTools(config);
  if (!memoryCapsAvailable()) logger.warn('prlimit (util-linux) not found: external tools run without memory caps');

  // LibreOffice and Chromium warm up in the background: the server listens at once, a call that
  // needs one of them while it starts waits for it within the engine's queue timeout
  // (background-start.ts), and health and status show it `starting`.
  const lo = config.engines.libreoffice;
  const libreoffice = lo.enabled ? new BackgroundStart('libreoffice', () => startLibreOffice(config, work, env, fonts.folder, logger), lo.queueTimeoutMs) : undefined;
  const cr = config.engines.chromium;
  const chromium = cr.enabled ? new BackgroundStart('chromium', () => startChromium(config, work, fonts.env, logger), cr.queueTimeoutMs) : undefined;
  // A font change while an engine still starts needs no recycling: its workers read the fonts as they start.
  onFontsChanged = (reason) => {
    libreoffice?.engine?.recycleAll(reason);
    chromium?.engine?.recycleAll(reason);
  };

  // One configured instance per per-call tool, each under its gate (the pools' rules: concurrency,
  // bounded queue → 429, queue timeout; run() adds the time limit and the kill).
  const { qpdf: qpdfConfig, poppler: popplerConfig, ghostscript: gsConfig, gates } = config.engines;
  const cpus = config.server.cpus;
  const qpdf = new QpdfRunner({ qpdfPath: qpdfConfig.executable, timeoutMs: config.documents.toolTimeoutMs, gate: toolGate('qpdf', gates.qpdf, cpus) });
  const poppler = new PopplerRunner({ directory: popplerConfig.directory, gate: toolGate('poppler', gates.poppler, cpus) });
  const ghostscript = new Ghostscript(gsConfig.executable, toolGate('ghostscript', gates.ghostscript, cpus));
  const rewriter = new PdfRewriter({ qpdf, timeoutMs: config.documents.toolTimeoutMs });
  const pdf = createPdfInspector({ qpdf, timeoutMs: config.documents.toolTimeoutMs });
  const images = createImagePool(cpus, config.engines.libreoffice.queueSize, config.engines.libreoffice.timeoutMs);
  await images.start();
  const tesseract = await startTesseract(config, env, logger);
  const barcode = new BarcodeDetector({
    workers: config.barcode.detectWorkers,
    queueLimit: config.barcode.detectQueue,
    jobTimeoutMs: config.barcode.detectTimeoutMs,
    memoryMb: config.barcode.detectMemoryMb,
  });
  const office: OfficeConverter | undefined = libreoffice && {
    convert: async (job, options) => (await libreoffice.ready(options?.signal ?? ambientCancellation())).convert(job, options),
  };
  const browser: HtmlRenderer | undefined = chromium && {
    convert: async (job, options) => (await chromium.ready(options?.signal ?? ambientCancellation())).convert(job, options),
  };
  // Metrics subscribe once at start: pools that start later are subscribed when they are ready.
  const jobListeners = new Set<(job: PoolJob) => void>();
  const forward = (job: PoolJob) => {
    for (const listener of jobListeners) listener(job);
  };
  libreoffice?.onReady((engine) => engine.events?.on('job', forward));
  chromium?.onReady((engine) => engine.pool.on('job', forward));
  images.on('job', forward);
  tesseract?.pool.on('job', forward);
  barcode.onJob(forward);
  return {
    qpdf,
    poppler,
    pdf,
    converter: {
      ...(office ? { libreoffice: office } : {}),
      renderers: createRenderers({
        ghostscript,
        rewriter,
        ...(browser ? { chromium: browser } : {}),
        images,
        network: config.network,
        timeoutMs: config.documents.toolTimeoutMs * 4,
        maxTextBytes: 64 * 1024 * 1024,
      }),
      rewriter,
      ghostscript,
      fonts: inventory,
    },
    ...(libreoffice ? { libreoffice } : {}),
    ...(chromium ? { chromium } : {}),
    ...(tesseract ? { tesseract } : {}),
    images,
    barcode,
    fonts,
    stats: () => [libreoffice?.engine?.stats(), chromium?.engine?.stats(), images.stats(), tesseract?.stats(), barcode.stats()].filter((s): s is PoolStats => s !== undefined),
    onJob: (listener) => {
      jobListeners.add(listener);
      return () => {
        jobListeners.delete(listener);
      };
    },
    started: async () => {
      await Promise.all([libreoffice?.settled, chromium?.settled]);
    },
    health: () => checkHealth(config, { libreoffice, chromium, images, tesseract, barcode }),
    close: async () => {
      fonts.close();
      // An engine still starting is closed once its start settles (its workers would outlive it otherwise).
      await Promise.all([libreoffice?.settled.then((engine) => engine?.close()), chromium?.settled.then((engine) => engine?.close()), images.close(), tesseract?.close(), barcode.close()]);
    },
  };
}

/**
 * Asks every engine for a sign of life, in parallel: the pools ping an idle worker (a UNO round trip,
 * the browser's version over DevTools), the per-call tools print their version. An engine switched
 * off in the configuration is `disabled`; one that is on but did not start, or does not answer in
 * time, is `error`.
 */
async function checkHealth(
  config: Config,
  pools: {
    libreoffice: BackgroundStart<LibreOfficeEngine> | undefined;
    chromium: BackgroundStart<ChromiumEngine> | undefined;
    images: { healthy(): Promise<boolean> };
    tesseract: { healthy(): Promise<boolean> } | undefined;
    barcode: { healthy(): Promise<boolean> };
  },
): Promise<EngineHealth> {
  const [libreoffice, chromium, images, ghostscript, qpdf, poppler, tesseract, barcode] = await Promise.all([
    started(pools.libreoffice),
    started(pools.chromium),
    poolAnswers(pools.images),
    toolAnswers(config.engines.ghostscript.executable, ['--version']),
    toolAnswers(config.engines.qpdf.executable, ['--version']),
    toolAnswers(new PopplerRunner({ directory: config.engines.poppler.directory }).executable('pdftotext'), ['-v']),
    config.engines.tesseract.enabled ? poolAnswers(pools.tesseract) : Promise.resolve<ExecutableState>('disabled'),
    poolAnswers(pools.barcode),
  ] as const);
  return { libreoffice, chromium, images, ghostscript, qpdf, poppler, tesseract, barcode };
}

/** A pool started in the background: `disabled` when off, `starting` until its start settles, then its answer. */
async function started<E extends { healthy(): Promise<boolean> }>(engine: BackgroundStart<E> | undefined): Promise<ExecutableState> {
  if (!engine) return 'disabled';
  if (engine.state === 'starting') return 'starting';
  return poolAnswers(engine.engine);
}

async function poolAnswers(engine: { healthy(): Promise<boolean> } | undefined): Promise<ExecutableState> {
  if (!engine) return 'error';
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([engine.healthy(), late])) ? 'ok' : 'error';
  } catch {
    return 'error';
  } finally {
    clearTimeout(timer);
  }
}

async function toolAnswers(command: string, args: string[]): Promise<ExecutableState> {
  try {
    const result = await run(command, args, { timeoutMs: HEALTH_TIMEOUT_MS, maxOutputBytes: 4096 });
    return result.exitCode === 0 ? 'ok' : 'error';
  } catch {
    // Not found or not executable.
    return 'error';
  }
}

/**
 * The start-up sweep: engine processes a previous server on this data dir left running when it died
 * are killed (engines/process/leftovers.ts), then the LibreOffice profiles and sockets and the
 * Chromium profiles nothing uses any more are removed. A failure is logged, not fatal.
 */
async function removeLeftovers(dataDir: string, work: string, logger: FastifyBaseLogger): Promise<void> {
  try {
    const sweep = await sweepLeftovers(dataDir);
    const office = await removeOfficeLeftovers(path.join(work, 'libreoffice'), sweep.inUse);
    const browserProfiles = await removeStaleProfiles(path.join(work, 'chromium'), sweep.inUse);
    const processes = sweep.killed.length;
    if (processes + office.pipes + office.profiles + browserProfiles === 0) return;
    logger.warn(
      { processes, commands: sweep.killed.slice(0, 20).map((p) => p.command), officeSockets: office.pipes, officeProfiles: office.profiles, browserProfiles },
      `leftovers of a previous server on this data dir: killed ${processes} engine processes, removed ${office.pipes} LibreOffice sockets, ${office.profiles} LibreOffice and ${browserProfiles} Chromium profiles`,
    );
  } catch (error) {
    logger.error({ err: error }, 'the sweep for leftovers of a previous server failed');
  }
}

/** Starts the warm LibreOffice listeners; logs how they run (or why they cannot) and rejects when none can. */
async function startLibreOffice(config: Config, work: string, env: NodeJS.ProcessEnv, fontFolder: string, logger: FastifyBaseLogger): Promise<LibreOfficeEngine> {
  const lo = config.engines.libreoffice;
  const engine = new LibreOfficeEngine({
    ...LIBREOFFICE_DEFAULTS,
    ...poolSettings(lo),
    workDir: path.join(work, 'libreoffice'),
    soffice: lo.executable,
    python: config.engines.python,
    env,
    isolation: lo.isolation,
    sandboxRead: [fontFolder],
    sandboxWrite: [path.join(work, 'fontconfig-cache')],
    onFallback: (reason) => logger.warn({ err: reason }, 'LibreOffice listeners could not start: converting with one soffice process per document (slow)'),
  });
  try {
    await engine.start();
  } catch (error) {
    logger.error({ err: error }, 'LibreOffice engine could not start: Office conversion is unavailable');
    throw error;
  }
  const { network, landlock, missing } = engine.isolation;
  logger.info({ workers: lo.workers, mode: engine.running, networkNamespace: network.length > 0, landlock, isolation: lo.isolation }, 'LibreOffice engine started');
  if (missing.length > 0) {
    logger.warn(
      { missing },
      `LibreOffice isolation incomplete (${missing.join('; ')}): what is missing is left to LibreOffice's own settings (see docs/converter.md; engines.libreoffice.isolation: required refuses to run like this)`,
    );
  }
  return engine;
}

/**
 * Starts the Tesseract pool (each slot checks that the executable answers; no model stays loaded, so
 * this takes milliseconds and needs no background start). One that cannot start is logged and left
 * out: ocr calls answer -107, everything else runs.
 */
async function startTesseract(config: Config, env: NodeJS.ProcessEnv, logger: FastifyBaseLogger): Promise<TesseractEngine | undefined> {
  const ts = config.engines.tesseract;
  if (!ts.enabled) return undefined;
  const engine = new TesseractEngine({ ...poolSettings(ts), executable: ts.executable, tessdata: ts.tessdata, memoryCapBytes: ts.memoryLimitBytes, env });
  try {
    await engine.start();
  } catch (error) {
    logger.error({ err: error }, 'Tesseract could not start: OCR is unavailable (engines.tesseract.executable)');
    return undefined;
  }
  logger.info({ workers: ts.workers }, 'Tesseract OCR pool started');
  return engine;
}

/** Starts the Chromium browsers; rejects when none can. */
async function startChromium(config: Config, work: string, env: Record<string, string>, logger: FastifyBaseLogger): Promise<ChromiumEngine> {
  const cr = config.engines.chromium;
  const engine = new ChromiumEngine({
    ...poolSettings(cr),
    executablePath: cr.executable,
    env,
    tempDir: path.join(work, 'chromium'),
  });
  try {
    await mkdir(path.join(work, 'chromium'), { recursive: true });
    await engine.start();
  } catch (error) {
    logger.error({ err: error }, 'Chromium could not start: HTML, text and e-mail conversion is unavailable');
    throw error;
  }
  logger.info({ workers: cr.workers }, 'Chromium engine started');
  return engine;
}

/**
 * The version probe of the tools every document needs (qpdf: upload, info, every toolbox call;
 * poppler: extraction, images, rendering): a server whose configured binary is missing or is not the
 * tool fails at start with the setting to fix, instead of failing each call later. Ghostscript is
 * only needed by some conversions: its absence shows in health and status (as before).
 */
async function probeTools(config: Config, poppler: PopplerRunner, logger: FastifyBaseLogger): Promise<void> {
  const probes = [
    { setting: 'engines.qpdf.executable', command: config.engines.qpdf.executable, args: ['--version'], expect: /qpdf version/i },
    { setting: 'engines.poppler.directory', command: poppler.executable('pdftotext'), args: ['-v'], expect: /pdftotext version/i },
  ];
  const results = await Promise.all(
    probes.map(async (probe) => {
      try {
        const result = await run(probe.command, probe.args, { timeoutMs: HEALTH_TIMEOUT_MS, maxOutputBytes: 4096 });
        const output = `${result.stdout.toString('utf8')}\n${result.stderr}`;
        const version = probe.expect.exec(output)
          ? output
              .split('\n')
              .find((line) => probe.expect.test(line))
              ?.trim()
          : undefined;
        return version ? { ...probe, version } : { ...probe, problem: `${probe.command} ${probe.args.join(' ')} did not print a version (exit ${result.exitCode ?? result.signal})` };
      } catch (error) {
        return { ...probe, problem: `${probe.command} cannot be started: ${(error as Error).message}` };
      }
    }),
  );
  const problems = results.filter((result) => 'problem' in result);
  if (problems.length > 0) {
    throw new ConfigError(problems.map((result) => ({ key: result.setting, origin: '', message: `${'problem' in result ? result.problem : ''}; set ${result.setting} to the tool's location` })));
  }
  logger.info(Object.fromEntries(results.map((result) => [result.setting, 'version' in result ? result.version : ''])), 'tools found');
}

/** The gate of a per-call tool from its configuration (`concurrency` 0 = eight per CPU core of `server.cpus`). */
function toolGate(name: string, settings: ToolGateConfig, cpus: number): ToolGate {
  return new ToolGate({
    name,
    concurrency: settings.concurrency > 0 ? settings.concurrency : 8 * cpus,
    queueLimit: settings.queueSize,
    queueTimeoutMs: settings.queueTimeoutMs,
  });
}

/** A configured engine's pool settings. */
function poolSettings(engine: EngineConfig): PoolSettings {
  return {
    size: engine.workers,
    queueLimit: engine.queueSize,
    jobTimeoutMs: engine.timeoutMs,
    queueTimeoutMs: engine.queueTimeoutMs,
    maxJobsPerWorker: engine.maxJobs,
    maxMemoryBytes: engine.maxMemoryBytes,
    memoryLimitBytes: engine.memoryLimitBytes,
    healthIntervalMs: engine.healthIntervalMs,
  };
}

/** The executables and memory caps `run()` applies to every tool it starts (engines/process/tools.ts). */
function configureEngineTools(config: Config): void {
  const { qpdf, poppler, ghostscript, print, libreoffice } = config.engines;
  configureTools({
    qpdf: { executable: qpdf.executable, maxMemoryBytes: qpdf.maxMemoryBytes },
    poppler: { directory: poppler.directory, maxMemoryBytes: poppler.maxMemoryBytes },
    ghostscript: { executable: ghostscript.executable, maxMemoryBytes: ghostscript.maxMemoryBytes },
    print: { maxMemoryBytes: print.maxMemoryBytes },
    libreoffice: { maxMemoryBytes: libreoffice.memoryLimitBytes },
  });
}
