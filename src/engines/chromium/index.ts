/** The Chromium engine: HTML → PDF in warm headless browsers, with the network rules of the address policy. */
export { CHROMIUM_ENGINE_DEFAULTS, ChromiumEngine } from './chromium-engine.js';
export type { ChromiumEngineOptions } from './chromium-engine.js';
export { ChromiumWorker } from './chromium-worker.js';
export type { ChromiumWorkerOptions } from './chromium-worker.js';
export { HtmlEngineError } from './errors.js';
export type { HtmlEngineErrorKind } from './errors.js';
export type * from './types.js';
export { UrlLoadError } from './url-job.js';
export type { UrlFailure, UrlJob, UrlRenderer, UrlResult } from './url-job.js';
