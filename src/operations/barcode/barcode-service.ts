import { writeFile } from 'node:fs/promises';
import { QuireError } from '../../core/errors.js';
import { describeType, fileTypeByKey, type FileType } from '../../core/file-types.js';
import { type BarcodeDetector, BarcodeError, CleanInputTool, type CodeImageFormat, type CodeStamp, loadDrawing } from '../../engines/barcode/index.js';
import type { PopplerRunner } from '../../engines/poppler/tool.js';
import { inField } from '../../engines/pdf-edit/content/errors.js';
import type { PdfRewriter } from '../../engines/pdf/rewriter.js';
import type { Session } from '../../sessions/session.js';
import type { DocumentRecord } from '../../storage/document-store.js';
import { fromToolboxEngine } from '../toolbox/engine-errors.js';
import { selectPages } from '../toolbox/pages.js';
import { type DeadlineSpec, type InPlaceOptions, runAsNew, runInPlace, type Transaction, type TransactionDeps } from '../transaction/document-transaction.js';
import type { AddOptions, BarcodeRequest, DetectOptions } from './barcode.schema.js';
import { type PreparedCode, prepareCodes } from './codes.js';
import { detectCodes } from './detect.js';
import { writeDetectionReport } from './report.js';

const PDF = fileTypeByKey('pdf');

/** The page of a document `barcode/new` makes: A4 portrait, in points. */
export const NEW_PAGE_SIZE: [number, number] = [595.28, 841.89];

export interface BarcodeEngines {
  /** qpdf: decrypts (and repairs) a protected input, re-encrypts the result (transaction/protection.ts). */
  rewriter: PdfRewriter;
  /** Page rendering for detection (pdftoppm, pdfinfo under the poppler gate). */
  poppler: PopplerRunner;
  /** zxing-wasm in its bounded pool of worker threads. */
  detector: BarcodeDetector;
}

export interface BarcodeLimits {
  /** One call, every step together (barcode.timeout). */
  timeoutMs: number;
  /** Most milliseconds one poppler run may take (documents.toolTimeout). */
  toolTimeoutMs: number;
}

/** Stored types `detect` reads with inputFormat img. */
const IMAGE_TYPES = new Set(['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tif', 'tiff', 'webp']);

/**
 * The barcode web service (reference §10.6; docs/barcode.md). `add` stamps codes as vector graphics
 * onto the selected pages of the stored PDF, as one document transaction (every value is checked
 * and encoded before the document is opened; a failure leaves it as it was); `barcode/new` makes a
 * new one-page document with the codes.
 */
export class BarcodeService {
  constructor(
    private readonly deps: TransactionDeps,
    private readonly engines: BarcodeEngines,
    private readonly limits: BarcodeLimits,
  ) {}

  private get deadline(): DeadlineSpec {
    return { timeoutMs: this.limits.timeoutMs };
  }

  /** `POST barcode/{documentId}`. */
  async run(session: Session, documentId: string, request: BarcodeRequest): Promise<DocumentRecord> {
    const { add, detect } = request.barcode;
    if (add && detect) throw new QuireError('PARAMETER', 'Invalid parameter barcode: give either barcode.add or barcode.detect, not both.');
    if (detect) return this.detect(session, documentId, request, detect);
    return this.add(session, documentId, request);
  }

  /**
   * `detect`: the codes on the selected pages (or image frames) become the document — a JSON or XML
   * report (reference §5.4: the result replaces the document; its history keeps the PDF).
   */
  private async detect(session: Session, documentId: string, request: BarcodeRequest, detect: DetectOptions): Promise<DocumentRecord> {
    const isPdf = detect.inputFormat === 'pdf';
    const { record } = await runInPlace(
      this.deps,
      this.inPlace(session, documentId, request, (storedType) => detectableInput(storedType, isPdf)),
      async (tx, input) => {
        let codes;
        try {
          codes = await detectCodes({ path: input.path, isPdf }, detect, {
            detector: this.engines.detector,
            poppler: this.engines.poppler,
            toolTimeoutMs: this.limits.toolTimeoutMs,
            deadline: tx.deadline.at,
            directory: tx.scratch.dir,
          });
        } catch (error) {
          if (error instanceof BarcodeError && error.kind === 'unreadable') throw new QuireError('IMAGE_UNREADABLE', error.message, { cause: error });
          throw fromToolboxEngine(error);
        }
        const current = await this.deps.documents.info(session, documentId);
        const written = writeDetectionReport(codes, { document: current.fileName, inputFormat: detect.inputFormat }, detect.outputFormat);
        const output = tx.scratch.file(written.extension);
        await writeFile(output, written.bytes);
        return { file: { path: output, type: fileTypeByKey(written.extension) } };
      },
    );
    return record;
  }

  /**
   * Both operations change the stored document in place; a protected PDF is opened with the call's or
   * the remembered password. A clean file is not handed to qpdf to be checked for repairs (CleanInputTool).
   */
  private inPlace(session: Session, documentId: string, request: BarcodeRequest, accepts: (storedType: FileType) => void): InPlaceOptions<void> {
    const plainInput = { tool: new CleanInputTool(this.engines.rewriter), mapError: fromToolboxEngine };
    return { session, documentId, operation: 'barcode', password: request.password, deadline: this.deadline, plan: (_record, storedType) => accepts(storedType), plainInput };
  }

