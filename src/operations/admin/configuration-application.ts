import { WEBSERVICES } from '../../core/webservices.js';
import { REGISTERED, webServiceModule } from '../webservices.js';
import { readRows, rowChanges, same, type ConfigurationSection, type FieldRow } from './configuration-fields.js';
import type { WireObject } from './configuration-wire.js';

/** Web services of the reference this server does not offer (not in the registry): shown, and refused when switched on. */
const ABSENT_WEBSERVICES = WEBSERVICES.filter((name) => !webServiceModule(name));

/**
 * `ApplicationConfig_Application`: every registered web service is enabled, with the rows its module
 * adds (the converter's pool is the LibreOffice pool: see converter/module.ts); the Chromium bridge is our
 * Chromium pool; the metrics' `auth.enabled` is the opposite of `metrics.public`. Portal, proxies,
 * license, TSA and the key store have no counterpart: empty, or the reference's "none".
 */
const ROWS: FieldRow[] = [
  ...REGISTERED.flatMap((module): FieldRow[] => [{ field: `webservices.${module.name}.enabled`, read: () => true }, ...(module.configuration ?? [])]),
  ...ABSENT_WEBSERVICES.map((name): FieldRow => ({ field: `webservices.${name}.enabled`, read: () => false })),
  { field: 'bridges.chromium.enabled', read: (c) => c.engines.chromium.enabled, writes: same('engines.chromium.enabled') },
  { field: 'bridges.chromium.path', read: (c) => c.engines.chromium.executable, writes: same('engines.chromium.executable') },
  { field: 'keystore.type', read: () => 'NONE' },
  { field: 'metrics.enabled', read: () => true },
  { field: 'metrics.prometheus.enabled', read: () => true },
  { field: 'metrics.auth.enabled', read: (c) => !c.metrics.public, writes: { key: 'metrics.public', value: (wire) => !wire } },
];

export const applicationSection: ConfigurationSection = {
  read({ shown }) {
    const configuration = readRows(ROWS, shown, { portal: {} });
    const extras: WireObject = { globalKeyStore: { keyStoreContent: '', certificates: [] } };
    return { configuration, extras };
  },
  async changes(posted, { shown }) {
    return rowChanges(ROWS, posted, shown);
  },
};
