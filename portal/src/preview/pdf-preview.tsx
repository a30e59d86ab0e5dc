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

/**
 * A rectangle on a page in points, from the top-left corner of the page as displayed (rotation
 * applied, y downwards): the web services' `user` coordinates.
 */
export interface PageBox {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  label?: string;
}

export interface PdfPreviewProps {
  documentId: string;
  version?: string;
  /** The PDF's bytes when they are not the document's current content (a barcode detection replaced it). */
  source?: Blob;
  /** When set, a rectangle dragged on the page is reported (placement of a signature or a barcode). */
  onSelect?: (box: PageBox) => void;
  /** Boxes drawn over their pages (the last selection, detected barcodes). */
  boxes?: PageBox[];
}

export function PdfPreview({ documentId, version, source, onSelect, boxes = [] }: PdfPreviewProps): JSX.Element {
  const t = useT();
  const canvas = useRef<HTMLCanvasElement>(null);
  const overlay = useRef<HTMLCanvasElement>(null);
  // The displayed page's size in points (rotation applied), for converting between pixels and points.
  const [pageSize, setPageSize] = useState<{ width: number; height: number }>();
  const [dragging, setDragging] = useState<{ x: number; y: number; toX: number; toY: number }>();
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
        const [library, content] = await Promise.all([loadPdfJs(), source ?? download(documentId)]);
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
  }, [documentId, version, source]);

  useEffect(() => {
    if (!pdf || !canvas.current) return;
    let cancelled = false;
    let render: { cancel(): void } | undefined;
    void (async () => {
      const current = await pdf.getPage(page);
      if (cancelled || !canvas.current) return;
      const target = canvas.current;
      const base = current.getViewport({ scale: 1 });
      // The figure's width (the page's own wrapper is only as wide as the canvas).
      const width = Math.min(target.closest('figure')?.clientWidth || 600, 900);
      const ratio = window.devicePixelRatio || 1;
      const viewport = current.getViewport({ scale: (width / base.width) * ratio });
      target.width = Math.floor(viewport.width);
      target.height = Math.floor(viewport.height);
      setPageSize({ width: base.width, height: base.height });
      const task = current.render({ canvas: target, viewport });
      render = task;
      await task.promise.catch(() => undefined);
    })();
    return () => {
      cancelled = true;
      render?.cancel();
    };
  }, [pdf, page]);

  // The overlay: the same pixel size as the page's canvas; boxes of this page and the rectangle being dragged.
  useEffect(() => {
    const target = overlay.current;
    if (!target || !canvas.current || !pageSize) return;
    target.width = canvas.current.width;
    target.height = canvas.current.height;
    const context = target.getContext('2d');
    if (!context) return;
    const scale = target.width / pageSize.width;
    context.clearRect(0, 0, target.width, target.height);
    context.lineWidth = Math.max(2, scale);
    context.font = `${Math.round(12 * scale)}px sans-serif`;
    for (const box of boxes.filter((candidate) => candidate.page === page)) {
      context.strokeStyle = '#d0306f';
      context.strokeRect(box.x * scale, box.y * scale, box.width * scale, box.height * scale);
      if (box.label) {
        context.fillStyle = '#d0306f';
        context.fillText(box.label, box.x * scale, Math.max(12 * scale, box.y * scale - 4));
      }
    }
    if (dragging) {
      const ratio = target.width / target.getBoundingClientRect().width;
      context.strokeStyle = '#1f6feb';
      context.setLineDash([6, 4]);
      context.strokeRect(
        Math.min(dragging.x, dragging.toX) * ratio,
        Math.min(dragging.y, dragging.toY) * ratio,
        Math.abs(dragging.toX - dragging.x) * ratio,
        Math.abs(dragging.toY - dragging.y) * ratio,
      );
      context.setLineDash([]);
    }
  }, [boxes, page, pageSize, dragging]);

  const at = (event: PointerEvent) => {
    const bounds = (event.currentTarget as HTMLCanvasElement).getBoundingClientRect();
    return { x: Math.min(Math.max(event.clientX - bounds.left, 0), bounds.width), y: Math.min(Math.max(event.clientY - bounds.top, 0), bounds.height) };
  };
  const finish = (event: PointerEvent) => {
    if (!dragging || !pageSize || !onSelect) return;
    const end = at(event);
    const bounds = (event.currentTarget as HTMLCanvasElement).getBoundingClientRect();
    setDragging(undefined);
    const perPixel = pageSize.width / bounds.width;
    const width = Math.abs(end.x - dragging.x) * perPixel;
    const height = Math.abs(end.y - dragging.y) * perPixel;
    // A click without a drag is not a placement.
    if (width < 2 || height < 2) return;
    onSelect({ page, x: Math.min(end.x, dragging.x) * perPixel, y: Math.min(end.y, dragging.y) * perPixel, width, height });
  };

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
      <div class="preview-page">
        <canvas ref={canvas} class="preview-canvas" role="img" aria-label={t('preview.label', { page })} data-testid="pdf-canvas" />
        <canvas
          ref={overlay}
          class={`preview-overlay${onSelect ? ' selecting' : ''}`}
          aria-hidden="true"
          data-testid="pdf-overlay"
          onPointerDown={
            onSelect &&
            ((event) => {
              event.currentTarget.setPointerCapture(event.pointerId);
              const start = at(event);
              setDragging({ ...start, toX: start.x, toY: start.y });
            })
          }
          onPointerMove={(event) => dragging && setDragging({ ...dragging, toX: at(event).x, toY: at(event).y })}
          onPointerUp={finish}
        />
      </div>
      {!pdf && <figcaption class="loading">{t('common.loading')}</figcaption>}
    </figure>
  );
}
