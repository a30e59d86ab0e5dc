import { mkdir, writeFile } from 'node:fs/promises';
import { QuireError } from '../../../core/errors.js';
import { fileTypeByKey } from '../../../core/file-types.js';
import { formatPageList } from '../../../core/page-selection.js';
import { loadSharp } from '../../../engines/image/load-sharp.js';
import { createPdfInspector } from '../../../engines/pdf/index.js';
import {
  applyWordRules,
  extractImages,
  extractedSuffix,
  linkBox,
  linkInWord,
  listImages,
  nameFromTemplate,
  pageGeometry,
  pageLayouts,
  pageTexts,
  planRuns,
  PopplerError,
  readLinks,
  requireResultWithin,
  toFlatText,
  toJson,
  toXml,
  zipFiles,
  type Json,
  type LayoutPage,
  type LayoutWord,
  type PageGeometry,
  type PageImage,
  type PageRun,
  type ToolLimits,
} from '../../../engines/poppler/index.js';
import type { ToolboxContext, ToolboxOperation, WorkFile } from '../operation.js';
import { defaultsOf } from '../../option-schema.js';
import { selectPages } from '../pages.js';
import { extractionOptions, type ExtractionOptions } from './extraction.schema.js';

/** Without `links.text`: its defaults. */
const NO_TEXT_LINKS = defaultsOf(extractionOptions.properties.links.properties.text);

type Kind = keyof ExtractionOptions;
const KINDS: readonly Kind[] = ['text', 'words', 'paragraphs', 'links', 'images', 'info'];

/** Text that pdftotext may write before the engine refuses to read it into memory. */
const MAX_TEXT_BYTES = 128 * 1024 * 1024;
/** `-bbox-layout` output (about 150 bytes per word) read into memory at most. */
const MAX_LAYOUT_BYTES = 256 * 1024 * 1024;
/** Quality of images re-encoded as JPEG for `fallbackFormat: jpeg`. */
const FALLBACK_JPEG_QUALITY = 90;

/**
 * `extraction` (reference §10.9.5): the data of the selected pages replaces the document, as a text,
 * XML or JSON file (images also as a ZIP of the image files):
 *
 * - `text`: the page text in reading order (pdftotext); the text file separates pages by form feeds.
 * - `words` / `paragraphs`: words (with the word rules) or pdftotext's blocks, each with its box in
 *   points from the top-left corner of the page as shown; the text file has one word per line, or
 *   paragraphs separated by blank lines.
 * - `links`: link annotations (URI, page destination, remote file, launch, named and script
 *   actions) with their boxes and the text under them, and with `text.fromText` URLs written in the
 *   text, filtered by `protocol` and `withoutProtocol`.
 * - `images`: the images (JPEG data as stored, everything else as PNG, or JPEG with fallbackFormat
 *   jpeg) in a folder per page, or a listing of them.
 * - `info`: `{"document": Metadata_Document}` — information, security, pages, form and images.
 *
 * XML and JSON carry the same model (XML: scalars as attributes, text as content, lists as repeated
 * elements); the root is `document`. `zip` is the format of images only (-14 elsewhere).
 */
export const extractionOperation: ToolboxOperation<ExtractionOptions> = {
  name: 'extraction',
  needsPdf: true,
  async run(input, options, context, field) {
    const kind = chosenKind(options, field);
    const settings = options[kind]!;
    const kindField = `${field}.${kind}`;
    const { fileFormat } = settings;
    if (fileFormat === 'zip' && kind !== 'images') {
      throw new QuireError('PARAMETER', `Invalid parameter ${kindField}.fileFormat: "zip" is the format of image extraction; ${kind} are written as text, xml or json.`);
    }
    const count = await context.engines.rewriter.pageCount(input.path, context.call);
    if (count === 0) throw new QuireError('PARAMETER', `Invalid parameter ${field}: the document has no pages to extract from.`);
    const pages = selectPages(settings.pages, count, `${kindField}.pages`);
    const job: Job = {
      input,
      pages,
      context,
      limits: { deadline: context.deadline, toolTimeoutMs: context.engines.toolTimeoutMs, poppler: context.engines.poppler },
      field: kindField,
    };

    if (kind === 'images' && fileFormat === 'zip') {
      const output = await imagesZip(job, options.images!);
      await requireResultWithin(output, context.maxResultBytes, 'extraction result');
      return { path: output, type: fileTypeByKey('zip') };
    }

    const { model, plain } = await MODELS[kind](job, options);
    const extension = fileFormat === 'text' ? 'txt' : fileFormat;
    const output = context.scratch(extension);
    const content = fileFormat === 'json' ? toJson(model) : fileFormat === 'xml' ? toXml('document', model.document) : plain();
    await writeFile(output, content, 'utf8');
    await requireResultWithin(output, context.maxResultBytes, 'extraction result');
    return { path: output, type: fileTypeByKey(extension) } satisfies WorkFile;
  },
};

