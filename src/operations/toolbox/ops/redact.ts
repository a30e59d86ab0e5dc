import { copyFile, rm } from 'node:fs/promises';
import { QuireError } from '../../../core/errors.js';
import { RedactionError, redactPdf, type RedactJob } from '../../../engines/pdf-edit/redaction/index.js';
import type { ToolboxOperation } from '../operation.js';
import { selectPages } from '../pages.js';
import type { RedactOptions } from './redact.schema.js';

const CATEGORIES = ['actions', 'annotations', 'attachments', 'forms', 'layers', 'metadata', 'outlines', 'tags'] as const;

/** `sanitize.pages.dpi` 0 stands for 72 (the member's default). */
const DEFAULT_SANITIZE_DPI = 72;

/**
 * `redact` (reference §10.9.18): `blacken` applies the document's redaction annotations — the text,
 * image pixels, vector paths and annotations under them are removed from the file, not covered — and
 * `sanitize` strips the chosen categories of hidden content. See src/engines/pdf-edit/redaction/.
 * The result is rewritten by qpdf, which leaves out every object nothing refers to any more (the old
 * content streams and images), so the removed content is gone from the file, not just unreferenced.
 */
export const redactOperation: ToolboxOperation<RedactOptions> = {
  name: 'redact',
  needsPdf: true,
  async run(input, options, context, field) {
    const { rewriter } = context.engines;
    const pageCount = await rewriter.pageCount(input.path, context.call);
    const job = buildJob(options, pageCount, field);
    const output = context.scratch('pdf');
    if (!job.blacken && !job.sanitize) {
      await copyFile(input.path, output);
      return { path: output, type: input.type };
    }
    // qpdf first: it repairs what pdf-lib cannot read and folds incremental updates (and with them
    // earlier revisions of the content) into one clean file.
    const normalized = context.scratch('pdf');
    const edited = context.scratch('pdf');
    try {
      await rewriter.rewrite(input.path, normalized, context.call);
      await redactPdf(normalized, edited, job, { scratch: context.scratch, deadline: context.deadline, toolTimeoutMs: context.engines.toolTimeoutMs, poppler: context.engines.poppler }).catch(
        (error: unknown) => {
          // The only option the engine can find unaffordable: a page raster beyond its pixel budget.
          if (error instanceof RedactionError && error.kind === 'unsupported') {
            throw new QuireError('OPTION_UNSUPPORTED', `Option ${field}.sanitize.pages.dpi is not supported here: ${error.message}`, { cause: error });
          }
          throw error;
        },
      );
      await rewriter.rewrite(edited, output, { compress: true, deadline: context.deadline });
    } finally {
      await rm(normalized, { force: true });
      await rm(edited, { force: true });
    }
    return { path: output, type: input.type };
  },
};

function buildJob(options: RedactOptions, pageCount: number, field: string): RedactJob {
  const job: RedactJob = {};
  const b = options.blacken;
  if (b) {
    job.blacken = {
      collisionRatio: b.collisionRatio,
      redactAnnotations: b.redactAnnotations,
      redactImages: b.redactImages,
      redactPaths: b.redactPaths,
      redactTexts: b.redactTexts,
    };
  }
  const s = options.sanitize;
  if (s) {
    const on = (entry: { enabled: boolean } | undefined): boolean => entry !== undefined && entry.enabled;
    const categories = Object.fromEntries(CATEGORIES.map((name) => [name, on(s[name])])) as Record<(typeof CATEGORIES)[number], boolean>;
    let pages: { pageIndexes: number[]; dpi: number } | undefined;
    if (s.pages && on(s.pages)) {
      const { dpi } = s.pages;
      const selected = selectPages(s.pages.pages, pageCount, `${field}.sanitize.pages.pages`);
      pages = { pageIndexes: selected.map((page) => page - 1), dpi: dpi === 0 ? DEFAULT_SANITIZE_DPI : dpi };
    }
    if (Object.values(categories).some(Boolean) || pages) job.sanitize = { ...categories, ...(pages ? { pages } : {}) };
  }
  return job;
}
