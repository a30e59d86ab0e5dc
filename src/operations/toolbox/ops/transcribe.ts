import { open, readFile, stat, writeFile } from 'node:fs/promises';
import { QuireError } from '../../../core/errors.js';
import { fileTypeByKey } from '../../../core/file-types.js';
import { formatPageList } from '../../../core/page-selection.js';
import {
  buildReport,
  documentInfo,
  formatSvg,
  HTML_TAIL,
  htmlHead,
  htmlPage,
  linkBox,
  pageLayouts,
  planRuns,
  PopplerError,
  readLinks,
  renderSvg,
  requireResultWithin,
  zipFiles,
  type LayoutWord,
  type PageGeometry,
  type ReportMessage,
} from '../../../engines/poppler/index.js';
import type { ToolboxOperation, WorkFile } from '../operation.js';
import { defaultsOf } from '../../option-schema.js';
import { selectPages } from '../pages.js';
import { transcribeOptions, type TranscribeOptions } from './transcribe.schema.js';

type Level = TranscribeOptions['failureLevel'];
/** Without `html.svgFormat`: its defaults (as for `image.svg`). */
const DEFAULT_SVG_FORMAT = defaultsOf(transcribeOptions.properties.html.properties.svgFormat);

/** URI links that become <a href> in the HTML. */
const SAFE_SCHEME = /^(https?|ftps?|mailto|tel):/i;
const RANK: Readonly<Record<Level, number>> = { warning: 0, missingContent: 1, error: 2 };
/** Most bytes of one page's SVG read into memory. */
const MAX_PAGE_SVG_BYTES = 256 * 1024 * 1024;
/** `-bbox-layout` output read into memory at most (the text layer). */
const MAX_LAYOUT_BYTES = 256 * 1024 * 1024;

/**
 * `transcribe` (reference §10.9.22): the selected pages (default "1") as one self-contained HTML
 * file. Each page is drawn as inline SVG (pdftocairo; `svgFormat` as for `image.svg`) at the size
 * `dpi` gives it, under a transparent text layer of its words (pdftotext) and its links, so that the
 * page looks as in the PDF and can still be searched and selected.
 *
 * The transcription collects messages: poppler's diagnostics of damaged content (`warning`),
 * characters without a Unicode mapping, missing from the text layer (`missingContent`), and pages
 * that could not be drawn (`error`). It fails when a message reaches `failureLevel`; `errorReport`
 * then says how: `none` -102, `message` -102 with the messages, `file` the XML report becomes the
 * document. On success `successReport` adds the report: `zip` (document.html and report.xml in a
 * ZIP) or `linked` (embedded in the HTML as a data URL of a <link rel="alternate">).
 */
