import { availableParallelism } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { basic, bearer, login } from '../../helpers/client.js';
import { convertOk } from '../../helpers/converter.js';
import { eventually, openSession, PNG_1X1, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const USERS_YAML = `
users:
  - name: admin
    password: ${ADMIN_PASSWORD}
    roles: [admin]
  - name: alice
    password: wonderland
    roles: [user]
`;

/** The samples of an exposition: `name{label="value",...}` (labels sorted) → value. */
function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels = [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => `${name}="${value}"`).sort();
    samples.set(labels.length > 0 ? `${match[1]}{${labels.join(',')}}` : match[1]!, Number(match[3]));
  }
  return samples;
}

/** The metric names an exposition declares (# TYPE lines). */
function names(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!).sort();
}

describe('Prometheus metrics', () => {
  const { server } = useTestServer({ yaml: USERS_YAML, session: false });
  let admin: Record<string, string>;
  beforeAll(async () => {
    admin = bearer((await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token);
  });

  const scrape = async (url = `${server.rest}/`, headers = admin) => {
    const response = await fetch(url, { headers });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(CONTENT_TYPE);
    return response.text();
  };
  const sample = (samples: Map<string, number>, key: string) => samples.get(key) ?? 0;

  it('serves the exposition to an admin session and to admin Basic credentials', async () => {
    for (const headers of [admin, { authorization: basic('admin', ADMIN_PASSWORD) }]) {
      const text = await scrape(`${server.rest}/`, headers);
      expect(text).toContain('# TYPE quire_http_requests_total counter');
      expect(text).toContain('# TYPE quire_http_request_duration_seconds histogram');
      expect(text).toContain('# TYPE quire_process_cpu_user_seconds_total counter');
      expect(text).toContain('# TYPE quire_nodejs_eventloop_lag_p99_seconds gauge');
      expect(text).toContain('# TYPE quire_nodejs_heap_size_used_bytes gauge');
      // Every line parses, and every web service has its operation series from the start.
      const samples = parse(text);
      for (const webservice of ['converter', 'toolbox', 'pdfa', 'signature', 'ocr', 'barcode', 'urlconverter']) {
        expect(samples.has(`quire_operations_total{error_code="",result="ok",webservice="${webservice}"}`)).toBe(true);
      }
    }
  });

  it('serves the same metrics at /webPDF/metrics (where the Java client looks)', async () => {
    const outside = await scrape(`${server.url}/webPDF/metrics`);
    const inside = await scrape(`${server.rest}/`);
    expect(names(outside)).toEqual(names(inside));
    expect(names(outside).length).toBeGreaterThan(40);
    expect((await scrape(`${server.url}/webPDF/metrics`, { authorization: basic('admin', ADMIN_PASSWORD) })).length).toBeGreaterThan(1000);
  });

  it('counts requests, web-service operations, engine jobs and stored bytes of real calls', async () => {
    const session = await openSession(server.rest);
    const before = parse(await scrape());

    const pdf = await uploadFile(server.rest, session.token, await numberedPdf(2), 'two.pdf');
    const rotated = await toolboxOk(server.rest, session.token, pdf.documentId, [{ rotate: { pages: '1', degrees: 90 } }]);
    const failed = await runToolbox(server.rest, session.token, '0'.repeat(32), [{ rotate: { pages: '1', degrees: 90 } }]);
    expect(failed.status).toBe(404);
    expect(failed.error?.errorCode).toBe(-70);
    const png = await uploadFile(server.rest, session.token, PNG_1X1, 'dot.png');
    const converted = await convertOk(server.rest, session.token, png.documentId);

    // The observer counts a request once its response is done: wait for the last one.
    const after = await eventually(async () => {
      const samples = parse(await scrape());
      expect(sample(samples, 'quire_operations_total{error_code="",result="ok",webservice="converter"}')).toBe(
        sample(before, 'quire_operations_total{error_code="",result="ok",webservice="converter"}') + 1,
      );
      return samples;
    });
    const delta = (key: string) => sample(after, key) - sample(before, key);

    expect(delta('quire_http_requests_total{method="POST",route="/webPDF/rest/documents",status="303"}')).toBe(2);
    expect(delta('quire_http_requests_total{method="POST",route="/webPDF/rest/toolbox/:documentId",status="303"}')).toBe(1);
    expect(delta('quire_http_requests_total{method="POST",route="/webPDF/rest/toolbox/:documentId",status="404"}')).toBe(1);
    expect(delta('quire_http_request_duration_seconds_count{method="POST",route="/webPDF/rest/toolbox/:documentId"}')).toBe(2);
    expect(delta('quire_operations_total{error_code="",result="ok",webservice="toolbox"}')).toBe(1);
    expect(delta('quire_operations_total{error_code="-70",result="failed",webservice="toolbox"}')).toBe(1);
    expect(delta('quire_operation_duration_seconds_count{result="ok",webservice="toolbox"}')).toBe(1);
    expect(delta('quire_operation_duration_seconds_count{result="failed",webservice="toolbox"}')).toBe(1);
    // Document uploads are no web-service operation.
    expect([...after.keys()].some((key) => key.startsWith('quire_operations_total') && key.includes('webservice="documents"'))).toBe(false);

    // The PNG went through the in-process image pool.
    expect(delta('quire_engine_jobs_total{engine="images",result="ok"}')).toBe(1);
    expect(delta('quire_engine_job_duration_seconds_count{engine="images",outcome="ok"}')).toBe(1);

    // Storage: two documents more, their current sizes.
    expect(delta('quire_storage_documents')).toBe(2);
    expect(delta('quire_storage_bytes')).toBe(rotated.fileSize + converted.fileSize);
  });

  it('shows every engine pool', async () => {
    const samples = parse(await scrape());
    expect(sample(samples, 'quire_engine_pool_size{engine="images"}')).toBe(availableParallelism());
    const workers = ['busy', 'idle', 'starting'].map((state) => sample(samples, `quire_engine_workers{engine="images",state="${state}"}`));
    expect(workers.reduce((a, b) => a + b, 0)).toBe(availableParallelism());
    for (const key of ['quire_engine_queued_jobs{engine="images"}', 'quire_engine_queue_limit{engine="images"}', 'quire_engine_restarts_total{engine="images"}']) {
      expect(samples.has(key)).toBe(true);
    }
    // LibreOffice and Chromium are switched off in this server: no pools, no series.
    expect([...samples.keys()].some((key) => key.includes('engine="libreoffice"'))).toBe(false);
  });

  it('keeps the session gauge equal to the sessions that exist, and counts logins and logouts', async () => {
    const before = parse(await scrape());
    expect(sample(before, 'quire_sessions_active')).toBe((await server.sessions.list()).length);
    const first = await login(server.rest);
    await login(server.rest);
    const logout = await fetch(`${server.rest}/authentication/user/logout`, { headers: bearer(first.token) });
    expect(logout.status).toBe(200);
    const after = parse(await scrape());
    expect(sample(after, 'quire_sessions_active')).toBe(sample(before, 'quire_sessions_active') + 1);
    expect(sample(after, 'quire_sessions_active')).toBe((await server.sessions.list()).length);
    expect(sample(after, 'quire_sessions_created_total') - sample(before, 'quire_sessions_created_total')).toBe(2);
    expect(sample(after, 'quire_sessions_ended_total{reason="logout"}') - sample(before, 'quire_sessions_ended_total{reason="logout"}')).toBe(1);
  });

  it('refuses users (403), wrong credentials and callers without any (401), with the error structure', async () => {
    const anonymous = bearer((await login(server.rest)).token);
    const alice = bearer((await login(server.rest, { name: 'alice', password: 'wonderland' })).token);
    const cases: Array<[Record<string, string>, number, number]> = [
      [anonymous, 403, -67],
      [alice, 403, -67],
      [{ authorization: basic('alice', 'wonderland') }, 403, -67],
      [{ authorization: basic('admin', 'wrong') }, 401, -64],
      [{}, 401, -61],
    ];
    for (const url of [`${server.rest}/`, `${server.url}/webPDF/metrics`]) {
      for (const [headers, status, errorCode] of cases) {
        const response = await fetch(url, { headers });
        expect(response.status).toBe(status);
        expect(response.headers.get('content-type')).toBe('application/json');
        const body = (await response.json()) as { errorCode: number; errorMessage: string };
        expect(body.errorCode).toBe(errorCode);
        expect(body.errorMessage).not.toBe('');
      }
    }
  });

  it('documents the route with both Bearer and Basic credentials in the OpenAPI document', async () => {
    const document = (await (await fetch(`${server.rest}/openapi.json`)).json()) as { paths: Record<string, Record<string, { security: unknown; operationId: string }>> };
    expect(document.paths['/']!.get).toMatchObject({ operationId: 'getMetrics', security: [{ BearerAuth: [] }, { BasicAuth: [] }] });
  });
});

describe('public metrics (metrics.public)', () => {
  const { server } = useTestServer({ env: { QUIRE_METRICS__PUBLIC: 'true' }, session: false });

  it('needs no credentials at either path', async () => {
    for (const url of [`${server.rest}/`, `${server.url}/webPDF/metrics`]) {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(CONTENT_TYPE);
      expect(await response.text()).toContain('# TYPE quire_sessions_active gauge');
    }
  });
});
