import { readFile, writeFile } from 'node:fs/promises';
import { QuireError } from '../../core/errors.js';
import { describeType, fileTypeByKey, type FileType } from '../../core/file-types.js';
import type { PdfStructureTool } from '../../engines/contracts.js';
import { imageToPdf } from '../../engines/image/image-to-pdf.js';
import type { PdfRewriter } from '../../engines/pdf/rewriter.js';
import type { PopplerRunner } from '../../engines/poppler/tool.js';
import type { TesseractEngine } from '../../engines/tesseract/tesseract-engine.js';
import type { Session } from '../../sessions/session.js';
import type { DocumentRecord } from '../../storage/document-store.js';
import { fromEngine } from '../engine-errors.js';
import { runInPlace, type TransactionDeps, type Transaction, type NestedSteps } from '../transaction/document-transaction.js';
import { mergeHocr } from './hocr.js';
import type { OcrOptions, OcrRequest } from './ocr.schema.js';
import { analysePages, onlyOcrLayer, type PageFacts } from './page-analysis.js';
import { ocrPage } from './page-ocr.js';
import { graftTextLayers } from './text-layer.js';

const PDF = fileTypeByKey('pdf');
const TXT = fileTypeByKey('txt');
const HTML = fileTypeByKey('html');

/** The lowest image resolution `checkResolution` accepts. */
export const MIN_DPI = 200;

export interface OcrEngines {
  /** Absent when engines.tesseract is switched off or could not start: calls get -107. */
  tesseract?: TesseractEngine;
  qpdf: PdfStructureTool;
  poppler: PopplerRunner;
  /** Decrypts a protected input and re-encrypts the result (transaction/protection.ts). */
  rewriter: PdfRewriter;
}

export interface OcrLimits {
  /** One call, every page together (ocr.timeout). */
  timeoutMs: number;
  /** One Tesseract run (engines.tesseract.timeout): past it the run is killed. */
  pageTimeoutMs: number;
  /** One poppler run (documents.toolTimeout). */
  toolTimeoutMs: number;
}

/**
 * The OCR web service (reference §10.5; docs/ocr.md): a searchable PDF (the original pages with an
 * invisible text layer from Tesseract over them), plain text or hOCR of a scanned PDF or an image,
 * as one document transaction: a failure leaves the document as it was.
 */
export class OcrService {
  constructor(
    private readonly deps: TransactionDeps,
    private readonly engines: OcrEngines,
    private readonly limits: OcrLimits,
    private readonly steps: NestedSteps,
  ) {}

  /** `POST ocr/{documentId}`; answers the committed document and the warnings (Warning headers). */
  async run(session: Session, documentId: string, request: OcrRequest): Promise<{ record: DocumentRecord; warnings: string[] }> {
    const options = request.ocr;
    const tesseract = this.engines.tesseract;
    if (!tesseract) throw new QuireError('ENGINE_UNAVAILABLE', 'The OCR engine (Tesseract) is switched off or could not start on this server (engines.tesseract).');
    if (options.pdfa && options.outputFormat !== 'pdf') throw new QuireError('PARAMETER', 'Invalid parameter ocr.pdfa: PDF/A applies to outputFormat "pdf" only.');
    if (options.pdfa && !this.steps.pdfa) throw new QuireError('OPTION_UNSUPPORTED', 'ocr.pdfa is not supported by this server (no pdfa web service); nothing was changed.');
    const warnings: string[] = [];
    const { record } = await runInPlace(
      this.deps,
      {
        session,
        documentId,
        operation: 'ocr',
        password: request.password,
        deadline: { timeoutMs: this.limits.timeoutMs },
        plan: recognisableInput,
        plainInput: { tool: this.engines.rewriter, mapError: fromEngine },
      },
      async (tx, input) => {
        try {
          return await this.recognise(tx, input, options, tesseract, warnings);
        } catch (error) {
          throw fromEngine(error);
        }
      },
    );
    return { record, warnings };
  }

