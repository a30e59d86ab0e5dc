import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, login } from '../../helpers/client.js';
import { eventually, openSession, uploadFile, type ErrorBody, type TestSession } from '../../helpers/documents.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../../helpers/server.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const WEBSERVICES = ['signature', 'pdfa', 'toolbox', 'converter', 'urlconverter', 'ocr', 'barcode'];

interface TimeFrame {
  executionTimeMs: number;
  numberOfErrors: number;
  numberOfJobs: number;
  formats: Record<string, unknown>;
}
type StatisticData = Record<string, Record<string, TimeFrame>>;

/** Sums the frames of one web service. */
function totals(data: StatisticData, webservice: string): { jobs: number; errors: number; ms: number } {
  const frames = Object.values(data[webservice] ?? {});
  return {
    jobs: frames.reduce((sum, f) => sum + f.numberOfJobs, 0),
    errors: frames.reduce((sum, f) => sum + f.numberOfErrors, 0),
    ms: frames.reduce((sum, f) => sum + f.executionTimeMs, 0),
  };
}

/** The Java client's form: yyyy-MM-dd'T'HH:mm:ss±hh:mm, here in +02:00. */
function javaDate(at: number): string {
  return `${new Date(at + 2 * 3_600_000).toISOString().slice(0, 19)}+02:00`;
}