  private async add(session: Session, documentId: string, request: BarcodeRequest): Promise<DocumentRecord> {
    const add = this.addOptions(request);
    const codes = await prepareCodes(add);
    const { record } = await runInPlace(this.deps, this.inPlace(session, documentId, request, stampableInput), async (tx, input) => {
      if (add.outputFormat !== 'pdf') return this.codesImage(tx, add, codes);
      const output = tx.scratch.file('pdf');
      try {
        await (await loadDrawing()).stampCodes(input.path, output, (pageCount) => stampsFor(codes, pageCount));
      } catch (error) {
        throw fromToolboxEngine(inField(error, 'barcode.add'));
      }
      return { file: { path: output, type: PDF, pdf: true } };
    });
    return record;
  }

  /** `POST barcode/new?name=`: a new one-page document (A4 portrait) with the codes. */
  async runNew(session: Session, request: BarcodeRequest, options: { name: string; history: boolean }): Promise<DocumentRecord> {
    const add = this.addOptions(request);
    const codes = await prepareCodes(add);
    const { record } = await runAsNew(this.deps, session, { operation: 'barcode', name: options.name, history: options.history, deadline: this.deadline }, async (tx) => {
      if (add.outputFormat !== 'pdf') return this.codesImage(tx, add, codes);
      const output = tx.scratch.file('pdf');
      try {
        // The new document has one page: every code goes on it, whatever its `pages` say.
        await (await loadDrawing()).newDocumentWithCodes(
          output,
          NEW_PAGE_SIZE,
          codes.map((code) => stamp(code, [1])),
        );
      } catch (error) {
        throw fromToolboxEngine(inField(error, 'barcode.add'));
      }
      return { file: { path: output, type: PDF, pdf: true } };
    });
    return record;
  }

  /**
   * outputFormat bmp/jpg/png/tif: the result is an image holding only the codes, laid out as on an A4
   * page (their positions), cropped to the smallest area holding every code's rectangle, at `dpi`.
   */
  private async codesImage(tx: Transaction, add: AddOptions, codes: readonly PreparedCode[]): Promise<{ file: { path: string; type: ReturnType<typeof fileTypeByKey> } }> {
    const format = add.outputFormat as CodeImageFormat;
    const output = tx.scratch.file(format);
    try {
      await (await loadDrawing()).renderCodesImage(
        output,
        format,
        add.dpi,
        NEW_PAGE_SIZE,
        codes.map((code) => stamp(code, [1])),
        tx.scratch.dir,
        { deadline: tx.deadline.at, toolTimeoutMs: this.limits.toolTimeoutMs, poppler: this.engines.poppler },
      );
    } catch (error) {
      if (error instanceof BarcodeError && error.kind === 'invalidValue') throw new QuireError('PARAMETER', `Invalid parameter barcode.add.dpi: ${error.message}.`, { cause: error });
      throw fromToolboxEngine(error);
    }
    return { file: { path: output, type: fileTypeByKey(IMAGE_KEYS[format]) } };
  }

  private addOptions(request: BarcodeRequest): AddOptions {
    const { add, detect } = request.barcode;
    if (add && detect) throw new QuireError('PARAMETER', 'Invalid parameter barcode: give either barcode.add or barcode.detect, not both.');
    if (detect) throw new QuireError('PARAMETER', 'Invalid parameter barcode.detect: barcode/new makes a document from barcode.add; detect works on a stored document (barcode/{documentId}).');
    if (!add) throw new QuireError('PARAMETER', 'Invalid parameter barcode: give barcode.add (the codes to stamp) or barcode.detect.');
    return add;
  }
}

/** File types of the image output formats. */
const IMAGE_KEYS: Record<CodeImageFormat, string> = { png: 'png', jpg: 'jpeg', bmp: 'bmp', tif: 'tiff' };

function stampsFor(codes: readonly PreparedCode[], pageCount: number): CodeStamp[] {
  return codes.map((code) => ({ ...stamp(code, selectPages(code.pages, pageCount, code.pagesField ?? `${code.field}.pages`)), ...(code.newPage ? { newPage: code.newPage } : {}) }));
}

/** The code on `pages` (a Swiss QR bill's own new page is kept only by stampsFor: barcode/new and images draw every code on their one page). */
function stamp(code: PreparedCode, pages: readonly number[]): CodeStamp {
  return { shape: code.shape, pages, position: code.position, rotation: code.rotation };
}

/** `detect` reads what its inputFormat says: a PDF, or an image. */
function detectableInput(storedType: FileType, isPdf: boolean): void {
  if (isPdf && storedType.key !== 'pdf') {
    throw new QuireError('PARAMETER', `Invalid parameter barcode.detect.inputFormat: "pdf", but the document is ${describeType(storedType)} (use "img" for images).`);
  }
  if (!isPdf && !IMAGE_TYPES.has(storedType.key)) throw new QuireError('PARAMETER', `Invalid parameter barcode.detect.inputFormat: "img", but the document is ${describeType(storedType)}.`);
}

/** `add` stamps onto PDFs. */
function stampableInput(storedType: FileType): void {
  if (storedType.key !== 'pdf') throw new QuireError('INVALID_PDF', `barcode.add stamps codes onto PDFs and this document is ${describeType(storedType)}: convert it first (converter web service).`);
}