  private async recognise(
    tx: Transaction,
    input: { path: string; type: FileType },
    options: OcrOptions,
    tesseract: TesseractEngine,
    warnings: string[],
  ): Promise<{ file: { path: string; type: FileType; pdf?: boolean } }> {
    const limits = { deadline: tx.deadline.at, toolTimeoutMs: this.limits.toolTimeoutMs, poppler: this.engines.poppler };
    // An image becomes a PDF page first, at its full resolution (what Tesseract reads); from there
    // images and PDFs go one way.
    let pdf = input.path;
    const fromImage = input.type.key !== 'pdf';
    const page = pageSetup(options.page);
    if (fromImage) {
      pdf = tx.scratch.file('pdf');
      await imageToPdf(input.path, pdf, { page, maintainAspectRatio: true, jpegQuality: jpegQuality(options) });
    }
    const facts = await analysePages(pdf, tx.scratch.file('txt'), limits);
    let chosen = this.choosePages(facts, options, fromImage, warnings);
    if (options.outputFormat === 'pdf' && options.forceEachPage) chosen = await this.leaveOcrLayers(pdf, chosen, facts, limits, warnings);
    // The pages the user gets: an image above `imageDpi` is re-encoded at imageDpi (Lanczos, JPEG at
    // jpegQuality) on a page of the same geometry, so the text layer from the full-resolution
    // recognition lies over it the same way. A PDF's own pages are never re-encoded.
    let shown = pdf;
    if (fromImage && options.outputFormat === 'pdf' && options.imageDpi > 0 && facts.some((fact) => (fact.minDpi ?? 0) > options.imageDpi)) {
      shown = tx.scratch.file('pdf');
      await imageToPdf(input.path, shown, { page, maintainAspectRatio: true, jpegQuality: jpegQuality(options), maxDpi: options.imageDpi });
    }
    // pdf: the text too, to tell a page that yielded no words (a warning).
    const outputs = options.outputFormat === 'pdf' ? (['pdf', 'txt'] as const) : options.outputFormat === 'text' ? (['txt'] as const) : (['hocr'] as const);
    // At most one page per worker of this call in flight, plus one being rasterised meanwhile: a
    // 300-page document must not fill the pool's queue (429 for everyone), and the pages of other
    // calls queue among this call's.
    // forceEachPage on a page with text, output pdf: the page keeps its text, so only what is not
    // text already (words in images) is recognised, rendered without the text: no word gets a second
    // layer. Such a page may well yield no new words. text and hocr replace the document: there the
    // whole page is recognised.
    const withoutText = (page: number) => options.outputFormat === 'pdf' && hasText(facts[page - 1]!);
    const done = await inLanes(chosen, tesseract.stats().size + 1, (page) =>
      ocrPage(pdf, { page, withoutText: withoutText(page) }, options, outputs, { tesseract, limits, scratch: tx.scratch, pageTimeoutMs: this.limits.pageTimeoutMs }),
    );
    const expectsWords = (page: number) => !withoutText(page);
    const byPage = new Map(done.map((result) => [result.page, result]));

    if (options.outputFormat === 'text') {
      const texts = await Promise.all(
        facts.map(async (fact) => {
          const file = byPage.get(fact.page)?.files.txt;
          return file ? (await readFile(file, 'utf8')).replace(/\f$/, '') : fact.text;
        }),
      );
      for (const result of done) if (expectsWords(result.page) && !texts[result.page - 1]?.trim()) warnings.push(`page ${result.page}: no text was recognised`);
      this.failOnWarning(options, warnings);
      const output = tx.scratch.file('txt');
      await writeFile(output, texts.join('\f'), 'utf8');
      return { file: { path: output, type: TXT } };
    }
    if (options.outputFormat === 'hocr') {
      const pages = await Promise.all(done.map(async (result) => ({ page: result.page, hocr: await readFile(result.files.hocr!, 'utf8') })));
      for (const page of pages) if (expectsWords(page.page) && !/class='ocrx_word'/.test(page.hocr)) warnings.push(`page ${page.page}: no text was recognised`);
      this.failOnWarning(options, warnings);
      const output = tx.scratch.file('html');
      await writeFile(output, mergeHocr(pages), 'utf8');
      return { file: { path: output, type: HTML } };
    }
    for (const result of done) if (expectsWords(result.page) && !(await readFile(result.files.txt!, 'utf8')).trim()) warnings.push(`page ${result.page}: no text was recognised`);
    this.failOnWarning(options, warnings);
    // normalizePageRotation: a page recognised turned is shown turned the same way (/Rotate), so it
    // reads upright and its text layer, made from the upright image, lies over the words (qpdf's
    // overlay places the layer in the page's displayed orientation).
    const turned = done.filter((result) => result.rotated !== 0);
    if (turned.length > 0) {
      const upright = tx.scratch.file('pdf');
      await this.engines.qpdf.run([shown, ...turned.map((result) => `--rotate=+${result.rotated}:${result.page}`), '--', upright], { deadline: tx.deadline.at });
      shown = upright;
    }
    let output = tx.scratch.file('pdf');
    await graftTextLayers(
      this.engines.qpdf,
      shown,
      done.map((result) => ({ page: result.page, pdf: result.files.pdf! })),
      () => tx.scratch.file('pdf'),
      output,
      tx.deadline.at,
    );
    if (options.pdfa) {
      const converted = tx.scratch.file('pdf');
      await this.steps.pdfa!.run(output, converted, options.pdfa, tx);
      output = converted;
    }
    return { file: { path: output, type: PDF, pdf: true } };
  }