interface Job {
  input: WorkFile;
  pages: number[];
  context: ToolboxContext;
  limits: ToolLimits;
  field: string;
}

/** What each kind extracts: the JSON/XML model and its plain-text form. */
const MODELS: Record<Kind, (job: Job, options: ExtractionOptions) => Promise<{ model: { document: Json }; plain: () => string }>> = {
  text: (job) => textModel(job),
  words: (job, options) => wordsModel(job, options.words!),
  paragraphs: (job) => paragraphsModel(job),
  links: (job, options) => linksModel(job, options.links!),
  images: (job, options) => imagesModel(job, options.images!),
  info: (job) => infoModel(job),
};

function chosenKind(options: ExtractionOptions, field: string): Kind {
  const present = KINDS.filter((kind) => options[kind] !== undefined && options[kind] !== null);
  if (present.length !== 1) {
    throw new QuireError(
      'PARAMETER',
      `Invalid parameter ${field}: give exactly one of ${KINDS.join(', ')}, e.g. {"text":{"pages":"1","fileFormat":"text"}}${present.length > 1 ? `; the call gave ${present.join(' and ')}` : ''}.`,
    );
  }
  return present[0]!;
}

/** The runs of pages poppler reads (a scattered selection is copied into a PDF of those pages first). */
function runsOf(job: Job): Promise<PageRun[]> {
  return planRuns(job.input.path, job.pages, async (pages) => {
    const subset = job.context.scratch('pdf');
    await job.context.engines.rewriter.rewrite(job.input.path, subset, { pages: formatPageList(pages), deadline: job.context.deadline });
    return subset;
  });
}

/** Geometry (size as shown, rotation) of the selected pages. */
async function geometryOf(job: Job): Promise<Map<number, PageGeometry>> {
  const all = await pageGeometry(job.input.path, lowest(job.pages), highest(job.pages), job.limits);
  return new Map(all.map((g) => [g.page, g]));
}

/** Layout (blocks, lines, words) of the selected pages, by page number. */
async function layoutsOf(job: Job): Promise<Map<number, LayoutPage>> {
  const layouts = new Map<number, LayoutPage>();
  for (const run of await runsOf(job)) {
    const pages = await pageLayouts(run.file, run.first, run.last, { ...job.limits, output: job.context.scratch('html'), maxBytes: MAX_LAYOUT_BYTES });
    pages.forEach((layout, i) => layouts.set(run.pages[i]!, layout));
  }
  return layouts;
}

function lowest(pages: readonly number[]): number {
  return pages.reduce((a, b) => Math.min(a, b));
}

function highest(pages: readonly number[]): number {
  return pages.reduce((a, b) => Math.max(a, b));
}

function pageHeader(page: number, geometry: PageGeometry | undefined): { number: number; width: number; height: number } {
  return { number: page, width: geometry?.width ?? 0, height: geometry?.height ?? 0 };
}

function box(b: { x: number; y: number; width: number; height: number }): { x: number; y: number; width: number; height: number } {
  return { x: b.x, y: b.y, width: b.width, height: b.height };
}

// ---- text ----

