import path from 'node:path';
import type { Config } from '../config/load.js';
import { nodeIdOf, type NodeRole } from '../operations/admin/cluster-status.js';

/** What this process does: its `cluster.node.role` in cluster mode; a single server does everything. */
export function roleOf(config: Config): NodeRole {
  return config.cluster.mode === 'cluster' ? config.cluster.node.role : 'all';
}

/**
 * The configuration the engines are started from. An `api` node starts no warm engine (LibreOffice,
 * Chromium, Tesseract pools cost memory and a start-up each): it answers the API and leaves the
 * conversions to the workers. The per-call tools (qpdf, poppler, Ghostscript) start nothing until
 * called and stay available for what a call needs at once (reading a document's page count).
 */
export function engineConfigFor(config: Config): Config {
  if (roleOf(config) !== 'api') return config;
  const { libreoffice, chromium, tesseract } = config.engines;
  return {
    ...config,
    engines: { ...config.engines, libreoffice: { ...libreoffice, enabled: false }, chromium: { ...chromium, enabled: false }, tesseract: { ...tesseract, enabled: false } },
  };
}

/**
 * Where this node's engines keep their work (LibreOffice profiles and job folders, Chromium profiles):
 * `<dataDir>/engines` on a single server; in a cluster, whose nodes share the data dir, a folder per
 * node under it. Each engine start empties its job folder and the start-up sweep removes profiles no
 * process of this machine uses: on a shared folder a starting node would take the files of the
 * others' running workers away (their conversions failed with -102). Still under the data dir, so
 * that a document reaches a job folder by a hard link rather than a copy.
 */
export function engineWorkDir(config: Pick<Config, 'cluster' | 'server' | 'dataDir'>): string {
  const shared = path.join(config.dataDir, 'engines');
  if (config.cluster.mode !== 'cluster') return shared;
  return path.join(shared, `node-${nodeIdOf(config).replace(/[^A-Za-z0-9._-]/g, '_')}`);
}

/** Whether this node runs queue consumers (async jobs, webhooks, cleanups): not an `api` node. */
export function consumesQueue(config: Config): boolean {
  return roleOf(config) !== 'api';
}

/** Whether this node serves the public API: not a `worker` (it answers only health and metrics, src/cluster/private-listener.ts). */
export function servesApi(config: Config): boolean {
  return roleOf(config) !== 'worker';
}

/**
 * How long a synchronous call that an `api` node forwards to the workers may take, queue wait included:
 * the web service's own time limit (the converter's for the services without one of their own).
 */
export function forwardedCallTimeoutMs(config: Config, webservice: string): number {
  switch (webservice) {
    case 'toolbox':
      return config.toolbox.timeoutMs;
    case 'ocr':
      return config.ocr.timeoutMs;
    case 'barcode':
      return config.barcode.timeoutMs;
    case 'urlconverter':
      return config.urlconverter.timeoutMs;
    case 'signature':
      return config.signature.timeout * 1000;
    default:
      return config.converter.timeoutMs;
  }
}
