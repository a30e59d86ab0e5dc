import type { Config } from '../../config/load.js';
import type { OAuthProviderConfig } from '../../config/schema.js';
import { toWireMegabytes } from '../../config/sizes.js';
import { readRows, rowChanges, same, type ConfigurationSection, type FieldEdit, type FieldRow } from './configuration-fields.js';
import { getPath, setPath, type ConfigurationProblem, type WireObject } from './configuration-wire.js';
import { readTrustStoreKeyStore, readTrustStoreMember, trustStoreChanges } from './configuration-truststore.js';
import { HTTPS_CONNECTOR_ROWS, httpsConnectorChanges, readConnectorKeyStores, readHttpsConnectorLists } from './configuration-connectors.js';

/** Session limits on the wire are whole megabytes (a bare number is megabytes in our configuration too). */
function limitRows(suffix: '' | 'User', kind: 'anonymous' | 'user'): FieldRow[] {
  return [
    { field: `localAuth.rest.limits.uploadLimit${suffix}`, read: (c) => toWireMegabytes(c.limits[kind].uploadLimit), writes: same(`limits.${kind}.uploadLimit`) },
    { field: `localAuth.rest.limits.diskSpaceLimit${suffix}`, read: (c) => toWireMegabytes(c.limits[kind].diskSpaceLimit), writes: same(`limits.${kind}.diskSpaceLimit`) },
    { field: `localAuth.rest.limits.maxFiles${suffix}`, read: (c) => c.limits[kind].maxFiles, writes: same(`limits.${kind}.maxFiles`) },
  ];
}

/**
 * `ServerConfig_Server`: the listeners (host.contextPath, connectors.connector[0] = HTTP,
 * connectors.connector[1] = HTTPS with its key store), local authentication (anonymous logins, token
 * lifetime, session limits) and the OAuth providers. No SOAP, no shutdown port: those fields show fixed values.
 */
