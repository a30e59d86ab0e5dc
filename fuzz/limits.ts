/**
 * The time limits the invariants hold the server to, read from its configuration through the
 * server's own loader (the built dist/config/load.js of the checkout that runs), with the same
 * environment the server gets, so that the fuzzer and the server cannot disagree.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface Limits {
  /** GET info: the metadata budget (slower metadata is finished in the background). */
  infoMs: number;
  /** Upload: the inspection timeout (detection reads headers only). */
  uploadMs: number;
  /** Converter: the whole call's deadline (converter.timeout; older servers: the slowest engine's job timeout). */
  converterMs: number;
  /** Toolbox: the whole call's timeout. */
  toolboxMs: number;
  /** Archive extraction: the inspection timeout. */
  extractMs: number;
  /** pdfa: the converter's deadline (a PDF/A conversion is a conversion). */
  pdfaMs: number;
  /** signature: signature.timeout. */
  signatureMs: number;
  /** ocr: the whole call's timeout. */
  ocrMs: number;
  /** barcode: the whole call's timeout (stamping, or detecting on every page). */
  barcodeMs: number;
  /** urlconverter: the whole call's timeout. */
  urlconverterMs: number;
}

/** The part of the server's Config the fuzzer reads (older and newer servers alike). */
interface ServerConfigView {
  documents: { metadataBudgetMs: number; toolTimeoutMs: number };
  engines: {
    libreoffice: { timeoutMs: number; memoryLimitBytes?: number };
    chromium: { timeoutMs: number; memoryLimitBytes?: number };
    qpdf?: { maxMemoryBytes?: number };
    poppler?: { maxMemoryBytes?: number };
    ghostscript?: { maxMemoryBytes?: number } | string;
  };
  toolbox: { timeoutMs: number };
  /** Absent on servers from before the converter's own deadline. */
  converter?: { timeoutMs: number };
  /** The other web services' call timeouts; absent on servers from before them (the toolbox's is used then). */
  signature?: { timeout?: number };
  ocr?: { timeoutMs: number };
  barcode?: { timeoutMs: number };
  urlconverter?: { timeoutMs: number };
  server: { restBase: string; contextPath: string };
}

/** Process names of each engine, as /proc shows them (comm, 15 characters at most). */
const POPPLER = ['pdftoppm', 'pdftotext', 'pdfimages', 'pdftocairo', 'pdfinfo', 'pdfseparate', 'pdfunite', 'pdffonts', 'pdfattach', 'pdfdetach'];

/**
 * The memory cap the server configures for each kind of child process (by command name): the
 * address-space caps of qpdf, poppler and Ghostscript, the hard limits of the LibreOffice and
 * Chromium workers. A server without them (older configurations) gives an empty map.
 */
function childCaps(config: ServerConfigView): Record<string, number> {
  const caps: Record<string, number> = {};
  const set = (names: string[], bytes: number | undefined) => {
    if (bytes && bytes > 0) for (const name of names) caps[name] = bytes;
  };
  set(['qpdf'], config.engines.qpdf?.maxMemoryBytes);
  set(POPPLER, config.engines.poppler?.maxMemoryBytes);
  set(['gs'], typeof config.engines.ghostscript === 'object' ? config.engines.ghostscript.maxMemoryBytes : undefined);
  set(['soffice.bin', 'soffice', 'oosplash', 'python3'], config.engines.libreoffice.memoryLimitBytes);
  set(['chromium', 'chrome', 'chrome_crashpad'], config.engines.chromium.memoryLimitBytes);
  return caps;
}

export async function readServerConfig(serverRoot: string, env: Record<string, string>): Promise<{ limits: Limits; restBase: string; contextPath: string; childCaps: Record<string, number> }> {
  const module = (await import(pathToFileURL(path.join(serverRoot, 'dist/config/load.js')).href)) as { loadConfig(env: Record<string, string>, cwd: string): ServerConfigView };
  const config = module.loadConfig(env, serverRoot);
  const converterMs = config.converter?.timeoutMs ?? Math.max(config.engines.libreoffice.timeoutMs, config.engines.chromium.timeoutMs);
  const toolboxMs = config.toolbox.timeoutMs;
  return {
    limits: {
      infoMs: config.documents.metadataBudgetMs,
      uploadMs: config.documents.toolTimeoutMs,
      converterMs,
      toolboxMs,
      extractMs: config.documents.toolTimeoutMs,
      pdfaMs: converterMs,
      // signature keeps the raw section (seconds): Config has no signature.timeoutMs.
      signatureMs: config.signature?.timeout !== undefined ? config.signature.timeout * 1000 : toolboxMs,
      ocrMs: config.ocr?.timeoutMs ?? toolboxMs,
      barcodeMs: config.barcode?.timeoutMs ?? toolboxMs,
      urlconverterMs: config.urlconverter?.timeoutMs ?? toolboxMs,
    },
    restBase: config.server.restBase,
    contextPath: config.server.contextPath,
    childCaps: childCaps(config),
  };
}

/**
 * The slack an answer gets over its limit: the HTTP round trip, queueing behind the other cases in
 * flight, and a loaded machine. Small limits (info's 2 s) get a few seconds; large ones a quarter.
 */
export function withMargin(limitMs: number, extraMs: number): number {
  return limitMs + 3_000 + limitMs * 0.25 + extraMs;
}