export const transcribeOperation: ToolboxOperation<TranscribeOptions> = {
  name: 'transcribe',
  needsPdf: true,
  async run(input, options, context, field) {
    const html = options.html;
    if (html === undefined) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}: give the target format, e.g. {"html":{"pages":"1","dpi":72}} (html is the one format).`);
    }
    const { failureLevel, errorReport, successReport } = options;
    const count = await context.engines.rewriter.pageCount(input.path, context.call);
    if (count === 0) throw new QuireError('PARAMETER', `Invalid parameter ${field}: the document has no pages to transcribe.`);
    const pages = selectPages(html.pages, count, `${field}.html.pages`);
    const dpi = html.dpi === 0 ? 72 : html.dpi; // 0 stands for the default
    const scale = dpi / 72;
    const { decimalPrecision, pathDrawMode, graphicsStateMode } = html.svgFormat ?? DEFAULT_SVG_FORMAT;
    const svgFormat = { decimalPrecision, pathDrawMode, graphicsStateMode };
    const limits = { deadline: context.deadline, toolTimeoutMs: context.engines.toolTimeoutMs, poppler: context.engines.poppler };

    const { title, pages: all } = await documentInfo(
      input.path,
      pages.reduce((a, b) => Math.min(a, b)),
      pages.reduce((a, b) => Math.max(a, b)),
      limits,
    );
    const geometry = new Map<number, PageGeometry>(all.map((g) => [g.page, g]));
    const messages: ReportMessage[] = [];

    // The text layer: words of every page (a scattered selection is read from a copy of those pages).
    const words = new Map<number, LayoutWord[]>();
    const runs = await planRuns(input.path, pages, async (selected) => {
      const subset = context.scratch('pdf');
      await context.engines.rewriter.rewrite(input.path, subset, { pages: formatPageList(selected), deadline: context.deadline });
      return subset;
    });
    for (const run of runs) {
      const layouts = await pageLayouts(run.file, run.first, run.last, { ...limits, output: context.scratch('html'), maxBytes: MAX_LAYOUT_BYTES });
      layouts.forEach((layout, i) =>
        words.set(
          run.pages[i]!,
          layout.blocks.flatMap((b) => b.lines.flatMap((l) => l.words)),
        ),
      );
    }
    for (const page of pages) {
      const unmapped = (words.get(page) ?? []).reduce((sum, w) => sum + [...w.text].filter((c) => c === '\uFFFD').length, 0);
      if (unmapped > 0) {
        messages.push({ level: 'missingContent', page, message: `${unmapped} character${unmapped === 1 ? '' : 's'} without a Unicode mapping: the text layer lacks them.` });
      }
    }

    // Links: URIs as they are, page destinations within the transcription as anchors.
    const selected = new Set(pages);
    const links = new Map<number, { x: number; y: number; width: number; height: number; href: string }[]>();
    for (const link of await readLinks(input.path, pages, { ...limits, qpdf: context.engines.qpdf, maxJsonBytes: 256 * 1024 * 1024, maxAnnotations: 200_000 })) {
      // Only schemes that navigate: a javascript: or data: URI of a PDF must not become script in the HTML.
      const href = link.kind === 'uri' && SAFE_SCHEME.test(link.target) ? link.target : link.kind === 'goTo' && selected.has(link.destinationPage) ? `#page-${link.destinationPage}` : undefined;
      const g = geometry.get(link.page);
      if (href === undefined || href === '' || !g) continue;
      links.set(link.page, [...(links.get(link.page) ?? []), { ...linkBox(link, g), href }]);
    }

    // The pages, written one by one so that memory holds one page's drawing at a time.
    const body = context.scratch('html');
    const handle = await open(body, 'w');
    let written = 0;
    try {
      for (const page of pages) {
        const g = geometry.get(page)!;
        const raw = context.scratch('svg');
        let svg = '';
        try {
          for (const d of await renderSvg(input.path, page, raw, limits)) messages.push({ level: 'warning', page, message: d.message });
          const { size } = await stat(raw);
          if (size > MAX_PAGE_SVG_BYTES) throw new PopplerError('tooLarge', `Page ${page} draws to ${size} bytes of SVG, more than this server transcribes per page.`);
          svg = formatSvg((await readFile(raw, 'utf8')).replace(/^<\?xml[^>]*\?>\s*/, ''), {
            ...svgFormat,
            width: Math.max(1, Math.round(g.width * scale)),
            height: Math.max(1, Math.round(g.height * scale)),
            idPrefix: `p${page}-`,
          });
        } catch (error) {
          if (!(error instanceof PopplerError) || (error.kind !== 'failed' && error.kind !== 'damaged')) throw error;
          messages.push({ level: 'error', page, message: `The page could not be drawn: ${error.message}` });
        }
        const chunk = htmlPage({
          page,
          svg,
          width: Math.max(1, Math.round(g.width * scale)),
          height: Math.max(1, Math.round(g.height * scale)),
          scale,
          words: words.get(page) ?? [],
          links: links.get(page) ?? [],
        });
        written += Buffer.byteLength(chunk);
        if (context.maxResultBytes > 0 && written > context.maxResultBytes) {
          throw new PopplerError('tooLarge', `The transcription would be more than the ${context.maxResultBytes} bytes a document of this session may have; select fewer pages or a lower dpi.`);
        }
        await handle.write(chunk);
      }
    } finally {
      await handle.close();
    }

    const failed = messages.filter((m) => RANK[m.level] >= RANK[failureLevel]);
    const report = buildReport({ status: failed.length > 0 ? 'failure' : 'success', format: 'html', failureLevel, pages, messages });
    if (failed.length > 0) {
      if (errorReport === 'file') {
        const output = context.scratch('xml');
        await writeFile(output, report, 'utf8');
        return { path: output, type: fileTypeByKey('xml') };
      }
      const summary = `The transcription failed: ${failed.length} message${failed.length === 1 ? '' : 's'} at or above failureLevel "${failureLevel}"`;
      if (errorReport === 'message') {
        const details = failed.map((m) => `${m.page > 0 ? `page ${m.page}: ` : ''}${m.level}: ${m.message}`).join('; ');
        throw new QuireError('CONVERSION_FAILED', `${summary}: ${details.length > 2000 ? `${details.slice(0, 2000)}…` : details}`);
      }
      throw new QuireError('CONVERSION_FAILED', `${summary} (errorReport "message" or "file" gives the report).`);
    }

    // Head (with the report when it is linked) + pages + tail.
    const document = context.scratch('html');
    const out = await open(document, 'w');
    try {
      await out.write(htmlHead(title || 'Transcription', successReport === 'linked' ? { reportXml: report } : {}));
      const source = await open(body, 'r');
      try {
        for await (const chunk of source.createReadStream()) await out.write(chunk as Buffer);
      } finally {
        await source.close().catch(() => undefined);
      }
      await out.write(HTML_TAIL);
    } finally {
      await out.close();
    }

    let result: WorkFile = { path: document, type: fileTypeByKey('html') };
    if (successReport === 'zip') {
      const reportFile = context.scratch('xml');
      await writeFile(reportFile, report, 'utf8');
      const output = context.scratch('zip');
      await zipFiles(
        [
          { name: 'document.html', file: document },
          { name: 'report.xml', file: reportFile },
        ],
        output,
      );
      result = { path: output, type: fileTypeByKey('zip') };
    }
    await requireResultWithin(result.path, context.maxResultBytes, 'transcription');
    return result;
  },
};
