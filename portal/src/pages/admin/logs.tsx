/** The server log of a day (admin/server/log, today by default) with a level filter and download. */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { blob, call, saveBlob } from '../../api/http';
import { useT } from '../../i18n/i18n';
import { useLoad } from './use-load';
import { ErrorText } from '../../components/error-text';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
/** pino's numeric levels. */
const NUMERIC: Record<number, (typeof LEVELS)[number]> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
/** At most this many lines are shown (the newest); the download has the whole day. */
const SHOWN = 500;

export function LogsPage(): JSX.Element {
  const t = useT();
  const [date, setDate] = useState('');
  const [level, setLevel] = useState<(typeof LEVELS)[number]>('info');
  const [supportError, setSupportError] = useState<string>();
  const log = useLoad(async () => (await call(`admin/server/log?date=${date}`)).text(), [date], 10_000);
  const minimum = LEVELS.indexOf(level);
  const lines = (log.value ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => ({ line, level: levelOf(line) }))
    .filter((entry) => entry.level === undefined || LEVELS.indexOf(entry.level) >= minimum);
  return (
    <>
      <div class="toolbar">
        <div class="field">
          <label for="log-date">{t('admin.logDate')}</label>
          <input id="log-date" type="date" value={date} onChange={(event) => setDate(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="log-level">{t('admin.logLevel')}</label>
          <select id="log-level" value={level} onChange={(event) => setLevel(event.currentTarget.value as (typeof LEVELS)[number])}>
            {LEVELS.map((candidate) => (
              <option key={candidate} value={candidate}>
                {candidate}
              </option>
            ))}
          </select>
        </div>
        <button type="button" class="secondary" onClick={() => saveBlob(new Blob([log.value ?? ''], { type: 'text/plain' }), `quire-${date || 'today'}.log`)}>
          {t('documents.download')}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            void blob(`admin/server/support?group=logs&group=config&group=init&start=${date}&end=${date}`).then(
              (zip) => saveBlob(zip, `quire-support-${date || 'today'}.zip`),
              (failure: Error) => setSupportError(failure.message),
            )
          }
        >
          {t('admin.supportZip')}
        </button>
      </div>
      <ErrorText message={log.error ?? supportError} />
      <p class="hint">{t('admin.logLines', { shown: Math.min(lines.length, SHOWN), count: lines.length })}</p>
      <pre class="log" tabIndex={0} aria-label={t('admin.logs')}>
        {lines
          .slice(-SHOWN)
          .map((entry) => entry.line)
          .join('\n')}
      </pre>
    </>
  );
}

function levelOf(line: string): (typeof LEVELS)[number] | undefined {
  try {
    const entry = JSON.parse(line) as { level?: unknown };
    if (typeof entry.level === 'number') return NUMERIC[entry.level];
    const named = typeof entry.level === 'string' ? entry.level.toLowerCase() : undefined;
    if (named) return LEVELS.find((candidate) => candidate === named);
  } catch {
    const word = /\b(TRACE|DEBUG|INFO|WARN|ERROR|FATAL)\b/i.exec(line)?.[1]?.toLowerCase();
    return LEVELS.find((candidate) => candidate === word);
  }
  return undefined;
}
