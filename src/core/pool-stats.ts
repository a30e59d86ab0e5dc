/**
 * What an engine pool reports about itself (engines/pool/WorkerPool.stats()). In core because both the
 * engines that produce it and the metrics that read it (observability, which does not import engines)
 * need the one definition.
 */
export interface PoolStats {
  engine: string;
  size: number;
  /** Workers alive (idle or busy). */
  ready: number;
  busy: number;
  starting: number;
  queued: number;
  queueLimit: number;
  completed: number;
  failed: number;
  timeouts: number;
  crashes: number;
  rejected: number;
  restarts: number;
  averageJobMs: number;
  /** Most workers busy at once and most jobs waiting at once since the pool started (high-water marks). */
  peakBusy: number;
  peakQueued: number;
}
