import type { Registry } from 'prom-client';
import { scrapedCounter, scrapedGauge } from './metrics-collected.js';
import { METRIC_PREFIX } from './metrics-process.js';

/** The running totals of the session service (declared here: observability does not import sessions). */
export interface SessionCountersSource {
  readonly counters: Readonly<{ created: number; expired: number; loggedOut: number; closed: number }>;
  /** Password checks by outcome (auth/login-guard LoginCounters). */
  readonly logins?: Readonly<{ succeeded: number; failed: number; throttled: number; busy: number; passwordChecks: number }>;
}

export interface StateMetricsSources {
  sessions: SessionCountersSource;
  sessionStore: { count(): Promise<number> };
  /** The document store's running totals over all sessions (an in-memory sum, no disk access). */
  documentStore: { totalUsage(): { files: number; bytes: number; historyBytes: number } };
}

/** Sessions and stored documents, read at scrape time from the services' own bookkeeping. */
export function observeState(registry: Registry, sources: StateMetricsSources): void {
  scrapedGauge(registry, {
    name: `${METRIC_PREFIX}sessions_active`,
    help: 'Sessions that exist now (logged in and not yet ended)',
    read: async () => [[{}, await sources.sessionStore.count()]],
  });
  scrapedCounter(registry, {
    name: `${METRIC_PREFIX}sessions_created_total`,
    help: 'Sessions opened (local logins and external tokens) since the server (re)started',
    read: () => [[{}, sources.sessions.counters.created]],
  });
  scrapedCounter(registry, {
    name: `${METRIC_PREFIX}sessions_ended_total`,
    help: 'Sessions ended since the server (re)started, by reason: expired, logout, closed (by an administrator)',
    labelNames: ['reason'],
    read: () => {
      const { expired, loggedOut, closed } = sources.sessions.counters;
      return [
        [{ reason: 'expired' }, expired],
        [{ reason: 'logout' }, loggedOut],
        [{ reason: 'closed' }, closed],
      ];
    },
  });
  const logins = () => sources.sessions.logins ?? { succeeded: 0, failed: 0, throttled: 0, busy: 0, passwordChecks: 0 };
  scrapedCounter(registry, {
    name: `${METRIC_PREFIX}logins_total`,
    help: 'Logins and Basic-credential checks by outcome: succeeded, failed (wrong password or unknown name), throttled (refused before hashing: security.login), busy (every hashing slot and waiting place taken)',
    labelNames: ['outcome'],
    read: () => {
      const { succeeded, failed, throttled, busy } = logins();
      return [
        [{ outcome: 'succeeded' }, succeeded],
        [{ outcome: 'failed' }, failed],
        [{ outcome: 'throttled' }, throttled],
        [{ outcome: 'busy' }, busy],
      ];
    },
  });
  scrapedCounter(registry, {
    name: `${METRIC_PREFIX}password_checks_total`,
    help: 'Password hashes computed to check a login or Basic credentials',
    read: () => [[{}, logins().passwordChecks]],
  });
  const usage = () => sources.documentStore.totalUsage();
  scrapedGauge(registry, { name: `${METRIC_PREFIX}storage_documents`, help: 'Documents stored by all sessions', read: () => [[{}, usage().files]] });
  scrapedGauge(registry, {
    name: `${METRIC_PREFIX}storage_bytes`,
    help: 'Bytes of all stored document content, history states included',
    read: () => [[{}, usage().bytes]],
  });
  scrapedGauge(registry, {
    name: `${METRIC_PREFIX}storage_history_bytes`,
    help: 'Bytes of the inactive history states (part of storage_bytes)',
    read: () => [[{}, usage().historyBytes]],
  });
}
