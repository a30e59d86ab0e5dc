/**
 * Server and engine status (admin/server/status: each web service's engines, pools and queues) and the
 * calls, errors and durations per minute of the statistics endpoint as SVG charts, refreshed live.
 */
import type { JSX } from 'preact';
import { json } from '../../api/http';
import { formatBytes, locale, useT } from '../../i18n/i18n';
import { useStore } from '../../api/store';
import { BarChart } from '../../components/chart';
import { useLoad } from './use-load';
import { ErrorText } from '../../components/error-text';
import { TableHead } from '../../components/table-head';

interface Status {
  server: { serverVersion: string; serverStart: number };
  os: { osName: string; memoryFree: number; memoryTotal: number; systemLoadAverage: number; cpuLogicalProcessors: number };
  webservices: Record<
    string,
    {
      enabled: boolean;
      status: string;
      executables: Record<string, { enabled: boolean; status: string }>;
      state: {
        instances: { poolSize: number; maxPoolSize: number; queueSize: number; maxQueueSize: number };
        jobs: { numberOfJobs: number; numberOfErrorJobs: number; executionTimeMs: number };
      };
    }
  >;
}

type Frames = Record<string, { numberOfJobs: number; numberOfErrors: number; executionTimeMs: number }>;

const REFRESH_MS = 10_000;
const MINUTES = 30;

export function DashboardPage(): JSX.Element {
  const t = useT();
  const language = useStore(locale);
  const status = useLoad(() => json<Status>('admin/server/status'), [], REFRESH_MS);
  const statistics = useLoad(
    () => json<{ data: Record<string, Frames> }>(`admin/statistic/realtime/minute?start=${encodeURIComponent(new Date(Date.now() - MINUTES * 60_000).toISOString())}`),
    [],
    REFRESH_MS,
  );

  const minutes = lastMinutes(MINUTES);
  const totals = minutes.map((minute) => {
    let calls = 0;
    let errors = 0;
    let time = 0;
    for (const frames of Object.values(statistics.value?.data ?? {})) {
      const frame = Object.entries(frames).find(([start]) => start.slice(0, 16) === minute)?.[1];
      calls += frame?.numberOfJobs ?? 0;
      errors += frame?.numberOfErrors ?? 0;
      time += frame?.executionTimeMs ?? 0;
    }
    return { label: new Date(`${minute}:00Z`).toLocaleTimeString(language, { hour: '2-digit', minute: '2-digit' }), calls, errors, duration: calls > 0 ? Math.round(time / calls) : 0 };
  });

  const server = status.value;
  return (
    <div class="dashboard">
      <ErrorText message={status.error ?? statistics.error} />
      {server && (
        <dl class="facts">
          <div>
            <dt>{t('admin.version')}</dt>
            <dd>{server.server.serverVersion}</dd>
          </div>
          <div>
            <dt>{t('admin.started')}</dt>
            <dd>{new Date(server.server.serverStart).toLocaleString(language)}</dd>
          </div>
          <div>
            <dt>{t('admin.memory')}</dt>
            <dd>
              {formatBytes(server.os.memoryFree, language)} / {formatBytes(server.os.memoryTotal, language)}
            </dd>
          </div>
          <div>
            <dt>{t('admin.load')}</dt>
            <dd>
              {server.os.systemLoadAverage.toFixed(2)} ({server.os.cpuLogicalProcessors} CPU)
            </dd>
          </div>
        </dl>
      )}
      <div class="charts">
        <BarChart title={t('admin.chart.calls')} series={totals.map((total) => ({ label: total.label, value: total.calls, extra: total.errors }))} extraLabel={t('admin.chart.errors')} />
        <BarChart title={t('admin.chart.duration')} series={totals.map((total) => ({ label: total.label, value: total.duration }))} unit="ms" />
      </div>
      {server && (
        <table class="engines">
          <caption>{t('admin.engines')}</caption>
          <TableHead columns={['admin.webservice', 'admin.status', 'admin.executables', 'admin.pool', 'admin.queue', 'admin.calls']} />
          <tbody>
            {Object.entries(server.webservices).map(([name, service]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td>
                  <span class={`badge ${service.status === 'ok' ? 'ok' : service.status === 'error' ? 'warn' : 'info'}`}>{service.status}</span>
                </td>
                <td>
                  {Object.entries(service.executables)
                    .map(([executable, state]) => `${executable}: ${state.status}`)
                    .join(', ') || '–'}
                </td>
                <td>
                  {service.state.instances.poolSize} / {service.state.instances.maxPoolSize}
                </td>
                <td>
                  {service.state.instances.queueSize} / {service.state.instances.maxQueueSize}
                </td>
                <td>
                  {service.state.jobs.numberOfJobs} ({t('admin.errorsCount', { count: service.state.jobs.numberOfErrorJobs })})
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** The last n minutes as "yyyy-MM-ddTHH:mm" (UTC, as the statistics' frames start). */
function lastMinutes(count: number): string[] {
  const now = Math.floor(Date.now() / 60_000) * 60_000;
  return Array.from({ length: count }, (_, index) => new Date(now - (count - 1 - index) * 60_000).toISOString().slice(0, 16));
}
