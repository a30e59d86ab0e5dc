import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { QuireError } from '../../../core/errors.js';
import { fileTypeByKey } from '../../../core/file-types.js';
import {
  BILEVEL_COMPRESSIONS,
  encodePage,
  formatSvg,
  mergeTiffs,
  nameFromTemplate,
  pageGeometry,
  renderPages,
  renderSvg,
  requireResultWithin,
  zipFiles,
  type PageEncoding,
  type PageGeometry,
} from '../../../engines/poppler/index.js';
import type { ToolboxOperation, WorkFile } from '../operation.js';
import { selectPages } from '../pages.js';
import type { ImageOptions } from './image.schema.js';

/** `Operation_Png`, `Operation_Gif`, `Operation_Bmp`: the size of the page images. */
export type ImageSize = NonNullable<ImageOptions['png']>;
type Metrics = ImageSize['metrics'];

type Format = 'png' | 'jpeg' | 'gif' | 'bmp' | 'tiff' | 'svg';
const FORMATS: readonly Format[] = ['png', 'jpeg', 'gif', 'bmp', 'tiff', 'svg'];
const EXTENSION: Readonly<Record<Format, string>> = { png: 'png', jpeg: 'jpg', gif: 'gif', bmp: 'bmp', tiff: 'tif', svg: 'svg' };

/** Most pixels of one page image (100 megapixels: an A4 page at about 1000 dpi). */
export const MAX_PAGE_PIXELS = 100_000_000;

/**
 * `image` (reference §10.9.7): renders the selected pages (default "1") as PNG, JPEG, GIF, BMP, TIFF
 * (pdftoppm, encoded by libvips) or SVG (pdftocairo), the crop box as viewers show it. One page gives
 * that image; several a ZIP of images named by `fileNameTemplate` ("page[%d]" → "page[3].png"), or
 * with `tiff.multipage` one multi-page TIFF.
 *
 * Size: `dpi` (0 means the default, 72) gives pixels per inch; `width`/`height` (in `metrics`; `px`
 * are image pixels) set the image size instead, one of them keeping the page's proportions, both
 * fitting the page into that box. TIFF: compression none, lzw, packbits, deflate and zlib (both the
 * zlib "Adobe deflate" coding), jpeg (at jpegQuality) in colour; rle, group3 and group4 in black
 * and white, made by `blackAndWhiteQuality` (threshold, ordered dithering or error diffusion).
 */
export const imageOperation: ToolboxOperation<ImageOptions> = {
  name: 'image',
  needsPdf: true,
  async run(input, options, context, field) {
    const format = chosenFormat(options, field);
    const settings: ImageSize = options[format]!;
    const formatField = `${field}.${format}`;
    const encoding = encodingOf(format, options, formatField);

    const count = await context.engines.rewriter.pageCount(input.path, context.call);
    if (count === 0) throw new QuireError('PARAMETER', `Invalid parameter ${field}: the document has no pages to render.`);
    const pages = selectPages(options.pages, count, `${field}.pages`);
    const template = options.fileNameTemplate;
    const names = memberNames(pages, template, EXTENSION[format], `${field}.fileNameTemplate`);
    const limits = { deadline: context.deadline, toolTimeoutMs: context.engines.toolTimeoutMs, poppler: context.engines.poppler };

    const first = pages.reduce((a, b) => Math.min(a, b));
    const last = pages.reduce((a, b) => Math.max(a, b));
    const geometry = new Map((await pageGeometry(input.path, first, last, limits)).map((g) => [g.page, g]));
    const dpi = resolutionOf(settings.dpi);
    const sizes = new Map(pages.map((page) => [page, pixelSize(geometry.get(page)!, settings, dpi, formatField)]));

    const directory = context.scratch('d');
    await mkdir(directory);
    const files = new Map<number, string>();
    if (format === 'svg') {
      const svg = options.svg!;
      for (const page of pages) {
        const raw = path.join(directory, `raw-${page}.svg`);
        await renderSvg(input.path, page, raw, limits);
        const size = sizes.get(page)!;
        const formatted = formatSvg(await readFile(raw, 'utf8'), {
          decimalPrecision: svg.decimalPrecision,
          pathDrawMode: svg.pathDrawMode,
          graphicsStateMode: svg.graphicsStateMode,
          width: size.width,
          height: size.height,
          idPrefix: '',
        });
        const output = path.join(directory, `page-${page}.svg`);
        await writeFile(output, formatted);
        files.set(page, output);
      }
    } else {
      const gray = format === 'tiff' && BILEVEL_COMPRESSIONS.has(options.tiff!.compression);
      for (const run of renderRuns(pages, sizes, geometry)) {
        const rendered = await renderPages(input.path, run.first, run.last, {
          ...limits,
          directory: path.join(directory, `run-${run.first}`),
          width: run.width,
          height: run.height,
          sideways: run.sideways,
          dpi,
          gray,
        });
        for (const { page, path: pixels } of rendered) {
          const output = path.join(directory, `page-${page}.${EXTENSION[format]}`);
          await encodePage(pixels, output, encoding!, dpi);
          await rm(pixels, { force: true }); // the raw page is large; the encoded one is kept
          files.set(page, output);
        }
      }
    }

    let result: WorkFile;
    if (pages.length === 1) {
      result = { path: files.get(pages[0]!)!, type: fileTypeByKey(format) };
    } else if (format === 'tiff' && options.tiff?.multipage === true) {
      const output = context.scratch('tif');
      await mergeTiffs(
        pages.map((page) => files.get(page)!),
        output,
      );
      result = { path: output, type: fileTypeByKey('tiff') };
    } else {
      const output = context.scratch('zip');
      await zipFiles(
        pages.map((page) => ({ name: names.get(page)!, file: files.get(page)! })),
        output,
      );
      result = { path: output, type: fileTypeByKey('zip') };
    }
    await requireResultWithin(result.path, context.maxResultBytes, 'image result');
    return result;
  },
};

