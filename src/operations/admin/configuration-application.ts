import { readRows, rowChanges, same, type ConfigurationSection, type FieldRow } from './configuration-fields.js';
import type { WireObject } from './configuration-wire.js';

/** Web services of the reference that Quire does not offer (yet): shown, and refused when switched on. */
const ABSENT_WEBSERVICES = ['urlconverter', 'pdfa', 'signature', 'ocr', 'barcode'] as const;

/**
 * `ApplicationConfig_Application`: the converter's pool is the LibreOffice pool (instances = warm
 * workers, queueSize, maxLatency = seconds a job may wait for a worker); the Chromium bridge is our
 * Chromium pool; the metrics' `auth.enabled` is the opposite of `metrics.public`. Portal, proxies,
 * license, TSA and the key store have no counterpart: empty, or the reference's "none".
 */
const ROWS: FieldRow[] = [
  { field: 'webservices.converter.enabled', read: () => true },
  { field: 'webservices.converter.instances', read: (c) => c.engines.libreoffice.workers, writes: same('engines.libreoffice.workers') },
  { field: 'webservices.converter.queueSize', read: (c) => c.engines.libreoffice.queueSize, writes: same('engines.libreoffice.queueSize') },
  {
    field: 'webservices.converter.maxLatency',
    read: (c) => Math.round(c.engines.libreoffice.queueTimeoutMs / 1000),
    writes: same('engines.libreoffice.queueTimeout'),
  },
  { field: 'webservices.toolbox.enabled', read: () => true },
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