describe('admin/statistic', () => {
  let dataDir: string;
  let server: TestServer | undefined;
  let admin: string;
  let user: TestSession;
  const ranAt = Date.now();

  async function statistic(query: string, token = admin): Promise<Response> {
    return fetch(`${server!.rest}/admin/statistic/${query}`, { headers: { ...bearer(token), accept: 'application/json' } });
  }

  async function data(query: string): Promise<StatisticData> {
    const response = await statistic(query);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    return ((await response.json()) as { data: StatisticData }).data;
  }

  async function expectParameterError(query: string, text?: RegExp): Promise<void> {
    const response = await statistic(query);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as ErrorBody;
    expect(body.errorCode).toBe(-14);
    if (text) expect(body.errorMessage).toMatch(text);
  }

  const range = () => `start=${encodeURIComponent(new Date(ranAt - 3_600_000).toISOString())}&end=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-statistics-'));
    server = await startTestServer({ dataDir });
    admin = (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token;
    user = await openSession(server.rest);

    // Operations that really run: three toolbox calls that succeed, one that fails.
    const document = await uploadFile(server.rest, user.token, await numberedPdf(2), 'counted.pdf');
    for (const degrees of [90, 180, 270]) {
      await toolboxOk(server.rest, user.token, document.documentId, [{ rotate: { pages: '1', degrees } }]);
    }
    const failed = await runToolbox(server.rest, user.token, '0'.repeat(32), [{ rotate: { pages: '1', degrees: 90 } }]);
    expect(failed.status).toBe(404);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts the toolbox calls that ran, per minute and per hour, and nothing for the other web services', async () => {
    // The observer counts a call once its response has been sent: allow it that moment.
    const minutes = await eventually(async () => {
      const result = await data(`realtime/minute?${range()}`);
      expect(totals(result, 'toolbox')).toMatchObject({ jobs: 4, errors: 1 });
      return result;
    });
    expect(Object.keys(minutes).sort()).toEqual([...WEBSERVICES].sort());
    for (const other of WEBSERVICES.filter((w) => w !== 'toolbox')) expect(minutes[other]).toEqual({});
    for (const [key, frame] of Object.entries(minutes.toolbox!)) {
      expect(key).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
      expect(frame.formats).toEqual({});
      expect(frame.executionTimeMs).toBeGreaterThanOrEqual(0);
    }
    expect(totals(minutes, 'toolbox').ms).toBeGreaterThan(0);

    const hours = await data(`realtime/hour?${range()}`);
    expect(totals(hours, 'toolbox')).toMatchObject({ jobs: 4, errors: 1 });
    for (const key of Object.keys(hours.toolbox!)) expect(key).toMatch(/T\d\d:00:00\.000Z$/);
    // Uploads (documents) and these admin calls are no web-service operations.
    expect(totals(hours, 'converter').jobs).toBe(0);
  });

  it('keeps the same counts in the persistent source and answers without bounds', async () => {
    const persistent = await data('persistent/day');
    expect(totals(persistent, 'toolbox')).toMatchObject({ jobs: 4, errors: 1 });
    const year = await data('realtime/year');
    expect(totals(year, 'toolbox')).toMatchObject({ jobs: 4, errors: 1 });
  });

  it('answers only the requested web services', async () => {
    const selected = await data(`realtime/month?webservice=toolbox&webservice=converter&${range()}`);
    expect(Object.keys(selected).sort()).toEqual(['converter', 'toolbox']);
    expect(totals(selected, 'toolbox').jobs).toBe(4);
    // What the clients' own tests ask: one web service, yesterday..now, per month.
    const single = await data(`realtime/month?webservice=converter&start=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}&end=${encodeURIComponent(new Date().toISOString())}`);
    expect(single).toEqual({ converter: {} });
  });

  it('accepts both ISO-8601 forms of the clients (and the decimal comma)', async () => {
    const from = ranAt - 3_600_000;
    const to = Date.now() + 60_000;
    const java = await data(`realtime/hour?webservice=toolbox&start=${encodeURIComponent(javaDate(from))}&end=${encodeURIComponent(javaDate(to))}`);
    expect(totals(java, 'toolbox').jobs).toBe(4);
    // The Java client does not percent-encode the '+': it arrives as a blank.
    const unencoded = await data(`realtime/hour?webservice=toolbox&start=${javaDate(from)}&end=${javaDate(to)}`);
    expect(totals(unencoded, 'toolbox').jobs).toBe(4);
    const comma = await data(`realtime/hour?webservice=toolbox&start=${new Date(from).toISOString().replace('.', ',')}`);
    expect(totals(comma, 'toolbox').jobs).toBe(4);
    // A range that ends before the calls leaves them out.
    const before = await data(`realtime/minute?webservice=toolbox&end=${encodeURIComponent(javaDate(ranAt - 7_200_000))}`);
    expect(before).toEqual({ toolbox: {} });
  });

  it('refuses unknown enums, malformed dates and a start after the end with -14', async () => {
    await expectParameterError('weekly/minute', /dataSource/);
    await expectParameterError('realtime/week', /aggregation/);
    await expectParameterError('realtime/minute?webservice=documents', /webservice/);
    await expectParameterError('realtime/minute?start=yesterday', /start/);
    await expectParameterError('realtime/minute?end=2022-01-20T12:30:00', /end/);
    await expectParameterError(`realtime/minute?start=2022-01-21T00:00:00Z&end=2022-01-20T00:00:00Z`, /start.*after/);
  });

  it('needs an administrator: 403 for other sessions, 401 without a token', async () => {
    const forbidden = await statistic('realtime/minute', user.token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('content-type')).toBe('application/json');
    expect(((await forbidden.json()) as ErrorBody).errorCode).toBe(-67);
    const anonymous = await fetch(`${server!.rest}/admin/statistic/realtime/minute`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as ErrorBody).errorCode).toBe(-61);
  });

  it('is tagged experimental in the OpenAPI document', async () => {
    const document = (await (await fetch(`${server!.rest}/openapi.json`)).json()) as { paths: Record<string, Record<string, { tags: string[] }>> };
    expect(document.paths['/admin/statistic/{dataSource}/{aggregation}']!.get!.tags).toEqual(['administration', 'experimental']);
  });

  it('keeps the persistent statistics across a server restart; realtime starts again', async () => {
    await server!.stop();
    server = undefined;
    const file = JSON.parse(readFileSync(path.join(dataDir, 'statistics', 'persistent.json'), 'utf8')) as { frames: Record<string, unknown> };
    expect(Object.keys(file.frames)).toEqual(['toolbox']);

    server = await startTestServer({ dataDir });
    admin = (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token;
    expect(totals(await data('persistent/day?webservice=toolbox'), 'toolbox')).toMatchObject({ jobs: 4, errors: 1 });
    expect(totals(await data('persistent/minute?webservice=toolbox'), 'toolbox')).toMatchObject({ jobs: 4, errors: 1 });
    expect(await data('realtime/day?webservice=toolbox')).toEqual({ toolbox: {} });
  });
});

describe('admin/statistic and asynchronous calls', () => {
  it('counts an asynchronous call once, as the operation that ran, not also as the 202 that accepted it', async () => {
    const server = await startTestServer();
    try {
      const admin = (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token;
      const user = await openSession(server.rest);
      const document = await uploadFile(server.rest, user.token, await numberedPdf(1), 'async.pdf');
      const accepted = await fetch(`${server.rest}/toolbox/${document.documentId}?async=true`, {
        method: 'POST',
        headers: { ...bearer(user.token), 'content-type': 'application/json' },
        body: JSON.stringify({ toolbox: [{ rotate: { pages: '1', degrees: 90 } }] }),
      });
      expect(accepted.status).toBe(202);
      const job = `${server.url}${accepted.headers.get('location')}`;
      await eventually(async () => expect(((await (await fetch(job, { headers: bearer(user.token) })).json()) as { state: string }).state).toBe('succeeded'), 20_000, 50);
      const frames = await eventually(async () => {
        const response = await fetch(`${server.rest}/admin/statistic/realtime/hour?webservice=toolbox`, { headers: bearer(admin) });
        const result = ((await response.json()) as { data: StatisticData }).data;
        expect(totals(result, 'toolbox').jobs).toBeGreaterThan(0);
        return result;
      });
      // Give a late second event its chance to show before asserting there is none.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const again = ((await (await fetch(`${server.rest}/admin/statistic/realtime/hour?webservice=toolbox`, { headers: bearer(admin) })).json()) as { data: StatisticData }).data;
      expect(totals(frames, 'toolbox')).toMatchObject({ jobs: 1, errors: 0 });
      expect(totals(again, 'toolbox')).toMatchObject({ jobs: 1, errors: 0 });
    } finally {
      await server.stop();
    }
  });
});