function chosenFormat(options: ImageOptions, field: string): Format {
  const present = FORMATS.filter((format) => options[format] !== undefined && options[format] !== null);
  if (present.length !== 1) {
    throw new QuireError(
      'PARAMETER',
      `Invalid parameter ${field}: give exactly one image format (${FORMATS.join(', ')}), e.g. {"png":{"dpi":72}}${present.length > 1 ? `; the call gave ${present.join(' and ')}` : ''}.`,
    );
  }
  return present[0]!;
}

/** How a rendered page is encoded; SVG is not rendered to pixels (undefined). */
function encodingOf(format: Format, options: ImageOptions, field: string): PageEncoding | undefined {
  switch (format) {
    case 'svg':
      return undefined;
    case 'png':
    case 'gif':
    case 'bmp':
      return { format };
    case 'jpeg': {
      const jpeg = options.jpeg!;
      const optimise = jpeg.sizeOptimization;
      if (optimise && (optimise.maxRetries < 0 || optimise.maxSize < 0 || optimise.stepSize < 0)) {
        throw new QuireError('PARAMETER', `Invalid parameter ${field}.sizeOptimization: maxRetries, maxSize and stepSize cannot be negative.`);
      }
      return {
        format: 'jpeg',
        quality: jpeg.jpegQuality,
        ...(optimise ? { sizeOptimization: { maxRetries: optimise.maxRetries, maxSize: optimise.maxSize, stepSize: optimise.stepSize } } : {}),
      };
    }
    case 'tiff': {
      const tiff = options.tiff!;
      return { format: 'tiff', compression: tiff.compression, quality: tiff.jpegQuality, blackAndWhite: tiff.blackAndWhiteQuality };
    }
  }
}

/** `dpi` 0 stands for 72 (the member's default). */
function resolutionOf(dpi: number): number {
  return dpi === 0 ? 72 : dpi;
}

const PER_INCH: Readonly<Record<Exclude<Metrics, 'px'>, number>> = { pt: 72, pc: 6, mm: 25.4, in: 1 };

/** The pixel size of a page image: from dpi, or from width/height in their metrics (fitting the page into the box). */
export function pixelSize(page: PageGeometry, size: ImageSize, dpi: number, field: string): { width: number; height: number } {
  const { metrics } = size;
  const toPixels = (value: number): number => (metrics === 'px' ? value : (value / PER_INCH[metrics]) * dpi);
  const wanted = { width: size.width, height: size.height };
  // A degenerate crop box (no area) still gives an image of at least one pixel.
  const pageWidth = Math.max(page.width, 1);
  const pageHeight = Math.max(page.height, 1);
  let scale: number; // pixels per point
  if (wanted.width > 0 && wanted.height > 0) scale = Math.min(toPixels(wanted.width) / pageWidth, toPixels(wanted.height) / pageHeight);
  else if (wanted.width > 0) scale = toPixels(wanted.width) / pageWidth;
  else if (wanted.height > 0) scale = toPixels(wanted.height) / pageHeight;
  else scale = dpi / 72;
  const width = Math.max(1, Math.round(pageWidth * scale));
  const height = Math.max(1, Math.round(pageHeight * scale));
  if (width * height > MAX_PAGE_PIXELS) {
    throw new QuireError(
      'PARAMETER',
      `Invalid parameter ${field}: page ${page.page} would be ${width}×${height} pixels, more than the ${MAX_PAGE_PIXELS / 1_000_000} megapixels one page image may have; lower dpi, width or height.`,
    );
  }
  return { width, height };
}

/** Consecutive selected pages that share the image size and orientation: one pdftoppm call each. */
function renderRuns(
  pages: readonly number[],
  sizes: Map<number, { width: number; height: number }>,
  geometry: Map<number, PageGeometry>,
): { first: number; last: number; width: number; height: number; sideways: boolean }[] {
  const runs: { first: number; last: number; width: number; height: number; sideways: boolean }[] = [];
  for (const page of pages) {
    const size = sizes.get(page)!;
    const rotation = geometry.get(page)!.rotation;
    const sideways = rotation === 90 || rotation === 270;
    const current = runs[runs.length - 1];
    if (current && page === current.last + 1 && current.width === size.width && current.height === size.height && current.sideways === sideways) {
      current.last = page;
    } else {
      runs.push({ first: page, last: page, ...size, sideways });
    }
  }
  return runs;
}

/** The ZIP member of each page, checked before any rendering. */
function memberNames(pages: readonly number[], template: string, extension: string, field: string): Map<number, string> {
  const names = new Map<number, string>();
  const used = new Set<string>();
  for (const page of pages) {
    const made = nameFromTemplate(template, page);
    if ('reason' in made) throw new QuireError('PARAMETER', `Invalid parameter ${field}: "${template}" cannot name the page images: ${made.reason}.`);
    const name = `${made.name}.${extension}`;
    if (used.has(name) && pages.length > 1) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}: "${template}" gives every page the same name; put %d where the page number goes.`);
    }
    used.add(name);
    names.set(page, name);
  }
  return names;
}
