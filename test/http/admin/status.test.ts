import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, login } from '../../helpers/client.js';
import { convertOk } from '../../helpers/converter.js';
import { eventually, openSession, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { ADMIN_PASSWORD, type TestServer } from '../../helpers/server.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const WEBSERVICES = ['barcode', 'converter', 'ocr', 'pdfa', 'signature', 'toolbox', 'urlconverter'];
const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

interface ExecutableStatus {
  enabled: boolean;
  status: string;
}
interface WebserviceStatus {
  enabled: boolean;
  executables: Record<string, ExecutableStatus>;
  state: {
    instances: Record<string, number>;
    jobs: {
      errorDetails: Record<string, { code: number; count: number; description: string }>;
      executionTimeMs: number;
      lastJobId: number;
      numberOfErrorJobs: number;
      numberOfJobs: number;
      numberOfSuccessfulJobs: number;
    };
    lastUpdate: number;
  };
  status: string;
}
interface ServerStatus {
  java: Record<string, unknown> & { gc: Array<Record<string, unknown>> };
  os: Record<string, unknown>;
  server: Record<string, unknown>;
  webservices: Record<string, WebserviceStatus>;
}

async function adminHeaders(server: TestServer): Promise<Record<string, string>> {
  return bearer((await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token);
}

async function serverStatus(server: TestServer, headers: Record<string, string>): Promise<ServerStatus> {
  const response = await fetch(`${server.rest}/admin/server/status`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as ServerStatus;
}

const keys = (value: object) => Object.keys(value).sort();

describe('admin/server/status and admin/cluster/status', () => {
  const { server } = useTestServer({ session: false });
  let admin: Record<string, string>;
  const startedBefore = Date.now();
  beforeAll(async () => {
    admin = await adminHeaders(server);
  });

  it('answers Admin_ServerStatus with the fields of the reference', async () => {
    const status = await serverStatus(server, admin);
    expect(keys(status)).toEqual(['java', 'os', 'server', 'webservices']);
    expect(keys(status.java)).toEqual(['gc', 'javaName', 'javaVendor', 'javaVersion', 'memoryAllocated', 'memoryFree', 'memoryMax', 'memoryTotalFree', 'memoryUsed']);
    expect(keys(status.os)).toEqual([
      'container',
      'cpuLogicalProcessors',
      'memoryCommittedVirtualSize',
      'memoryFree',
      'memoryFreeSwapSize',
      'memoryTotal',
      'memoryTotalSwapSize',
      'osArchitecture',
      'osName',
      'osVersion',
      'processCpuLoad',
      'systemLoadAverage',
    ]);
    expect(keys(status.server)).toEqual([
      'configurations',
      'hasChangedConfiguration',
      'licenseIsClusterUsage',
      'licenseText',
      'mainVersion',
      'minorVersion',
      'providers',
      'serverPlatform',
      'serverStart',
      'serverVersion',
    ]);
    expect(keys(status.webservices)).toEqual(WEBSERVICES);
    for (const webservice of Object.values(status.webservices)) {
      expect(keys(webservice)).toEqual(['enabled', 'executables', 'state', 'status']);
      expect(keys(webservice.state)).toEqual(['instances', 'jobs', 'lastUpdate']);
      expect(keys(webservice.state.instances)).toEqual(['maxPoolSize', 'maxQueueSize', 'maxUsedPoolSize', 'maxUsedQueueSize', 'poolSize', 'queueSize']);
      expect(keys(webservice.state.jobs)).toEqual(['errorDetails', 'executionTimeMs', 'lastJobId', 'numberOfErrorJobs', 'numberOfJobs', 'numberOfSuccessfulJobs']);
      expect(['unknown', 'ok', 'disabled', 'error', 'notLicensed']).toContain(webservice.status);
    }
  });

  it('describes this server, its Node.js runtime and the machine', async () => {
    const { server: info, java, os: machine } = await serverStatus(server, admin);
    const [major, minor] = PACKAGE_VERSION.split('.').map(Number);
    expect(info).toMatchObject({ serverVersion: PACKAGE_VERSION, mainVersion: major, minorVersion: minor, serverPlatform: 'linux', hasChangedConfiguration: false });
    expect(info.serverStart).toBeGreaterThanOrEqual(startedBefore);
    expect(info.serverStart).toBeLessThanOrEqual(Date.now());
    expect(java).toMatchObject({ javaName: 'Node.js', javaVersion: process.versions.node });
    const heap = java as unknown as Record<string, number>;
    expect(heap.memoryUsed).toBeGreaterThan(0);
    expect(heap.memoryAllocated).toBe(heap.memoryUsed! + heap.memoryFree!);
    expect(heap.memoryMax).toBe(heap.memoryUsed! + heap.memoryTotalFree!);
    for (const gc of java.gc) expect(keys(gc)).toEqual(['collectionCount', 'collectionTime', 'name']);
    expect(machine).toMatchObject({ cpuLogicalProcessors: os.availableParallelism(), memoryTotal: os.totalmem(), osName: os.type(), osVersion: os.release() });
    expect(machine.processCpuLoad).toBeGreaterThanOrEqual(0);
    expect(machine.processCpuLoad).toBeLessThanOrEqual(1);
  });

  it('health-checks the engines of each web service: toolbox ok, converter not ok with LibreOffice and Chromium switched off', async () => {
    const { webservices } = await serverStatus(server, admin);
    expect(webservices.toolbox).toMatchObject({
      enabled: true,
      status: 'ok',
      executables: { qpdf: { enabled: true, status: 'ok' }, ghostscript: { enabled: true, status: 'ok' }, poppler: { enabled: true, status: 'ok' } },
    });
    // This test server starts without LibreOffice and Chromium (startTestServer without engines).
    expect(webservices.converter!.status).not.toBe('ok');
    expect(webservices.converter!.executables).toMatchObject({
      libreoffice: { enabled: false, status: 'disabled' },
      chromium: { enabled: false, status: 'disabled' },
      images: { enabled: true, status: 'ok' },
    });
    // The image pool is the converter's only pool here.
    expect(webservices.converter!.state.instances).toMatchObject({ maxPoolSize: os.availableParallelism(), poolSize: os.availableParallelism(), queueSize: 0 });
    // The urlconverter needs Chromium, switched off here.
    expect(webservices.urlconverter!.enabled).toBe(true);
    expect(webservices.urlconverter!.status).not.toBe('ok');
    expect(webservices.urlconverter!.executables).toMatchObject({ chromium: { enabled: false, status: 'disabled' } });
    // The pdfa web service needs Ghostscript and qpdf only.
    expect(webservices.pdfa).toMatchObject({ enabled: true, status: 'ok', executables: { qpdf: { enabled: true, status: 'ok' }, ghostscript: { enabled: true, status: 'ok' } } });
    // The barcode web service needs qpdf only (decrypting protected input).
    expect(webservices.barcode).toMatchObject({ enabled: true, status: 'ok', executables: { qpdf: { enabled: true, status: 'ok' } } });
    // The signature web service needs qpdf only (reading the objects an incremental update changes).
    expect(webservices.signature).toMatchObject({ enabled: true, status: 'ok', executables: { qpdf: { enabled: true, status: 'ok' } } });
    // The ocr web service: the Tesseract pool, poppler and qpdf.
    expect(webservices.ocr).toMatchObject({ enabled: true, status: 'ok', executables: { tesseract: { enabled: true, status: 'ok' }, poppler: { enabled: true, status: 'ok' } } });
  });

  it('counts the operations each web service answered, with their errors', async () => {
    const before = (await serverStatus(server, admin)).webservices.toolbox!.state.jobs;
    const session = await openSession(server.rest);
    const pdf = await uploadFile(server.rest, session.token, await numberedPdf(1), 'one.pdf');
    await toolboxOk(server.rest, session.token, pdf.documentId, [{ rotate: { pages: '1', degrees: 90 } }]);
    expect((await runToolbox(server.rest, session.token, 'f'.repeat(32), [{ rotate: { pages: '1', degrees: 90 } }])).status).toBe(404);

    const after = await eventually(async () => {
      const jobs = (await serverStatus(server, admin)).webservices.toolbox!.state.jobs;
      expect(jobs.numberOfJobs).toBe(before.numberOfJobs + 2);
      return jobs;
    });
    expect(after.numberOfSuccessfulJobs).toBe(before.numberOfSuccessfulJobs + 1);
    expect(after.numberOfErrorJobs).toBe(before.numberOfErrorJobs + 1);
    expect(after.lastJobId).toBe(after.numberOfJobs - 1);
    expect(after.executionTimeMs).toBeGreaterThanOrEqual(before.executionTimeMs);
    expect(after.errorDetails['-70']).toMatchObject({ code: -70, count: (before.errorDetails['-70']?.count ?? 0) + 1 });
    expect(after.errorDetails['-70']!.description).toMatch(/document/i);
  });

  it('answers Cluster_Status with this server as the only member', async () => {
    const response = await fetch(`${server.rest}/admin/cluster/status`, { headers: admin });
    expect(response.status).toBe(200);
    const status = (await response.json()) as Record<string, unknown> & { nodes: Array<Record<string, unknown>>; settings: Record<string, unknown> };
    expect(keys(status)).toEqual(['error', 'id', 'isDemoMode', 'localAddress', 'maximumAllowedNodes', 'namespace', 'nodes', 'settings']);
    const address = new URL(server.url).host; // 127.0.0.1:<port>
    expect(status).toMatchObject({ error: { code: 0 }, isDemoMode: false, localAddress: address, maximumAllowedNodes: 1 });
    expect(status.nodes).toEqual([{ error: { code: 0, description: '', exitCode: 0, hideException: false }, isCoordinator: true, localAddress: address, name: os.hostname(), state: 'up' }]);
    expect(status.settings).toMatchObject({ mode: 'single', role: 'coordinator', nodeName: os.hostname(), secretKey: '' });
  });

  it('refuses non-administrators (403) and callers without a token (401) with the error structure', async () => {
    const anonymous = bearer((await login(server.rest)).token);
    for (const route of ['admin/server/status', 'admin/cluster/status']) {
      for (const [headers, status, errorCode] of [
        [anonymous, 403, -67],
        [{}, 401, -61],
      ] as const) {
        const response = await fetch(`${server.rest}/${route}`, { headers });
        expect(response.status).toBe(status);
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(await response.json()).toMatchObject({ errorCode, errorMessage: expect.any(String) });
      }
    }
  });
});

describe('a failing engine', () => {
  const { server } = useTestServer({ env: { QUIRE_ENGINES__GHOSTSCRIPT: '/nonexistent/gs' }, session: false });

  it('turns the web services that need it to error', async () => {
    const { webservices } = await serverStatus(server, await adminHeaders(server));
    expect(webservices.toolbox).toMatchObject({ status: 'error', executables: { ghostscript: { enabled: true, status: 'error' }, qpdf: { status: 'ok' } } });
    expect(webservices.converter).toMatchObject({ status: 'error', executables: { ghostscript: { enabled: true, status: 'error' } } });
  });
});

describe('with the conversion engines running', () => {
  const { server } = useTestServer({ engines: true, env: { QUIRE_ENGINES__LIBREOFFICE__WORKERS: '1', QUIRE_ENGINES__CHROMIUM__WORKERS: '1' }, session: false, startTimeoutMs: 120_000 });
  let admin: Record<string, string>;
  beforeAll(async () => {
    admin = await adminHeaders(server);
  }, 120_000);

  it('reports the converter ok when LibreOffice and Chromium answer', async () => {
    const { converter } = (await serverStatus(server, admin)).webservices;
    expect(converter).toMatchObject({
      enabled: true,
      status: 'ok',
      executables: { libreoffice: { enabled: true, status: 'ok' }, chromium: { enabled: true, status: 'ok' }, images: { status: 'ok' } },
    });
    expect(converter!.state.instances.maxPoolSize).toBe(2 + os.availableParallelism());
  });

  it('notices a killed LibreOffice and reports ok again once the pool replaced it', async () => {
    const soffice = officePids(server.dataDir);
    expect(soffice.length).toBe(1);
    process.kill(soffice[0]!, 'SIGKILL');

    // The health check fails while the listener is gone (unless the replacement is up before the
    // cached result expires); either way the pool must replace it and the status turn ok again.
    const seen = new Set<string>();
    await eventually(
      async () => {
        const state = (await serverStatus(server, admin)).webservices.converter!.executables.libreoffice!.status;
        seen.add(state);
        expect(state).toBe('ok');
        const replaced = officePids(server.dataDir);
        expect(replaced.length).toBe(1);
        expect(replaced[0]).not.toBe(soffice[0]);
      },
      60_000,
      500,
    );
    expect([...seen].every((state) => state === 'ok' || state === 'error')).toBe(true);

    // And it converts again.
    const session = await openSession(server.rest);
    const uploaded = await uploadFile(server.rest, session.token, readFileSync(path.resolve(import.meta.dirname, '../../fixtures/office/sample.odt')), 'sample.odt');
    expect((await convertOk(server.rest, session.token, uploaded.documentId)).mimeType).toBe('application/pdf');
  }, 90_000);
});

/** The soffice processes of this server's LibreOffice pool (their profiles live in its data dir). */
function officePids(dataDir: string): number[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes('soffice') && line.includes(`${dataDir}/engines/libreoffice/`) && !line.includes('uno_worker.py')).map((line) => Number.parseInt(line.trim(), 10));
}
