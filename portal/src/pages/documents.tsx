/**
 * The session's documents: drag-and-drop upload of many files with a progress bar each, the list with
 * thumbnails and the states the DocumentFile JSON gives (type, size, pages, protection, PDF/A,
 * signatures), rename, delete, download, information and history, ZIP extract and compress, and the
 * usage against the session's limits.
 */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { compress, documents, download, extract, fullName, isArchive, refreshDocuments, remember, remove, rename } from '../api/documents';
import { session } from '../api/session';
import { useStore } from '../api/store';
import type { DocumentFile } from '../api/types';
import { uploadFile } from '../api/upload';
import { saveBlob } from '../api/http';
import { Thumbnail } from '../components/thumbnail';
import { formatBytes, locale, useT } from '../i18n/i18n';
import { DocumentDetails } from './document-details';
import { TableHead } from '../components/table-head';

interface Upload {
  key: number;
  name: string;
  size: number;
  progress: number;
  state: 'waiting' | 'uploading' | 'done' | 'failed';
  error?: string;
}

/** Files sent at the same time; the rest wait their turn (the server takes one file per request). */
const PARALLEL_UPLOADS = 3;
let uploadKey = 0;

export function DocumentsPage(): JSX.Element {
  const t = useT();
  const list = useStore(documents);
  const language = useStore(locale);
  const { user } = useStore(session.state);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [message, setMessage] = useState<{ kind: 'error' | 'status'; text: string }>();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [open, setOpen] = useState<string>();
  const [loading, setLoading] = useState(true);

  useEffect(() => {
    document.title = `${t('documents.title')} – Quire`;
    refreshDocuments()
      .catch((error: Error) => setMessage({ kind: 'error', text: error.message }))
      .finally(() => setLoading(false));
  }, []);

  const update = (key: number, change: Partial<Upload>) => setUploads((current) => current.map((upload) => (upload.key === key ? { ...upload, ...change } : upload)));

  const addFiles = (files: File[]): void => {
    if (files.length === 0) return;
    const queued = files.map((file) => ({ file, upload: { key: ++uploadKey, name: file.name, size: file.size, progress: 0, state: 'waiting' as const } }));
    setUploads((current) => [...current.filter((upload) => upload.state !== 'done'), ...queued.map((item) => item.upload)]);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < queued.length) {
        const { file, upload } = queued[next++]!;
        update(upload.key, { state: 'uploading' });
        try {
          const stored = await uploadFile(file, (progress) => update(upload.key, { progress }));
          remember(stored);
          update(upload.key, { state: 'done', progress: 1 });
        } catch (error) {
          update(upload.key, { state: 'failed', error: error instanceof Error ? error.message : String(error) });
        }
      }
    };
    void Promise.all(Array.from({ length: Math.min(PARALLEL_UPLOADS, queued.length) }, worker));
  };

  const act = async (action: () => Promise<unknown>, done?: string): Promise<void> => {
    setMessage(undefined);
    try {
      await action();
      if (done) setMessage({ kind: 'status', text: done });
    } catch (error) {
      setMessage({ kind: 'error', text: error instanceof Error ? error.message : String(error) });
    }
  };

  const totalSize = list.reduce((sum, document) => sum + document.fileSize, 0);
  const limits = user?.userLimits;

  return (
    <section aria-labelledby="documents-title">
      <h1 id="documents-title" tabIndex={-1}>
        {t('documents.title')}
      </h1>
      <DropZone onFiles={addFiles} />
      {uploads.length > 0 && (
        <ul class="uploads" aria-label={t('documents.uploads')}>
          {uploads.map((upload) => (
            <li key={upload.key} class={`upload ${upload.state}`}>
              <span class="upload-name">{upload.name}</span>
              <span class="upload-size">{formatBytes(upload.size, language)}</span>
              <progress max={1} value={upload.progress} aria-label={t('documents.progress', { name: upload.name })} />
              <span class="upload-state">{upload.state === 'failed' ? upload.error : t(`documents.upload.${upload.state}`)}</span>
            </li>
          ))}
        </ul>
      )}
      {message && (
        <p class={message.kind} role={message.kind === 'error' ? 'alert' : 'status'}>
          {message.text}
        </p>
      )}
      {limits && (
        <p class="usage">
          {t('documents.usage', {
            count: list.length,
            maxFiles: limits.maxFiles,
            size: formatBytes(totalSize, language),
            limit: formatBytes(limits.diskSpaceLimit * 1024 * 1024, language),
          })}
          <meter min={0} max={limits.diskSpaceLimit * 1024 * 1024} value={totalSize} aria-label={t('documents.diskUsage')} />
        </p>
      )}
      <div class="toolbar">
        <button type="button" class="secondary" onClick={() => void act(refreshDocuments)}>
          {t('common.refresh')}
        </button>
        <button
          type="button"
          class="secondary"
          disabled={selected.size === 0}
          onClick={() =>
            void act(async () => {
              remember(await compress([...selected], 'archive.zip'));
              setSelected(new Set());
            }, t('documents.compressed'))
          }
        >
          {t('documents.compress', { count: selected.size })}
        </button>
      </div>
      {loading ? (
        <p class="loading">{t('common.loading')}</p>
      ) : list.length === 0 ? (
        <p class="empty">{t('documents.empty')}</p>
      ) : (
        <table class="documents">
          <caption class="visually-hidden">{t('documents.title')}</caption>
          <TableHead
            columns={[
              { key: 'documents.select', hidden: true },
              { key: 'documents.preview', hidden: true },
              'documents.name',
              'documents.type',
              'documents.size',
              'documents.pages',
              'documents.state',
              'documents.actions',
            ]}
          />
          <tbody>
            {list.map((document) => (
              <DocumentRow
                key={document.documentId}
                document={document}
                selected={selected.has(document.documentId)}
                onSelect={(on) =>
                  setSelected((current) => {
                    const next = new Set(current);
                    if (on) next.add(document.documentId);
                    else next.delete(document.documentId);
                    return next;
                  })
                }
                onOpen={() => setOpen(open === document.documentId ? undefined : document.documentId)}
                act={act}
              />
            ))}
          </tbody>
        </table>
      )}
      {open && list.some((document) => document.documentId === open) && <DocumentDetails documentId={open} onClose={() => setOpen(undefined)} />}
    </section>
  );
}

