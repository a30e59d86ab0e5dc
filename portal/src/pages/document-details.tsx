/** A document's information (the DocumentFile's metadata) and history (activate an older state), in a modal dialog. */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { activate, fullName, history, info, isPdf, remember } from '../api/documents';
import type { DocumentFile, HistoryEntry } from '../api/types';
import { lazy } from '../components/lazy';
import { useT } from '../i18n/i18n';
import { ErrorText } from '../components/error-text';
import { TableHead } from '../components/table-head';

const PdfPreview = lazy(() => import('../preview/pdf-preview').then((module) => module.PdfPreview));

export function DocumentDetails({ documentId, onClose }: { documentId: string; onClose: () => void }): JSX.Element {
  const t = useT();
  const dialog = useRef<HTMLDialogElement>(null);
  const [document, setDocument] = useState<DocumentFile>();
  const [entries, setEntries] = useState<HistoryEntry[]>([]);
  const [error, setError] = useState<string>();
  const [preview, setPreview] = useState(false);

  const load = async (): Promise<void> => {
    try {
      const current = await info(documentId);
      setDocument(current);
      remember(current);
      setEntries(await history(documentId));
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };

  useEffect(() => {
    dialog.current?.showModal();
    void load();
  }, [documentId]);

  const description = document?.metadata?.information?.description;
  const information = document?.metadata?.information;
  const rows: Array<[string, string | number | undefined]> = document
    ? [
        [t('documents.name'), fullName(document)],
        [t('info.mimeType'), document.mimeType],
        [t('info.modified'), document.fileLastModified],
        [t('documents.pages'), information?.pages],
        [t('info.version'), information?.version],
        [t('info.title'), description?.title],
        [t('info.author'), description?.author?.join(', ')],
        [t('info.subject'), description?.subject],
        [t('info.creator'), description?.creator],
        [t('info.producer'), description?.producer],
        [t('info.width'), typeof document.metadata?.width === 'number' ? document.metadata.width : undefined],
        [t('info.height'), typeof document.metadata?.height === 'number' ? document.metadata.height : undefined],
      ]
    : [];
  return (
    <dialog ref={dialog} class="details" aria-labelledby="details-title" onClose={onClose}>
      <div class="dialog-head">
        <h2 id="details-title">{document ? fullName(document) : t('common.loading')}</h2>
        <button type="button" class="secondary small" onClick={() => dialog.current?.close()}>
          {t('common.close')}
        </button>
      </div>
      <ErrorText message={error} />
      {document && (
        <>
          <dl class="facts">
            {rows
              .filter(([, value]) => value !== undefined && value !== '')
              .map(([label, value]) => (
                <div key={label}>
                  <dt>{label}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
          </dl>
          {document.error.errorCode !== 0 && (
            <p class="warn-text">
              {document.error.errorMessage} ({document.error.errorCode})
            </p>
          )}
          {isPdf(document) && (
            <button type="button" class="secondary" onClick={() => setPreview(!preview)} aria-expanded={preview}>
              {t('info.preview')}
            </button>
          )}
          {preview && <PdfPreview documentId={document.documentId} />}
          <h3>{t('info.history')}</h3>
          {entries.length === 0 ? (
            <p class="hint">{t('info.noHistory')}</p>
          ) : (
            <table class="history">
              <TableHead columns={[{ text: '#' }, 'info.operation', 'documents.name', 'info.when', 'documents.state']} />
              <tbody>
                {entries.map((entry) => (
                  <tr key={entry.id}>
                    <td>{entry.id}</td>
                    <td>{entry.operation || t('info.upload')}</td>
                    <td>{entry.fileName}</td>
                    <td>{new Date(entry.dateTime).toLocaleString()}</td>
                    <td>
                      {entry.active ? (
                        <strong>{t('info.active')}</strong>
                      ) : (
                        <button type="button" class="small secondary" onClick={() => void activate(document.documentId, entry.id).then(load, (failure: Error) => setError(failure.message))}>
                          {t('info.activate', { id: entry.id })}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </dialog>
  );
}