async function textModel(job: Job): Promise<{ model: { document: Json }; plain: () => string }> {
  const texts = new Map<number, string>();
  for (const run of await runsOf(job)) {
    const parts = await pageTexts(run.file, run.first, run.last, { ...job.limits, output: job.context.scratch('txt'), maxBytes: MAX_TEXT_BYTES });
    parts.forEach((text, i) => texts.set(run.pages[i]!, text));
  }
  const geometry = await geometryOf(job);
  const model = { document: { page: job.pages.map((page) => ({ ...pageHeader(page, geometry.get(page)), text: texts.get(page) ?? '' })) } };
  // pdftotext's own convention: every page ends with a form feed.
  return { model, plain: () => job.pages.map((page) => `${texts.get(page) ?? ''}\f`).join('') };
}

// ---- words ----

async function wordsModel(job: Job, options: NonNullable<ExtractionOptions['words']>): Promise<{ model: { document: Json }; plain: () => string }> {
  const rules = {
    delimitAfterPunctuation: options.delimitAfterPunctuation,
    extendedSequenceCharacters: options.extendedSequenceCharacters,
    removePunctuation: options.removePunctuation,
  };
  const [layouts, geometry] = await Promise.all([layoutsOf(job), geometryOf(job)]);
  const words = new Map<number, LayoutWord[]>();
  for (const page of job.pages) {
    const list: LayoutWord[] = [];
    for (const block of layouts.get(page)?.blocks ?? []) for (const line of block.lines) for (const word of line.words) list.push(...applyWordRules(word, rules));
    words.set(page, list);
  }
  const model = {
    document: {
      metrics: 'pt',
      page: job.pages.map((page) => ({ ...pageHeader(page, geometry.get(page)), word: (words.get(page) ?? []).map((w) => ({ ...box(w), text: w.text })) })),
    },
  };
  return { model, plain: () => job.pages.map((page) => (words.get(page) ?? []).map((w) => `${w.text}\n`).join('')).join('\f') };
}

// ---- paragraphs ----

async function paragraphsModel(job: Job): Promise<{ model: { document: Json }; plain: () => string }> {
  const [layouts, geometry] = await Promise.all([layoutsOf(job), geometryOf(job)]);
  const paragraphs = new Map<number, { x: number; y: number; width: number; height: number; text: string }[]>();
  for (const page of job.pages) {
    paragraphs.set(
      page,
      (layouts.get(page)?.blocks ?? []).map((block) => ({
        ...box(block),
        text: block.lines.map((line) => line.words.map((w) => w.text).join(' ')).join(' '),
      })),
    );
  }
  const model = {
    document: {
      metrics: 'pt',
      page: job.pages.map((page) => ({ ...pageHeader(page, geometry.get(page)), paragraph: paragraphs.get(page) ?? [] })),
    },
  };
  return { model, plain: () => job.pages.map((page) => (paragraphs.get(page) ?? []).map((p) => `${p.text}\n\n`).join('')).join('\f') };
}

// ---- links ----

interface LinkEntry {
  source: 'annotation' | 'text';
  type: string;
  target: string;
  destinationPage?: number;
  destinationView?: string;
  destinationName?: string;
  x: number;
  y: number;
  width: number;
  height: number;
  text: string;
}

