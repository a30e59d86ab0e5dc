import { mkdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config, EngineConfig } from './config/load.js';
import { openFontFolder, type FontFolder } from './engines/fonts/font-folder.js';
import { FontInventory } from './engines/fonts/font-inventory.js';
import { Ghostscript } from './engines/ghostscript/ghostscript.js';
import { ChromiumEngine } from './engines/chromium/chromium-engine.js';
import { LibreOfficeEngine, LIBREOFFICE_DEFAULTS } from './engines/libreoffice/libreoffice-engine.js';
import type { Task } from './engines/pool/in-process-worker.js';
import type { PoolSettings, PoolStats, WorkerPool } from './engines/pool/worker-pool.js';
import { PdfRewriter } from './engines/pdf/rewriter.js';
import type { ConverterEngines } from './operations/converter/converter-service.js';
import { createImagePool, createRenderers } from './operations/converter/renderers.js';

/** The started engines of the server and how to stop them. */
export interface Engines {
  converter: ConverterEngines;
  libreoffice?: LibreOfficeEngine;
  chromium?: ChromiumEngine;
  images: WorkerPool<Task<unknown>, unknown>;
  fonts: FontFolder;
  /** Queue, busy workers, job counts and restarts of every pool (for the administration's metrics). */
  stats(): PoolStats[];
  close(): Promise<void>;
}

/**
 * Starts the configured engines: the warm pools start in parallel; an engine that cannot start is
 * logged and left out (its conversions answer ENGINE_UNAVAILABLE) rather than stopping the server.
 */
export async function startEngines(config: Config, logger: FastifyBaseLogger): Promise<Engines> {
  let libreoffice: LibreOfficeEngine | undefined;
  let chromium: ChromiumEngine | undefined;
  let inventory: FontInventory | undefined;
  const fonts = await openFontFolder(config.dataDir, () => {
    logger.info('fonts folder changed: recycling the engine workers');
    inventory?.invalidate();
    libreoffice?.recycleAll('fonts changed');
    chromium?.recycleAll('fonts changed');
  });
  const env = { ...process.env, ...fonts.env };
  inventory = new FontInventory(fonts.env);
  const work = path.join(config.dataDir, 'engines');

  const lo = config.engines.libreoffice;
  if (lo.enabled) {
    const engine = new LibreOfficeEngine({
      ...LIBREOFFICE_DEFAULTS,
      ...poolSettings(lo),
      workDir: path.join(work, 'libreoffice'),
      soffice: lo.executable,
      python: config.engines.python,
      env,
      onFallback: (reason) =>
        logger.warn({ err: reason }, 'LibreOffice listeners could not start: converting with one soffice process per document (slow)'),
    });
    try {
      await engine.start();
      libreoffice = engine;
      logger.info({ workers: lo.workers, mode: engine.running }, 'LibreOffice engine started');
    } catch (error) {
      logger.error({ err: error }, 'LibreOffice engine could not start: Office conversion is unavailable');
    }
  }

  const cr = config.engines.chromium;
  if (cr.enabled) {
    const engine = new ChromiumEngine({
      ...poolSettings(cr),
      executablePath: cr.executable,
      env: fonts.env,
      tempDir: path.join(work, 'chromium'),
    });
    try {
      await mkdir(path.join(work, 'chromium'), { recursive: true });
      await engine.start();
      chromium = engine;
      logger.info({ workers: cr.workers }, 'Chromium engine started');
    } catch (error) {
      logger.error({ err: error }, 'Chromium could not start: HTML, text and e-mail conversion is unavailable');
    }
  }

  const ghostscript = new Ghostscript(config.engines.ghostscript);
  const rewriter = new PdfRewriter({ timeoutMs: config.documents.toolTimeoutMs });
  const images = createImagePool(Math.max(1, availableParallelism()), config.engines.libreoffice.queueSize, config.engines.libreoffice.timeoutMs);
  await images.start();
  return {
    converter: {
      ...(libreoffice ? { libreoffice } : {}),
      renderers: createRenderers({
        ghostscript,
        rewriter,
        ...(chromium ? { chromium } : {}),
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
    images,
    fonts,
    stats: () => [libreoffice?.stats(), chromium?.stats(), images.stats()].filter((s): s is PoolStats => s !== undefined),
    close: async () => {
      fonts.close();
      await Promise.all([libreoffice?.close(), chromium?.close(), images.close()]);
    },
  };
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
    healthIntervalMs: engine.healthIntervalMs,
  };
}
