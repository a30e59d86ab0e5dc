/** The server log of a day (admin/server/log, today by default, followed live) with a level filter, download and the support ZIP. */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, blob, call, saveBlob } from '../../api/http';
import { useT } from '../../i18n/i18n';
import { ErrorText } from '../../components/error-text';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
/** pino's numeric levels. */
const NUMERIC: Record<number, (typeof LEVELS)[number]> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
/** At most this many lines are shown (the newest); the download has the whole day. */
const SHOWN = 500;
/** How often today's log is asked for what was appended. */
const TAIL_MS = 3000;
/** Characters kept in the page (the newest): a day's log can be large. */
const KEPT = 2_000_000;

export function LogsPage(): JSX.Element {
  const t = useT();
  const [date, setDate] = useState('');
  const [level, setLevel] = useState<(typeof LEVELS)[number]>('info');
  const [supportError, setSupportError] = useState<string>();
  const log = useLogTail(date);
  const minimum = LEVELS.indexOf(level);
  const lines = log.text
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
        <button type="button" class="secondary" onClick={() => saveBlob(new Blob([log.text], { type: 'text/plain' }), `quire-${date || 'today'}.log`)}>
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

/**
 * The day's log, then only what was appended: `Range: bytes=<bytes read>-` every few seconds (206 with
 * the new bytes; 416 when there are none). A 200 means the whole file again (the server ignored the
 * range): it replaces what was read. Past days do not grow and are read once.
 */
function useLogTail(date: string): { text: string; error?: string } {
  const [state, setState] = useState<{ text: string; error?: string }>({ text: '' });
  useEffect(() => {
    let live = true;
    let offset = 0;
    let text = '';
    let decoder = new TextDecoder();
    let timer: ReturnType<typeof setTimeout> | undefined;
    setState({ text: '' });
    const poll = async (): Promise<void> => {
      try {
        const response = await call(`admin/server/log?date=${date}`, offset > 0 ? { headers: { range: `bytes=${offset}-` } } : {});
        const bytes = new Uint8Array(await response.arrayBuffer());
        if (response.status !== 206) {
          offset = 0;
          text = '';
          decoder = new TextDecoder();
        }
        offset += bytes.byteLength;
        // A multi-byte character split between two reads is completed by the next (stream mode).
        text = (text + decoder.decode(bytes, { stream: true })).slice(-KEPT);
        if (live) setState({ text });
      } catch (error) {
        if (live && !(error instanceof ApiError && error.status === 416)) setState({ text, error: error instanceof Error ? error.message : String(error) });
      }
      if (live && date === '') timer = setTimeout(() => void poll(), TAIL_MS);
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [date]);
  return state;
}
