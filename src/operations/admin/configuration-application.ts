import { WEBSERVICES } from '../../core/webservices.js';
import { REGISTERED, webServiceModule } from '../webservices.js';
import { readRows, rowChanges, same, type ConfigurationSection, type FieldRow } from './configuration-fields.js';
import { readGlobalKeyStore, readKeystoreLists, SIGNATURE_ROWS, signatureChanges } from './configuration-signature.js';
import type { WireObject } from './configuration-wire.js';

/** Web services of the reference this server does not offer (not in the registry): shown, and refused when switched on. */
const ABSENT_WEBSERVICES = WEBSERVICES.filter((name) => !webServiceModule(name));

/**
 * `ApplicationConfig_Application`: every registered web service is enabled, with the rows its module
 * adds (the converter's pool is the LibreOffice pool: see converter/module.ts); the Chromium bridge is our
 * Chromium pool; the metrics' `auth.enabled` is the opposite of `metrics.public`. `portal` (the `portal.*`
 * keys) are stored and shown as written; `keystore`, `tsa` and `globalKeyStore` are the signature
 * service's settings (configuration-signature.ts); proxies and license have no counterpart: empty.
 */
const ROWS: FieldRow[] = [
  ...REGISTERED.flatMap((module): FieldRow[] => [{ field: `webservices.${module.name}.enabled`, read: () => true }, ...(module.configuration ?? [])]),
  ...ABSENT_WEBSERVICES.map((name): FieldRow => ({ field: `webservices.${name}.enabled`, read: () => false })),
  { field: 'bridges.chromium.enabled', read: (c) => c.engines.chromium.enabled, writes: same('engines.chromium.enabled') },
  { field: 'bridges.chromium.path', read: (c) => c.engines.chromium.executable, writes: same('engines.chromium.executable') },
  ...SIGNATURE_ROWS,
  { field: 'metrics.enabled', read: () => true },
  { field: 'metrics.prometheus.enabled', read: () => true },
  { field: 'metrics.auth.enabled', read: (c) => !c.metrics.public, writes: { key: 'metrics.public', value: (wire) => !wire } },
];

/** JSON with the keys of every object sorted: two members that differ only in key order compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item,
  );
}

export const applicationSection: ConfigurationSection = {
  read({ shown, config }) {
    const configuration = readRows(ROWS, shown, { portal: structuredClone(shown.portal), keystore: readKeystoreLists(shown) });
    const extras: WireObject = { globalKeyStore: readGlobalKeyStore(config) };
    return { configuration, extras };
  },
  async changes(posted, { config, shown }, _mode, envelope) {
    const changes = rowChanges(ROWS, posted, shown);
    const signature = signatureChanges(posted, envelope, config, shown);
    changes.edits.push(...signature.edits);
    changes.problems.push(...signature.problems);
    changes.files = [...(changes.files ?? []), ...signature.files];
    // The portal member is kept whole, as posted: a member left out gets its default again (as it reads).
    const portal = posted.portal;
    if (portal !== undefined && canonical(portal) !== canonical(config.portal)) changes.edits.push({ field: 'configuration.portal', key: ['portal'], value: portal });
    return changes;
  },
};