async function linksModel(job: Job, options: NonNullable<ExtractionOptions['links']>): Promise<{ model: { document: Json }; plain: () => string }> {
  const { fromText, protocol, withoutProtocol } = options.text ?? NO_TEXT_LINKS;
  const rules = { protocol, withoutProtocol };
  const [annotations, layouts, geometry] = await Promise.all([
    readLinks(job.input.path, job.pages, { ...job.limits, qpdf: job.context.engines.qpdf, maxJsonBytes: 256 * 1024 * 1024, maxAnnotations: 200_000 }),
    layoutsOf(job),
    geometryOf(job),
  ]);
  const links = new Map<number, LinkEntry[]>(job.pages.map((page) => [page, []]));
  for (const link of annotations) {
    const g = geometry.get(link.page);
    const rect = g ? linkBox(link, g) : { x: 0, y: 0, width: 0, height: 0 };
    const words = (layouts.get(link.page)?.blocks ?? []).flatMap((b) => b.lines.flatMap((l) => l.words));
    links.get(link.page)?.push({
      source: 'annotation',
      type: link.kind,
      target: link.kind === 'goTo' ? (link.destinationPage > 0 ? `#page=${link.destinationPage}` : '') : link.target,
      ...(link.kind === 'goTo' || link.kind === 'goToR' || link.kind === 'goToE'
        ? { destinationPage: link.destinationPage, destinationView: link.destinationView, destinationName: link.destinationName }
        : {}),
      ...rect,
      text: words
        .filter((w) => inside(w, rect))
        .map((w) => w.text)
        .join(' '),
    });
  }
  if (fromText) {
    for (const page of job.pages) {
      for (const block of layouts.get(page)?.blocks ?? []) {
        for (const line of block.lines) {
          for (const word of line.words) {
            const found = linkInWord(word.text, rules);
            if (found) links.get(page)?.push({ source: 'text', type: 'uri', target: found.uri, ...box(word), text: word.text });
          }
        }
      }
    }
  }
  const model = {
    document: {
      metrics: 'pt',
      page: job.pages.map((page) => ({ ...pageHeader(page, geometry.get(page)), link: (links.get(page) ?? []) as unknown as Json[] })),
    },
  };
  const plain = () => job.pages.flatMap((page) => (links.get(page) ?? []).map((l) => `${page}\t${l.type}\t${l.target}\t${l.text.replace(/\s+/g, ' ')}\n`)).join('');
  return { model, plain };
}

/** A word belongs to a link when its centre lies in the link's box. */
function inside(word: LayoutWord, rect: { x: number; y: number; width: number; height: number }): boolean {
  const cx = word.x + word.width / 2;
  const cy = word.y + word.height / 2;
  return cx >= rect.x && cx <= rect.x + rect.width && cy >= rect.y && cy <= rect.y + rect.height;
}

// ---- images ----

interface ImagePlan {
  image: PageImage & { page: number };
  /** 1-based number of the image on its page. */
  number: number;
  folder: string;
  file: string;
}

/** Folder and file names of every image (checked before anything is extracted). */
function planImages(job: Job, images: (PageImage & { page: number })[], options: NonNullable<ExtractionOptions['images']>): ImagePlan[] {
  const folderTemplate = options.folderNameTemplate;
  const fileTemplate = options.fileNameTemplate;
  const fallback = options.fallbackFormat;
  const perPage = new Map<number, number>();
  const used = new Set<string>();
  return images.map((image) => {
    const number = (perPage.get(image.page) ?? 0) + 1;
    perPage.set(image.page, number);
    const folder = nameFromTemplate(folderTemplate, image.page);
    if ('reason' in folder) throw new QuireError('PARAMETER', `Invalid parameter ${job.field}.folderNameTemplate: "${folderTemplate}" cannot name a folder: ${folder.reason}.`);
    const file = nameFromTemplate(fileTemplate, number);
    if ('reason' in file) throw new QuireError('PARAMETER', `Invalid parameter ${job.field}.fileNameTemplate: "${fileTemplate}" cannot name a file: ${file.reason}.`);
    const suffix = extractedSuffix(image) === 'png' && fallback === 'jpeg' ? 'jpg' : extractedSuffix(image);
    const name = `${file.name}.${suffix}`;
    const key = `${folder.name}/${name}`;
    if (used.has(key)) {
      const which = fileTemplate.includes('%d') ? 'folderNameTemplate' : 'fileNameTemplate';
      throw new QuireError('PARAMETER', `Invalid parameter ${job.field}.${which}: the templates give two images the name ${key}; put %d where the number goes.`);
    }
    used.add(key);
    return { image, number, folder: folder.name, file: name };
  });
}

/** pdfimages' listing of the selected pages, with page numbers of the original document. */
async function imagesOf(job: Job): Promise<{ run: PageRun; images: (PageImage & { page: number })[] }[]> {
  const out: { run: PageRun; images: (PageImage & { page: number })[] }[] = [];
  for (const run of await runsOf(job)) {
    const listed = await listImages(run.file, run.first, run.last, job.limits);
    out.push({ run, images: listed.map((image) => ({ ...image, page: run.pages[image.page - run.first] ?? image.page })) });
  }
  return out;
}

