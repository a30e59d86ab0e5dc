/** The replay queue (admin/dlq/failed): failed work listed, inspected, requeued with a reason, deleted. */
import { Fragment, type JSX } from 'preact';
import { useState } from 'preact/hooks';
import { call, json } from '../../api/http';
import { useT } from '../../i18n/i18n';
import { useLoad } from './use-load';
import { TableHead } from '../../components/table-head';

interface Entry {
  id: string;
  kind: string;
  createdAt: string;
  failedAt: string;
  attempts: number;
  maxAttempts: number;
  lastError: string;
  summary: string | Record<string, unknown>;
  history: Array<{ at: string; event: string; detail?: string }>;
}

export function ReplayPage(): JSX.Element {
  const t = useT();
  const entries = useLoad(() => json<Entry[]>('admin/dlq/failed'), [], 15_000);
  const [open, setOpen] = useState<string>();
  const [reason, setReason] = useState('');
  const [message, setMessage] = useState<{ kind: 'error' | 'status'; text: string }>();
  const act = async (action: () => Promise<unknown>, done: string): Promise<void> => {
    try {
      await action();
      setMessage({ kind: 'status', text: done });
      entries.reload();
    } catch (error) {
      setMessage({ kind: 'error', text: error instanceof Error ? error.message : String(error) });
    }
  };
  return (
    <>
      {(entries.error || message) && (
        <p class={entries.error ? 'error' : message!.kind} role={entries.error || message?.kind === 'error' ? 'alert' : 'status'}>
          {entries.error ?? message!.text}
        </p>
      )}
      <div class="toolbar">
        <button
          type="button"
          class="danger"
          disabled={!entries.value?.length}
          onClick={() =>
            confirm(t('admin.confirmPurge')) &&
            void act(async () => {
              const { removed } = await json<{ removed: number }>('admin/dlq/failed?olderThanMillis=0', { method: 'DELETE' });
              return removed;
            }, t('admin.purged'))
          }
        >
          {t('admin.purge')}
        </button>
      </div>
      {entries.value?.length === 0 && <p class="empty">{t('admin.replayEmpty')}</p>}
      {entries.value && entries.value.length > 0 && (
        <table class="replay">
          <TableHead columns={['admin.kind', 'admin.failedAt', 'admin.attempts', 'admin.lastError', 'documents.actions']} />
          <tbody>
            {entries.value.map((entry) => (
              <Fragment key={entry.id}>
                <tr data-entry={entry.id}>
                  <td data-label={t('admin.kind')}>
                    {entry.kind}
                    <br />
                    <code class="id">{entry.id}</code>
                  </td>
                  <td data-label={t('admin.failedAt')}>{new Date(entry.failedAt).toLocaleString()}</td>
                  <td data-label={t('admin.attempts')}>
                    {entry.attempts} / {entry.maxAttempts}
                  </td>
                  <td data-label={t('admin.lastError')}>{entry.lastError}</td>
                  <td class="actions">
                    <div class="actions-row">
                      <button type="button" class="small secondary" aria-expanded={open === entry.id} onClick={() => setOpen(open === entry.id ? undefined : entry.id)}>
                        {t('admin.inspect')}
                      </button>
                      <button
                        type="button"
                        class="small danger"
                        onClick={() => confirm(t('admin.confirmDelete')) && void act(() => call(`admin/dlq/failed/${entry.id}`, { method: 'DELETE' }), t('admin.deleted'))}
                      >
                        {t('documents.delete')}
                      </button>
                    </div>
                  </td>
                </tr>
                {open === entry.id && (
                  <tr class="details-row">
                    <td colSpan={5}>
                      <pre class="summary">{typeof entry.summary === 'string' ? entry.summary : JSON.stringify(entry.summary, null, 2)}</pre>
                      <ol class="events">
                        {entry.history.map((event) => (
                          <li key={`${event.at}${event.event}`}>
                            <time dateTime={event.at}>{new Date(event.at).toLocaleString()}</time> {event.event}
                            {event.detail ? `: ${event.detail}` : ''}
                          </li>
                        ))}
                      </ol>
                      <form
                        class="inline"
                        onSubmit={(event) => {
                          event.preventDefault();
                          void act(() => call(`admin/dlq/failed/${entry.id}/requeue?reason=${encodeURIComponent(reason || 'requeued in the portal')}`, { method: 'POST' }), t('admin.requeued'));
                        }}
                      >
                        <label for={`reason-${entry.id}`}>{t('admin.reason')}</label>
                        <input id={`reason-${entry.id}`} maxLength={1000} value={reason} onInput={(event) => setReason(event.currentTarget.value)} />
                        <button type="submit" class="small">
                          {t('admin.requeue')}
                        </button>
                      </form>
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