  /** The pages to recognise: without text (all with forceEachPage), each checked for its resolution. */
  private choosePages(facts: readonly PageFacts[], options: OcrOptions, fromImage: boolean, warnings: string[]): number[] {
    const chosen: number[] = [];
    const skipped: number[] = [];
    for (const fact of facts) {
      if (!fromImage && !options.forceEachPage && hasText(fact)) {
        skipped.push(fact.page);
        continue;
      }
      chosen.push(fact.page);
    }
    if (skipped.length > 0) warnings.push(`pages with text were not recognised again (forceEachPage): ${skipped.join(', ')}`);
    const low = chosen.map((page) => facts[page - 1]!).filter((fact) => fact.minDpi !== undefined && fact.minDpi < MIN_DPI);
    if (low.length > 0) {
      const list = low.map((fact) => `page ${fact.page}: ${fact.minDpi} dpi`).join(', ');
      if (options.checkResolution)
        throw new QuireError('OCR_RESOLUTION', `The input's resolution is below ${MIN_DPI} dpi (${list}); scan at ${MIN_DPI} dpi or more, or set ocr.checkResolution false.`);
      warnings.push(`resolution below ${MIN_DPI} dpi: ${list}`);
    }
    return chosen;
  }

  /**
   * forceEachPage, output pdf: a page whose only text is an OCR layer already (Tesseract's glyphless
   * font) is left as it is, with a warning: recognising its scan again would add a second layer over
   * the same words (the earlier layer is not removed: docs/ocr.md).
   */
  private async leaveOcrLayers(
    pdf: string,
    chosen: number[],
    facts: readonly PageFacts[],
    limits: { deadline: number; toolTimeoutMs: number; poppler: PopplerRunner },
    warnings: string[],
  ): Promise<number[]> {
    const layered = new Set<number>();
    for (const page of chosen) if (hasText(facts[page - 1]!) && (await onlyOcrLayer(pdf, page, limits))) layered.add(page);
    if (layered.size > 0) warnings.push(`pages with an OCR text layer already were not recognised again: ${[...layered].join(', ')}`);
    return chosen.filter((page) => !layered.has(page));
  }

  private failOnWarning(options: OcrOptions, warnings: readonly string[]): void {
    if (options.failOnWarning && warnings.length > 0) throw new QuireError('OCR_WARNING', `The OCR had warnings and failOnWarning is set: ${warnings.join('; ')}.`);
  }
}

/** `work` on every item, at most `lanes` at once; results in the items' order. The first failure fails the whole. */
async function inLanes<T, R>(items: readonly T[], lanes: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const at = next++;
      try {
        results[at] = await work(items[at]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane));
  return results;
}

/** Whether a page has text of its own (pdftotext finds some). */
function hasText(fact: PageFacts): boolean {
  return fact.text.trim() !== '';
}

/** `jpegQuality` for the image writer, which takes 1-100: the reference's 0 is the lowest quality, 1. */
function jpegQuality(options: OcrOptions): number {
  return Math.max(1, options.jpegQuality);
}

/** `page` (Operation_OcrPage) in PDF points (what imageToPdf takes), no margins; default A4. */
function pageSetup(page: OcrOptions['page']): { width: number; height: number; marginTop: number; marginRight: number; marginBottom: number; marginLeft: number } {
  const points = { mm: 72 / 25.4, in: 72, pt: 1, pc: 12, px: 0.75 }[page?.metrics ?? 'mm'];
  const width = (page?.width ?? 210) * points;
  const height = (page?.height ?? 297) * points;
  if (width <= 0 || height <= 0) throw new QuireError('PARAMETER', 'Invalid parameter ocr.page: width and height must be more than 0.');
  return { width, height, marginTop: 0, marginRight: 0, marginBottom: 0, marginLeft: 0 };
}

/** OCR reads PDFs and raster images (an SVG has its text already). */
function recognisableInput(_record: DocumentRecord, storedType: FileType): void {
  if (storedType.key !== 'pdf' && !storedType.groups.includes('image')) throw new QuireError('CONVERSION_UNSUPPORTED', `ocr reads PDFs and images and this document is ${describeType(storedType)}.`);
  if (storedType.key === 'svg') throw new QuireError('CONVERSION_UNSUPPORTED', 'ocr reads raster images; an SVG has its text already: convert it first (converter web service).');
}
