import Type, { type Static, type TSchema } from 'typebox';
import { component, ref } from './shared.js';

// Admin_ServerStatus and Cluster_Status of reference §11.1 (field names and enums as the webPDF clients read them).

const int32 = () => Type.Integer({ format: 'int32' });
const int64 = (description?: string) => Type.Integer({ format: 'int64', ...(description ? { description } : {}) });

/** A JSON map with string keys (OpenAPI 3.0 has no patternProperties). */
function map<T extends TSchema>(value: T) {
  return Type.Unsafe<Record<string, Static<T>>>(Type.Object({}, { additionalProperties: value }));
}

export const AdminJavaStatusGC = component(
  Type.Object(
    { collectionCount: int64(), collectionTime: int64('milliseconds'), name: Type.String({ description: 'V8 collection kind: minor, major, incremental, weakcb' }) },
    { $id: 'Admin_JavaStatusGC' },
  ),
);

export const AdminJavaStatus = component(
  Type.Object(
    {
      gc: Type.Array(ref(AdminJavaStatusGC)),
      javaName: Type.String({ description: 'the runtime: Node.js' }),
      javaVendor: Type.String(),
      javaVersion: Type.String(),
      memoryAllocated: int64('committed V8 heap, bytes'),
      memoryFree: int64('committed but unused heap, bytes'),
      memoryMax: int64('heap limit, bytes'),
      memoryTotalFree: int64('heap limit minus used heap, bytes'),
      memoryUsed: int64('used heap, bytes'),
    },
    { $id: 'Admin_JavaStatus', description: "The runtime of the server (Node.js for Quire), in the shape of the reference's JVM status." },
  ),
);

export const AdminOsStatusContainer = component(Type.Object({ name: Type.String({ description: 'docker, podman, kubernetes, or empty' }) }, { $id: 'Admin_OsStatusContainer' }));

export const AdminOsStatus = component(
  Type.Object(
    {
      container: ref(AdminOsStatusContainer),
      cpuLogicalProcessors: int32(),
      memoryCommittedVirtualSize: int64('virtual memory of the server process, bytes'),
      memoryFree: int64(),
      memoryFreeSwapSize: int64(),
      memoryTotal: int64(),
      memoryTotalSwapSize: int64(),
      osArchitecture: Type.String(),
      osName: Type.String(),
      osVersion: Type.String(),
      processCpuLoad: Type.Number({ format: 'double', description: 'share of all processors the server used since the previous status call, 0–1' }),
      systemLoadAverage: Type.Number({ format: 'double', description: 'one-minute load average' }),
    },
    { $id: 'Admin_OsStatus' },
  ),
);

export const AdminConfigurationStatusEntry = component(Type.Object({ flags: Type.Array(Type.Enum(['readOnly', 'containsVariables', 'changed'])) }, { $id: 'Admin_ConfigurationStatusEntry' }));

export const AdminProviderEntry = component(Type.Object({ fileName: Type.String(), format: Type.Enum(['plain', 'json', 'yaml', 'xml']), name: Type.String() }, { $id: 'Admin_ProviderEntry' }));

export const AdminProviders = component(
  Type.Object(
    { documentStorage: Type.Array(ref(AdminProviderEntry)), fileStorage: Type.Array(ref(AdminProviderEntry)), sessionStorage: Type.Array(ref(AdminProviderEntry)) },
    { $id: 'Admin_Providers' },
  ),
);

export const AdminServerVersionInfo = component(
  Type.Object(
    {
      configurations: map(ref(AdminConfigurationStatusEntry)),
      hasChangedConfiguration: Type.Boolean({ description: 'the configuration file changed after it was loaded; a restart applies it' }),
      licenseIsClusterUsage: Type.Boolean(),
      licenseText: Type.String(),
      mainVersion: int32(),
      minorVersion: int32(),
      providers: ref(AdminProviders),
      serverPlatform: Type.Enum(['windows', 'linux']),
      serverStart: int64('epoch milliseconds (UTC) of the server start; in-process restarts keep it'),
      serverVersion: Type.String(),
    },
    { $id: 'Admin_ServerVersionInfo' },
  ),
);

export const AdminExecutableStatus = component(Type.Object({ enabled: Type.Boolean(), status: Type.Enum(['unknown', 'ok', 'disabled', 'error']) }, { $id: 'Admin_ExecutableStatus' }));

export const AdminPoolServerState = component(
  Type.Object(
    {
      maxPoolSize: int32(),
      maxQueueSize: int32(),
      maxUsedPoolSize: int32(),
      maxUsedQueueSize: int32(),
      poolSize: int32(),
      queueSize: int32(),
    },
    { $id: 'Admin_PoolServerState', description: 'the engine pools of the web service, summed: configured and live workers, queue limit and waiting jobs, high-water marks' },
  ),
);