const ROWS: FieldRow[] = [
  // The public host name (server.hostName): stored and shown; Quire answers with relative URLs, so nothing else reads it.
  { field: 'host.name', read: (c) => c.server.hostName, writes: same('server.hostName') },
  {
    field: 'host.contextPath',
    read: (c) => c.server.contextPath.replace(/^\//, ''),
    writes: { key: 'server.contextPath', value: (wire) => (wire === '' ? '' : `/${String(wire).replace(/^\/+/, '')}`) },
  },
  { field: 'connectors.connector.0.enabled', read: () => true },
  { field: 'connectors.connector.0.protocol', read: () => 'HTTP/1.1' },
  { field: 'connectors.connector.0.address', read: (c) => c.server.host, writes: same('server.host') },
  { field: 'connectors.connector.0.port', read: (c) => c.server.port, writes: same('server.port') },
  // connector[1]: the HTTPS listener (configuration-connectors.ts).
  ...HTTPS_CONNECTOR_ROWS,
  { field: 'localAuth.enabled', read: () => true },
  { field: 'localAuth.rest.enabled', read: () => true },
  { field: 'localAuth.rest.allowAnonymous', read: (c) => c.anonymous, writes: same('anonymous') },
  // Access and refresh token both end with the session.
  { field: 'localAuth.rest.accessToken.expiration', read: (c) => c.session.lifetime, writes: same('session.lifetime') },
  { field: 'localAuth.rest.refreshToken.expiration', read: (c) => c.session.lifetime, writes: same('session.lifetime') },
  ...limitRows('', 'anonymous'),
  ...limitRows('User', 'user'),
  { field: 'localAuth.soap.enabled', read: () => false },
  { field: 'localAuth.soap.allowAnonymous', read: () => false },
  { field: 'shutdown.restart', read: () => true },
  { field: 'user.roleAdminGroup', read: () => 'admin' },
  { field: 'user.roleUserGroup', read: () => 'user' },
];

const PROVIDERS = 'oauth.providers.provider';

interface ProviderWire {
  id: string;
  name: string;
  displayName: string;
  discoveryUrl: string;
  claimRoles: string;
  roleNameAdmin: string;
  roleNameUser: string;
  maxTimeSkew: number;
}

function providerWire(p: OAuthProviderConfig): ProviderWire {
  return {
    id: p.id,
    name: 'generic',
    displayName: p.id,
    discoveryUrl: `${p.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
    claimRoles: p.rolesClaim,
    roleNameAdmin: p.adminRoles.join(','),
    roleNameUser: p.userRoles.join(','),
    maxTimeSkew: p.clockTolerance,
  };
}

const roleList = (wire: string) =>
  wire
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);

/**
 * The OAuth providers: the claim and role mapping and the clock skew of a configured provider can be
 * changed, and a provider can be removed. A new one cannot be added here: its issuer, key set and
 * audience have no field in the envelope.
 */
function providerChanges(posted: unknown, config: Config, shown: Config): { edits: FieldEdit[]; problems: ConfigurationProblem[] } {
  if (!Array.isArray(posted)) return { edits: [], problems: [] };
  const problems: ConfigurationProblem[] = [];
  const byId = new Map(config.oauth.providers.map((p, i) => [p.id, { raw: p, shown: providerWire(shown.oauth.providers[i]!) }]));
  const next: OAuthProviderConfig[] = [];
  let changed = posted.length !== config.oauth.providers.length;
  posted.forEach((item: Partial<ProviderWire>, index) => {
    const field = `configuration.${PROVIDERS}.${index}`;
    const current = item.id === undefined ? undefined : byId.get(item.id);
    if (!current) {
      problems.push({ field: `${field}.id`, key: 'oauth.providers', message: 'a provider cannot be added here: its issuer, key set and audience are configured in the file (oauth.providers)' });
      return;
    }
    for (const fixed of ['name', 'displayName', 'discoveryUrl'] as const) {
      if (item[fixed] !== undefined && item[fixed] !== current.shown[fixed]) {
        problems.push({ field: `${field}.${fixed}`, key: '', message: `is fixed on this server (${JSON.stringify(current.shown[fixed])})` });
      }
    }
    const updated: OAuthProviderConfig = {
      ...current.raw,
      rolesClaim: item.claimRoles ?? current.raw.rolesClaim,
      adminRoles: item.roleNameAdmin === undefined ? current.raw.adminRoles : roleList(item.roleNameAdmin),
      userRoles: item.roleNameUser === undefined ? current.raw.userRoles : roleList(item.roleNameUser),
      clockTolerance: item.maxTimeSkew ?? current.raw.clockTolerance,
    };
    if (JSON.stringify(providerWire(updated)) !== JSON.stringify(providerWire(current.raw))) changed = true;
    next.push(updated);
  });
  const edits: FieldEdit[] = changed && problems.length === 0 ? [{ field: `configuration.${PROVIDERS}`, key: ['oauth', 'providers'], value: next }] : [];
  return { edits, problems };
}

export const serverSection: ConfigurationSection = {
  read({ config, shown }) {
    const configuration = readRows(ROWS, shown);
    setPath(configuration, 'user.xml', {});
    setPath(configuration, PROVIDERS, shown.oauth.providers.map(providerWire));
    readHttpsConnectorLists(configuration, shown);
    const truststore = readTrustStoreMember(config);
    if (truststore) configuration.truststore = truststore;
    const extras: WireObject = { connectorKeyStore: readConnectorKeyStores(config), trustStoreKeyStore: readTrustStoreKeyStore(config) };
    return { configuration, extras };
  },
  async changes(posted, { config, shown }, _mode, envelope) {
    const rows = rowChanges(ROWS, posted, shown);
    const providers = providerChanges(getPath(posted, PROVIDERS), config, shown);
    const https = await httpsConnectorChanges(posted, envelope, config, shown, rows.edits);
    const truststore = await trustStoreChanges(posted, envelope, config);
    return {
      edits: [...rows.edits, ...providers.edits, ...https.edits, ...truststore.edits],
      problems: [...rows.problems, ...providers.problems, ...https.problems, ...truststore.problems],
      files: [...https.files, ...truststore.files],
      fieldOf: (key) => (key.startsWith('oauth.providers') ? `configuration.${PROVIDERS}` : undefined),
    };
  },
};
