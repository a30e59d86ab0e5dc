/**
 * The data store (admin/datastore/{group}): the portal's logo and background (images) and its theme
 * (a JSON object or CSS). Shown as stored, replaced by an upload or an edit, removed (the logo then
 * falls back to the built-in one). Images are shown from blob: URLs (img-src blob:), where an SVG
 * cannot run script. After each change the shell reloads the portal's theme (THEME_CHANGED), so the
 * header shows the new logo at once.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { json, call } from '../../api/http';
import { ErrorText } from '../../components/error-text';
import { useT } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/en';

/** The event the shell listens to to reload the theme (app.tsx). */
export const THEME_CHANGED = 'quire:theme-changed';
/** What the server takes as a logo or background (it checks the content itself). */
const IMAGE_TYPES = 'image/png,image/jpeg,image/gif,image/webp,image/bmp,image/svg+xml';

type Group = 'logo' | 'background' | 'theme';

interface Entry {
  fileGroup: Group;
  fileContent: string;
}

const bytesOf = (base64: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));

/** A file's content as Base64 (the data: URL FileReader makes, without its prefix). */
function base64Of(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.readAsDataURL(file);
  });
}

/** Browsers recognise PNG, JPEG, GIF, WebP and BMP from their bytes, but show an SVG only when the blob says it is one. */
const imageType = (bytes: Uint8Array): string => (/<svg[\s>]/i.test(new TextDecoder().decode(bytes.subarray(0, 1024))) ? 'image/svg+xml' : '');

const utf8Base64 = (text: string): string => btoa(Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join(''));

function changed(): void {
  dispatchEvent(new Event(THEME_CHANGED));
}

export function DataStorePage(): JSX.Element {
  const t = useT();
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<string>();
  const report = (message?: string, failure?: unknown): void => {
    setStatus(message);
    setError(failure === undefined ? undefined : failure instanceof Error ? failure.message : String(failure));
  };
  return (
    <div class="datastore">
      <ErrorText message={error} />
      {status && (
        <p class="status" role="status">
          {status}
        </p>
      )}
      <ImageEntry group="logo" label="admin.logo" report={report} />
      <ImageEntry group="background" label="admin.background" report={report} />
      <ThemeEntry report={report} />
      <p class="hint">{t('admin.datastoreHint')}</p>
    </div>
  );
}

type Report = (message?: string, failure?: unknown) => void;

function ImageEntry({ group, label, report }: { group: 'logo' | 'background'; label: MessageKey; report: Report }): JSX.Element {
  const t = useT();
  const [url, setUrl] = useState<string | null>();
  const [version, setVersion] = useState(0);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let made: string | undefined;
    json<Entry>(`admin/datastore/${group}`).then(
      (entry) => {
        const bytes = bytesOf(entry.fileContent);
        made = bytes.length > 0 ? URL.createObjectURL(new Blob([bytes], { type: imageType(bytes) })) : undefined;
        setUrl(made ?? null);
      },
      (failure: unknown) => report(undefined, failure),
    );
    return () => {
      if (made) URL.revokeObjectURL(made);
    };
  }, [group, version]);

  const run = async (action: () => Promise<unknown>, done: MessageKey): Promise<void> => {
    setBusy(true);
    try {
      await action();
      report(t(done, { name: t(label) }));
      setVersion((value) => value + 1);
      changed();
    } catch (failure) {
      report(undefined, failure);
    } finally {
      setBusy(false);
    }
  };

  const inputId = `datastore-${group}`;
  return (
    <section class="card datastore-entry" aria-labelledby={`${inputId}-title`}>
      <h2 id={`${inputId}-title`}>{t(label)}</h2>
      <div class="datastore-preview">
        {url === undefined ? (
          <p class="loading">{t('common.loading')}</p>
        ) : url === null ? (
          <p class="empty">{t('admin.noneStored')}</p>
        ) : (
          <img src={url} alt={t(label)} data-testid={`${group}-preview`} />
        )}
      </div>
      <div class="toolbar">
        <div class="field">
          <label for={inputId}>{t('admin.uploadImage', { name: t(label) })}</label>
          <input
            id={inputId}
            type="file"
            accept={IMAGE_TYPES}
            disabled={busy}
            onChange={(event) => {
              const input = event.currentTarget;
              const file = input.files?.[0];
              if (!file) return;
              void run(async () => {
                await json<Entry>('admin/datastore', { method: 'POST', body: { fileGroup: group, fileContent: await base64Of(file) } });
              }, 'admin.stored').finally(() => {
                input.value = '';
              });
            }}
          />
        </div>
        <button type="button" class="secondary" disabled={busy || !url} onClick={() => void run(() => call(`admin/datastore/${group}`, { method: 'DELETE' }), 'admin.removed')}>
          {t('admin.remove', { name: t(label) })}
        </button>
      </div>
    </section>
  );
}

function ThemeEntry({ report }: { report: Report }): JSX.Element {
  const t = useT();
  const [text, setText] = useState<string>();
  const [busy, setBusy] = useState(false);
  const load = (): void => {
    json<Entry>('admin/datastore/theme').then(
      (entry) => setText(new TextDecoder().decode(bytesOf(entry.fileContent))),
      (failure: unknown) => report(undefined, failure),
    );
  };
  useEffect(load, []);

  const run = async (action: () => Promise<unknown>, done: MessageKey): Promise<void> => {
    setBusy(true);
    try {
      await action();
      report(t(done, { name: t('admin.theme') }));
      load();
      changed();
    } catch (failure) {
      report(undefined, failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="card datastore-entry"
      aria-labelledby="datastore-theme-title"
      onSubmit={(event) => {
        event.preventDefault();
        void run(() => json<Entry>('admin/datastore', { method: 'POST', body: { fileGroup: 'theme', fileContent: utf8Base64(text ?? '') } }), 'admin.stored');
      }}
    >
      <h2 id="datastore-theme-title">{t('admin.theme')}</h2>
      <div class="field">
        <label for="datastore-theme">{t('admin.themeText')}</label>
        <textarea
          id="datastore-theme"
          rows={8}
          spellcheck={false}
          value={text ?? ''}
          disabled={text === undefined}
          placeholder='{"primaryColor": "#0b5cad"}'
          onInput={(event) => setText(event.currentTarget.value)}
        />
      </div>
      <div class="toolbar">
        <button type="submit" disabled={busy || !text?.trim()}>
          {t('common.save')}
        </button>
        <button type="button" class="secondary" disabled={busy || !text} onClick={() => void run(() => call('admin/datastore/theme', { method: 'DELETE' }), 'admin.removed')}>
          {t('admin.remove', { name: t('admin.theme') })}
        </button>
      </div>
    </form>
  );
}