async function imagesModel(job: Job, options: NonNullable<ExtractionOptions['images']>): Promise<{ model: { document: Json }; plain: () => string }> {
  const runs = await imagesOf(job);
  const plans = planImages(
    job,
    runs.flatMap((r) => r.images),
    options,
  );
  const geometry = await geometryOf(job);
  const entry = (plan: ImagePlan) => ({
    number: plan.number,
    type: plan.image.type,
    width: plan.image.width,
    height: plan.image.height,
    colorSpace: plan.image.colorSpace,
    components: plan.image.components,
    bitsPerComponent: plan.image.bitsPerComponent,
    encoding: plan.image.encoding,
    interpolate: plan.image.interpolate,
    objectKey: plan.image.objectKey,
    xPpi: plan.image.xPpi,
    yPpi: plan.image.yPpi,
    suffix: plan.file.slice(plan.file.lastIndexOf('.') + 1),
    fileName: `${plan.folder}/${plan.file}`,
  });
  const model = {
    document: {
      page: job.pages.map((page) => ({ ...pageHeader(page, geometry.get(page)), image: plans.filter((p) => p.image.page === page).map(entry) })),
    },
  };
  const plain = () =>
    plans.map((p) => `${p.folder}/${p.file}\t${p.image.width}x${p.image.height}\t${p.image.colorSpace}\t${p.image.bitsPerComponent} bpc\t${p.image.type}\t${p.image.encoding}\n`).join('');
  return { model, plain };
}

async function imagesZip(job: Job, options: NonNullable<ExtractionOptions['images']>): Promise<string> {
  const runs = await imagesOf(job);
  const plans = new Map(
    planImages(
      job,
      runs.flatMap((r) => r.images),
      options,
    ).map((plan) => [plan.image, plan]),
  );
  const jpeg = options.fallbackFormat === 'jpeg';
  const sources: { name: string; file: string }[] = [];
  for (const { run, images } of runs) {
    if (images.length === 0) continue;
    const directory = job.context.scratch('d');
    await mkdir(directory);
    const extracted = await extractImages(run.file, run.first, run.last, directory, job.limits);
    // pdfimages numbers the files it writes as the listing does (page, running index).
    const byKey = new Map(extracted.map((file) => [`${file.page}/${file.index}`, file]));
    for (const image of images) {
      const original = run.first + run.pages.indexOf(image.page);
      const file = byKey.get(`${original}/${image.index}`);
      const plan = plans.get(image)!;
      if (!file) throw new PopplerError('failed', `pdfimages did not write image ${image.index} of page ${image.page}.`);
      let source = file.path;
      if (jpeg && file.suffix === 'png') {
        source = `${file.path}.jpg`;
        const sharp = await loadSharp();
        await sharp(file.path).flatten({ background: '#ffffff' }).jpeg({ quality: FALLBACK_JPEG_QUALITY }).toFile(source);
      }
      sources.push({ name: `${plan.folder}/${plan.file}`, file: source });
    }
  }
  const output = job.context.scratch('zip');
  await zipFiles(sources, output);
  return output;
}

// ---- info ----

async function infoModel(job: Job): Promise<{ model: { document: Json }; plain: () => string }> {
  const timeoutMs = Math.max(1, Math.min(job.context.engines.toolTimeoutMs, job.context.deadline - Date.now()));
  const inspector = createPdfInspector({ qpdf: job.context.engines.qpdf, timeoutMs, maxPages: highest(job.pages) });
  const [metadata, runs] = await Promise.all([inspector.metadata(job.input.path), imagesOf(job)]);
  const selected = new Set(job.pages);
  const document = {
    information: metadata.information,
    security: metadata.security,
    pages: { page: job.pages.map((page) => metadata.pages.page[page - 1]).filter((p) => p !== undefined) },
    form: metadata.form,
    images: {
      image: runs
        .flatMap((r) => r.images)
        .filter((image) => selected.has(image.page))
        .map((image) => ({
          page: image.page,
          width: image.width,
          height: image.height,
          bitsPerComponent: image.bitsPerComponent,
          objectKey: image.objectKey,
          suffix: extractedSuffix(image),
        })),
    },
  } as unknown as Json;
  return { model: { document }, plain: () => toFlatText(document) };
}
