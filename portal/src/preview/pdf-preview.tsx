/**
 * A PDF preview with pdf.js (Apache-2.0), loaded on demand: this module and pdfjs-dist are their own
 * chunks, fetched the first time a preview opens. The worker is a file of the build (worker-src 'self').
 * The document's bytes are fetched with the session's token; pdf.js runs no document JavaScript and is
 * told not to use eval (isEvalSupported: false, which the CSP would refuse anyway), and only canvases
 * are drawn: a hostile PDF cannot script the portal.
 */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { download } from '../api/documents';
import { useT } from '../i18n/i18n';
import { ErrorText } from '../components/error-text';

type PdfJs = typeof import('pdfjs-dist');
type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

let pdfjs: Promise<PdfJs> | undefined;

function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= import('pdfjs-dist').then((module) => {
    module.GlobalWorkerOptions.workerSrc = workerUrl;
    return module;
  });
  return pdfjs;
}

export function PdfPreview({ documentId, version }: { documentId: string; version?: string }): JSX.Element {
  const t = useT();
  const canvas = useRef<HTMLCanvasElement>(null);
  const [pdf, setPdf] = useState<PdfDocument>();
  const [page, setPage] = useState(1);
  const [error, setError] = useState<string>();

  useEffect(() => {
    let live = true;
    let loaded: PdfDocument | undefined;
    setPdf(undefined);
    setPage(1);
    void (async () => {
      try {
        const [library, content] = await Promise.all([loadPdfJs(), download(documentId)]);
        const task = library.getDocument({ data: new Uint8Array(await content.arrayBuffer()), isEvalSupported: false, enableXfa: false, stopAtErrors: false });
        loaded = await task.promise;
        if (live) setPdf(loaded);
        else void loaded.destroy();
      } catch (failure) {
        if (live) setError(failure instanceof Error ? failure.message : String(failure));
      }
    })();
    return () => {
      live = false;
      void loaded?.destroy();
    };
  }, [documentId, version]);

  useEffect(() => {
    if (!pdf || !canvas.current) return;
    let cancelled = false;
    let render: { cancel(): void } | undefined;
    void (async () => {
      const current = await pdf.getPage(page);
      if (cancelled || !canvas.current) return;
      const target = canvas.current;
      const base = current.getViewport({ scale: 1 });
      const width = Math.min(target.parentElement?.clientWidth || 600, 900);
      const ratio = window.devicePixelRatio || 1;
      const viewport = current.getViewport({ scale: (width / base.width) * ratio });
      target.width = Math.floor(viewport.width);
      target.height = Math.floor(viewport.height);
      const task = current.render({ canvas: target, viewport });
      render = task;
      await task.promise.catch(() => undefined);
    })();
    return () => {
      cancelled = true;
      render?.cancel();
    };
  }, [pdf, page]);

  if (error) return <ErrorText message={t('preview.failed', { message: error })} />;
  return (
    <figure class="preview" aria-busy={!pdf}>
      {pdf && (
        <div class="preview-nav">
          <button type="button" class="small secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t('preview.previous')}
          </button>
          <span aria-live="polite">{t('preview.page', { page, pages: pdf.numPages })}</span>
          <button type="button" class="small secondary" disabled={page >= pdf.numPages} onClick={() => setPage(page + 1)}>
            {t('preview.next')}
          </button>
        </div>
      )}
      <canvas ref={canvas} class="preview-canvas" role="img" aria-label={t('preview.label', { page })} data-testid="pdf-canvas" />
      {!pdf && <figcaption class="loading">{t('common.loading')}</figcaption>}
    </figure>
  );
}
