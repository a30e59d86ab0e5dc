/** The sessions table (admin/session/table) with close (admin/session/{id}/close). */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { call, json } from '../../api/http';
import { useStore } from '../../api/store';
import { formatBytes, locale, useT } from '../../i18n/i18n';
import { useLoad } from './use-load';
import { TableHead } from '../../components/table-head';

interface SessionTable {
  activeSessions: number;
  sessionCount: number;
  sessionDiskUsage: number;
  sessionId: string;
  sessionList: Array<{
    sessionId: string;
    userName: string;
    providerId: string;
    isAdmin: boolean;
    fileCount: number;
    fileSize: number;
    lastAccess: number;
    sessionExpiration: number;
    sessionState: string;
  }>;
}

export function SessionsPage(): JSX.Element {
  const t = useT();
  const language = useStore(locale);
  const table = useLoad(() => json<SessionTable>('admin/session/table'), [], 15_000);
  const [message, setMessage] = useState<{ kind: 'error' | 'status'; text: string }>();
  const close = async (sessionId: string): Promise<void> => {
    try {
      await call(`admin/session/${sessionId}/close`, { method: 'POST' });
      setMessage({ kind: 'status', text: t('admin.sessionClosed') });
      table.reload();
    } catch (error) {
      setMessage({ kind: 'error', text: error instanceof Error ? error.message : String(error) });
    }
  };
  const value = table.value;
  return (
    <>
      {(table.error || message) && (
        <p class={table.error ? 'error' : message!.kind} role={table.error || message?.kind === 'error' ? 'alert' : 'status'}>
          {table.error ?? message!.text}
        </p>
      )}
      {value && (
        <>
          <p class="usage">{t('admin.sessionSummary', { active: value.activeSessions, count: value.sessionCount, disk: formatBytes(value.sessionDiskUsage, language) })}</p>
          <table class="sessions">
            <TableHead columns={['admin.user', 'admin.files', 'documents.size', 'admin.lastAccess', 'admin.expiresIn', 'documents.actions']} />
            <tbody>
              {value.sessionList.map((entry) => {
                const who = `${entry.userName || t('login.anonymousUser')}${entry.providerId ? ` (${entry.providerId})` : ''}`;
                return (
                  <tr key={entry.sessionId} data-session={entry.sessionId}>
                    <td data-label={t('admin.user')}>
                      {who}
                      {entry.isAdmin && <span class="badge info">admin</span>}
                      {entry.sessionId === value.sessionId && <span class="badge ok">{t('admin.you')}</span>}
                      <br />
                      <code class="id">{entry.sessionId}</code>
                    </td>
                    <td data-label={t('admin.files')}>{entry.fileCount}</td>
                    <td data-label={t('documents.size')}>{formatBytes(entry.fileSize, language)}</td>
                    <td data-label={t('admin.lastAccess')}>{new Date(entry.lastAccess).toLocaleString(language)}</td>
                    <td data-label={t('admin.expiresIn')}>{t('admin.minutes', { count: Math.round(entry.sessionExpiration / 60) })}</td>
                    <td>
                      <button type="button" class="small danger" disabled={entry.sessionId === value.sessionId} onClick={() => void close(entry.sessionId)}>
                        {t('admin.closeSession')}
                        <span class="visually-hidden"> {who}</span>
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}