export const AdminErrorCountServerState = component(Type.Object({ code: int32(), count: int32(), description: Type.String() }, { $id: 'Admin_ErrorCountServerState' }));

export const AdminJobServerState = component(
  Type.Object(
    {
      errorDetails: map(ref(AdminErrorCountServerState)),
      executionTimeMs: int64(),
      lastJobId: int32(),
      numberOfErrorJobs: int32(),
      numberOfJobs: int32(),
      numberOfSuccessfulJobs: int32(),
    },
    { $id: 'Admin_JobServerState', description: 'the operations this instance answered since it started; errorDetails by errorCode' },
  ),
);

export const AdminServerState = component(Type.Object({ instances: ref(AdminPoolServerState), jobs: ref(AdminJobServerState), lastUpdate: int64() }, { $id: 'Admin_ServerState' }));

export const AdminWebserviceStatus = component(
  Type.Object(
    {
      enabled: Type.Boolean({ description: 'false for web services this server does not offer' }),
      executables: map(ref(AdminExecutableStatus)),
      state: ref(AdminServerState),
      status: Type.Enum(['unknown', 'ok', 'disabled', 'error', 'notLicensed'], {
        description: 'ok: every engine answered its health check; error: an enabled engine did not; disabled: not offered, or an engine is switched off',
      }),
    },
    { $id: 'Admin_WebserviceStatus' },
  ),
);

export const AdminServerStatus = component(
  Type.Object({ java: ref(AdminJavaStatus), os: ref(AdminOsStatus), server: ref(AdminServerVersionInfo), webservices: map(ref(AdminWebserviceStatus)) }, { $id: 'Admin_ServerStatus' }),
);

export const WebserviceResult = component(
  Type.Object(
    { code: int32(), description: Type.String(), exitCode: int32(), hideException: Type.Boolean() },
    { $id: 'Webservice_Result', description: 'result of an administrative action; code 0 is success, negative codes are webPDF error numbers' },
  ),
);

export const ClusterNodeStatus = component(
  Type.Object(
    {
      error: ref(WebserviceResult),
      isCoordinator: Type.Boolean(),
      localAddress: Type.String(),
      name: Type.String(),
      state: Type.Enum(['unknown', 'init', 'connect', 'wait', 'boot', 'locked', 'up', 'down']),
      member: Type.Optional(
        Type.Object(
          {
            role: Type.Enum(['all', 'api', 'worker']),
            version: Type.String(),
            startedAt: int64('epoch milliseconds'),
            heartbeatAt: int64("epoch milliseconds of the member's last heartbeat (its own clock)"),
            lostAt: Type.Optional(int64('epoch milliseconds when the loss was found and its leases released')),
            loadAverage: Type.Number(),
            cpuCount: Type.Integer(),
            health: Type.Enum(['UP', 'DEGRADED', 'STARTING']),
            engines: map(Type.Enum(['ok', 'error', 'disabled', 'starting'])),
            pools: Type.Array(
              Type.Object({
                engine: Type.String(),
                size: Type.Integer(),
                ready: Type.Integer(),
                busy: Type.Integer(),
                starting: Type.Integer(),
                queued: Type.Integer(),
                queueLimit: Type.Integer(),
              }),
            ),
          },
          { description: "Quire (cluster mode): the member's role, version, load, engine health and pools from its last heartbeat" },
        ),
      ),
    },
    { $id: 'Cluster_NodeStatus' },
  ),
);

export const ClusterConfiguration = component(Type.Object({ source: Type.Enum(['coordinator', 'node']) }, { $id: 'Cluster_Configuration' }));

export const ClusterSettings = component(
  Type.Object(
    {
      configuration: Type.Optional(ref(ClusterConfiguration)),
      connectTimeout: int32(),
      mode: Type.Enum(['single', 'cluster']),
      name: Type.String(),
      nodeName: Type.String(),
      role: Type.Enum(['coordinator', 'member']),
      secretKey: Type.String(),
      stopOnError: Type.Boolean(),
    },
    { $id: 'Cluster_Settings' },
  ),
);

export const ClusterStatus = component(
  Type.Object(
    {
      error: ref(WebserviceResult),
      id: Type.String(),
      isDemoMode: Type.Boolean(),
      localAddress: Type.String({ description: 'host:port at which this node was reached' }),
      maximumAllowedNodes: int32(),
      namespace: Type.String(),
      nodes: Type.Array(ref(ClusterNodeStatus)),
      settings: ref(ClusterSettings),
    },
    { $id: 'Cluster_Status' },
  ),
);