function DropZone({ onFiles }: { onFiles: (files: File[]) => void }): JSX.Element {
  const t = useT();
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  return (
    <div
      class={`dropzone${over ? ' over' : ''}`}
      data-testid="dropzone"
      onDragOver={(event) => {
        event.preventDefault();
        if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        onFiles([...(event.dataTransfer?.files ?? [])]);
      }}
    >
      <p>{t('documents.drop')}</p>
      <input
        ref={input}
        id="upload-input"
        type="file"
        multiple
        class="visually-hidden"
        onChange={(event) => {
          onFiles([...(event.currentTarget.files ?? [])]);
          event.currentTarget.value = '';
        }}
      />
      <label for="upload-input" class="button">
        {t('documents.choose')}
      </label>
    </div>
  );
}

function DocumentRow({
  document,
  selected,
  onSelect,
  onOpen,
  act,
}: {
  document: DocumentFile;
  selected: boolean;
  onSelect: (on: boolean) => void;
  onOpen: () => void;
  act: (action: () => Promise<unknown>, done?: string) => Promise<void>;
}): JSX.Element {
  const t = useT();
  const language = useStore(locale);
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(document.fileName);
  const information = document.metadata?.information;
  const name_ = fullName(document);
  const states = documentStates(document, t);
  return (
    <tr data-document={document.documentId}>
      <td>
        <input type="checkbox" checked={selected} aria-label={t('documents.selectOne', { name: name_ })} onChange={(event) => onSelect(event.currentTarget.checked)} />
      </td>
      <td class="thumb-cell">
        <Thumbnail document={document} />
      </td>
      <td class="name-cell" data-label={t('documents.name')}>
        {renaming ? (
          <form
            class="inline"
            onSubmit={(event) => {
              event.preventDefault();
              void act(async () => {
                remember(await rename(document.documentId, name));
                setRenaming(false);
              });
            }}
          >
            <label class="visually-hidden" for={`rename-${document.documentId}`}>
              {t('documents.newName')}
            </label>
            <input id={`rename-${document.documentId}`} value={name} required maxLength={1024} onInput={(event) => setName(event.currentTarget.value)} />
            <button type="submit" class="small">
              {t('common.save')}
            </button>
            <button type="button" class="small secondary" onClick={() => setRenaming(false)}>
              {t('common.cancel')}
            </button>
          </form>
        ) : (
          <span class="file-name">{name_}</span>
        )}
      </td>
      <td data-label={t('documents.type')}>{document.fileExtension.toUpperCase() || document.mimeType}</td>
      <td data-label={t('documents.size')}>{formatBytes(document.fileSize, language)}</td>
      <td data-label={t('documents.pages')}>{information?.pages ?? '–'}</td>
      <td data-label={t('documents.state')}>
        <ul class="badges">
          {states.map(([kind, label]) => (
            <li key={label} class={`badge ${kind}`}>
              {label}
            </li>
          ))}
        </ul>
      </td>
      <td class="actions">
        <div class="actions-row">
          <button type="button" class="small secondary" onClick={onOpen}>
            {t('documents.info')}
            <span class="visually-hidden"> {name_}</span>
          </button>
          <button type="button" class="small secondary" onClick={() => setRenaming(true)}>
            {t('documents.rename')}
            <span class="visually-hidden"> {name_}</span>
          </button>
          <button type="button" class="small secondary" onClick={() => void act(async () => saveBlob(await download(document.documentId), name_))}>
            {t('documents.download')}
            <span class="visually-hidden"> {name_}</span>
          </button>
          {isArchive(document) && (
            <button
              type="button"
              class="small secondary"
              onClick={() =>
                void act(async () => {
                  for (const member of await extract(document.documentId)) remember(member);
                }, t('documents.extracted'))
              }
            >
              {t('documents.extract')}
              <span class="visually-hidden"> {name_}</span>
            </button>
          )}
          <button
            type="button"
            class="small danger"
            onClick={() =>
              confirm(t('documents.confirmDelete', { name: name_ })) &&
              void act(async () => {
                await remove(document.documentId);
                documents.set(documents.get().filter((other) => other.documentId !== document.documentId));
              })
            }
          >
            {t('documents.delete')}
            <span class="visually-hidden"> {name_}</span>
          </button>
        </div>
      </td>
    </tr>
  );
}

/** Protection, PDF/A and signatures as the DocumentFile states them (badges with words, not colours only). */
export function documentStates(document: DocumentFile, t: ReturnType<typeof useT>): Array<['ok' | 'warn' | 'info', string]> {
  const states: Array<['ok' | 'warn' | 'info', string]> = [];
  const information = document.metadata?.information;
  const password = document.password;
  if (password?.isOpenSet || password?.isCertificateSet) states.push(['warn', t('documents.state.encrypted')]);
  else if (password?.isPermissionSet) states.push(['info', t('documents.state.permissions')]);
  if (information?.pdfa?.part) states.push(['ok', `PDF/A-${information.pdfa.part}${information.pdfa.conformance.toLowerCase()}`]);
  if (information?.signatures) states.push(['info', t('documents.state.signed', { count: information.signatures })]);
  if (document.isFileLocked) states.push(['info', t('documents.state.locked')]);
  if (document.error && document.error.errorCode !== 0) states.push(['warn', t('documents.state.problem')]);
  return states;
}
