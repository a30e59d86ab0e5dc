import { randomBytes } from 'node:crypto';
import { copyFile, link, rename } from 'node:fs/promises';
import path from 'node:path';
import { QuireError } from '../../core/errors.js';
import type { FileType } from '../../core/file-types.js';
import { formatPageList, PageSelectionError, resolvePageSelection } from '../../core/page-selection.js';
import type { Ghostscript } from '../../engines/ghostscript/ghostscript.js';
import type { FontInventory } from '../../engines/fonts/font-inventory.js';
import { requestedFonts } from '../../engines/format/document-fonts.js';
import type { OfficeConverter } from '../../engines/contracts.js';
import type { PdfRewriter } from '../../engines/pdf/rewriter.js';
import type { Session } from '../../sessions/session.js';
import { activeVersion, type DocumentRecord } from '../../storage/document-store.js';
import { runInPlace, type Transaction, type TransactionDeps } from '../transaction/document-transaction.js';
import type { CallPassword } from '../transaction/password.js';
import { openPlainPdf, restoreProtection, type OpenedProtection } from '../transaction/protection.js';
import { conversionTimeout, type CallDeadline } from './call-deadline.js';
import { fromEngine } from '../engine-errors.js';
import { effectiveType, inputKindOf, unsupportedType, type InputKind } from './input-kind.js';
import { convertOffice, delimitedImport, NATIVE_PDFA_LEVELS, officeFilterData } from './office.js';
import { conversionSettings, type ConversionSettings, type ConverterOptions } from './options.js';
import { hasImagesAbove } from './resolution.js';
import type { ConversionStep, ConversionSteps } from './steps.js';

/** The converted document, and what the requested `report` found (human-readable lines). */
export interface ConversionOutcome {
  record: DocumentRecord;
  warnings: string[];
}

export interface ConverterRequest {
  converter: ConverterOptions;
  password?: CallPassword;
}

/** The engines the converter drives; an absent one makes its inputs fail with ENGINE_UNAVAILABLE. */
export interface ConverterEngines {
  libreoffice?: OfficeConverter;
  /** Converts kinds rendered elsewhere (HTML, text, mail, images, PostScript); see `renderers.ts`. */
  renderers: Partial<Record<InputKind, Renderer>>;
  rewriter: PdfRewriter;
  ghostscript: Ghostscript;
  /** Answers `report.fontIsMissing` / `report.fontAliasUsage`; absent: those report nothing. */
  fonts?: FontInventory;
}

/** Everything a renderer needs for one conversion. */
export interface RenderContext {
  input: string;
  output: string;
  /** A scratch directory of the job, removed afterwards. */
  workDir: string;
  type: FileType;
  settings: ConversionSettings;
  /** Identifies the document state, for the engines' hung-or-crashed-twice rule. */
  key: string;
  /** Converts a nested file (mail attachments) with the same settings, one level deeper. */
  convertNested(input: string, type: FileType, output: string): Promise<void>;
  depth: number;
  /** The call's time budget: tools that take a timeout get what is left of it (see call-deadline.ts). */
  deadline: CallDeadline;
}

export interface RenderResult {
  /** The renderer already kept only `pages`. */
  pagesApplied?: boolean;
  /** The renderer already limited image resolution. */
  resolutionApplied?: boolean;
}

interface Rendered extends RenderResult {
  file: string;
  /** PDF input that was encrypted: the original and its password, whose encryption the result gets back. */
  encryption?: OpenedProtection;
}

export interface ConverterServiceOptions {
  /** Milliseconds one call may take, every step together (`converter.timeout`, resolved by the loader). */
  timeoutMs: number;
  steps?: ConversionSteps;
}

export type Renderer = (context: RenderContext) => Promise<RenderResult | void>;

/**
 * `POST converter/{documentId}`: converts a stored document to PDF in place. The document keeps its
 * id and name; its content becomes the PDF (a new state in history mode). It runs as one document
 * transaction (operations/transaction): the work happens in its scratch directory and the document
 * changes only by the final commit, so a failure at any step leaves it as it was (and unlocked).
 */
export class ConverterService {
  constructor(
    private readonly deps: TransactionDeps,
    private readonly engines: ConverterEngines,
    private readonly options: ConverterServiceOptions,
  ) {}

  private get steps(): ConversionSteps {
    return this.options.steps ?? {};
  }

  /**
   * One deadline for the whole call (`converter.timeout`), carried as the ambient cancellation: when
   * it passes, the running tool or pool job is killed and the call fails with PROCESSING_TIMEOUT
   * (-93); the document is left as it was.
   */
  async convert(session: Session, documentId: string, request: ConverterRequest): Promise<ConversionOutcome> {
    const settings = conversionSettings(request.converter);
    const { record, outcome } = await runInPlace(
      this.deps,
      {
        session,
        documentId,
        operation: 'converter',
        password: request.password,
        deadline: { timeoutMs: this.options.timeoutMs, abortWith: conversionTimeout },
        plan: (stored, storedType) => {
          const version = activeVersion(stored);
          const type = effectiveType(storedType, request.converter.fileExtension);
          const kind = inputKindOf(type);
          if (!kind) throw unsupportedType(type);
          const pdfa = this.pdfaPlan(settings, kind);
          const signature = settings.options.signature ? this.steps.signature : undefined;
          if (settings.options.signature && !signature) {
            throw new QuireError('OPTION_UNSUPPORTED', 'converter.signature is not supported by this server yet: sign the result with the signature web service when it is available.');
          }
          return { type, kind, pdfa, signature, key: `${session.id}/${documentId}/${version.id}/${version.file}` };
        },
      },
      async (tx, input, { type, kind, pdfa, signature, key }) => {
        const { deadline } = tx;
        const workDir = tx.scratch.dir;
        const warnings = await this.fontReport(input.path, type, settings, deadline);
        deadline.check();
        const rendered = await this.render({ source: input.path, type, kind, settings, workDir, key, depth: 1, password: tx.password, pdfaNative: pdfa.native, deadline });
        deadline.check();
        let current = await this.finish(rendered, workDir, settings, kind, deadline);
        if (rendered.encryption) current = await this.reencrypt(current, rendered.encryption, workDir, deadline);
        if (pdfa.step) current = await this.runStep(pdfa.step, 'pdfa', current, tx, settings.options.pdfa);
        if (signature) current = await this.runStep(signature, 'signature', current, tx, settings.options.signature);
        // A PDF, checked to be whole before it is stored; the store detects its type as for every converter result so far.
        return { file: { path: current, pdf: true }, warnings };
      },
    );
    return { record, warnings: outcome.warnings };
  }

  /**
   * `report.fontIsMissing` and `report.fontAliasUsage`: the fonts an Office document asks for that
   * this server lacks. Each font not installed costs an `fc-match` run that no cancellation stops
   * (fontconfig answers are shared between calls), and a document may name any number of fonts: at
   * most MAX_REPORTED_FONTS are checked, a few at a time, and the deadline between them.
   */
  private async fontReport(source: string, type: FileType, settings: ConversionSettings, deadline: CallDeadline): Promise<string[]> {
    const report = settings.options.report;
    const fonts = this.engines.fonts;
    if (!fonts || !(report?.fontIsMissing || report?.fontAliasUsage)) return [];
    const requested = await requestedFonts(source, type.key);
    const checked = requested.slice(0, MAX_REPORTED_FONTS);
    const missing: string[] = [];
    const aliased: string[] = [];
    for (let start = 0; start < checked.length; start += FONTS_PER_CHECK) {
      deadline.check();
      const check = await fonts.check(checked.slice(start, start + FONTS_PER_CHECK));
      for (const f of check.missing) missing.push(`Font missing: "${f.font}" is not installed; replaced by "${f.replacement}".`);
      for (const f of check.aliased) aliased.push(`Font alias used: "${f.font}" is not installed; replaced by the compatible "${f.replacement}".`);
    }
    return [
      ...(report.fontIsMissing ? missing : []),
      ...(report.fontAliasUsage ? aliased : []),
      ...(requested.length > checked.length ? [`Fonts not checked: the document names ${requested.length} fonts; the first ${checked.length} were checked.`] : []),
    ];
  }

  /** PDF/A at conversion time: LibreOffice's own export for Office input at levels it writes, else the PDF/A step. */
  private pdfaPlan(settings: ConversionSettings, kind: InputKind): { native?: string; step?: ConversionStep } {
    const convert = settings.options.pdfa?.convert;
    if (!settings.options.pdfa) return {};
    if (!convert) throw new QuireError('PARAMETER', 'Invalid parameter converter.pdfa: give pdfa.convert with the level to produce.');
    const { level } = convert;
    if ((kind === 'office' || kind === 'delimited') && level in NATIVE_PDFA_LEVELS && !convert.zugferd && convert.successReport === 'none') {
      // LibreOffice writes the PDF/A itself; the pdfa step, when offered, validates it (and keeps it as it is unless it fails).
      return { native: level, ...(this.steps.pdfa ? { step: this.steps.pdfa } : {}) };
    }
    if (this.steps.pdfa) return { step: this.steps.pdfa };
    throw new QuireError(
      'OPTION_UNSUPPORTED',
      `converter.pdfa.convert with level "${level}" is not supported for this input: PDF/A at conversion time is available for Office documents at levels 1b, 2b and 3b (without ZUGFeRD or success reports).`,
    );
  }

  private async render(job: {
    source: string;
    type: FileType;
    kind: InputKind;
    settings: ConversionSettings;
    workDir: string;
    key: string;
    depth: number;
    password: string | undefined;
    pdfaNative?: string;
    deadline: CallDeadline;
  }): Promise<Rendered> {
    const { type, kind, settings, workDir } = job;
    // Engines see a name with the right extension (LibreOffice and the one-shot fallback use it);
    // a hard link costs nothing and leaves the stored file alone (engines only read it). Names are
    // unique per render: nested renders (mail attachments) share the scratch directory.
    const unique = `${job.depth}-${randomBytes(4).toString('hex')}`;
    const input = path.join(workDir, `input-${unique}.${type.extension || 'bin'}`);
    await link(job.source, input).catch(() => copyFile(job.source, input));
    const output = path.join(workDir, `rendered-${unique}.pdf`);
    try {
      if (kind === 'pdf') return await this.openPdf(input, workDir, unique, job.password, job.deadline);
      if (kind === 'office' || kind === 'delimited') {
        const engine = this.engines.libreoffice;
        if (!engine) throw engineUnavailable('LibreOffice', type);
        await convertOffice(
          engine,
          {
            input,
            output,
            filterData: officeFilterData(settings, job.pdfaNative),
            ...(settings.accessPassword ? { password: settings.accessPassword } : {}),
            ...(kind === 'delimited' ? delimitedImport(type.key === 'tsv' ? 'tsv' : 'csv') : {}),
          },
          job.key,
        );
        // LibreOffice down-samples while it exports.
        return { file: output, resolutionApplied: true };
      }
      const renderer = this.engines.renderers[kind];
      if (!renderer) throw engineUnavailable(kind, type);
      const result =
        (await renderer({
          input,
          output,
          workDir,
          type,
          settings,
          key: job.key,
          depth: job.depth,
          deadline: job.deadline,
          convertNested: async (nestedInput, nestedType, nestedOutput) => {
            const nestedKind = inputKindOf(nestedType);
            if (!nestedKind) throw unsupportedType(nestedType);
            job.deadline.check();
            const nested = await this.render({ ...job, source: nestedInput, type: nestedType, kind: nestedKind, depth: job.depth + 1, password: undefined });
            // Attachments are converted whole: `pages` applies to the message only.
            let finished = await this.finish({ ...nested, pagesApplied: true }, workDir, settings, nestedKind, job.deadline);
            if (nested.encryption) finished = await this.reencrypt(finished, nested.encryption, workDir, job.deadline);
            await rename(finished, nestedOutput);
          },
        })) ?? {};
      return { file: output, ...result };
    } catch (error) {
      throw fromEngine(error, { accessPassword: settings.accessPassword !== '' });
    }
  }

  /** Page selection, compression and resolution on the rendered PDF (unencrypted), each only when asked for. */
  private async finish(rendered: Rendered, workDir: string, settings: ConversionSettings, kind: InputKind, deadline: CallDeadline): Promise<string> {
    const { rewriter, ghostscript } = this.engines;
    let current = rendered.file;
    try {
      let pages: string | undefined;
      if (!settings.pages.all && !rendered.pagesApplied) {
        const count = await rewriter.pageCount(current, { deadline: deadline.at });
        try {
          pages = formatPageList(resolvePageSelection(settings.pages, count));
        } catch (error) {
          if (error instanceof PageSelectionError) throw new QuireError('PARAMETER', `Invalid parameter converter.pages: ${error.message}`);
          throw error;
        }
      }
      const recompress = settings.compression === false ? false : kind === 'pdf' ? true : undefined;
      if (pages !== undefined || recompress !== undefined || kind === 'pdf') {
        const next = path.join(workDir, `rewritten-${path.basename(current)}`);
        await rewriter.rewrite(current, next, {
          ...(pages === undefined ? {} : { pages }),
          ...(recompress === undefined ? {} : { compress: recompress }),
          deadline: deadline.at,
        });
        current = next;
      }
      // Ghostscript rewrites every glyph of the document to reach its images: only when there are images to reduce.
      if (settings.maxDpi !== undefined && !rendered.resolutionApplied && (await hasImagesAbove(current, settings.maxDpi, deadline))) {
        const next = path.join(workDir, `downsampled-${path.basename(current)}`);
        await ghostscript.downsample(current, next, { dpi: settings.maxDpi, jpegQuality: settings.jpegQuality, timeoutMs: deadline.remainingMs() });
        current = next;
      }
      return current;
    } catch (error) {
      throw fromEngine(error, { accessPassword: false });
    }
  }

  /**
   * PDF input as the finishing steps need it: decrypted (with the call's or the remembered password,
   * or an empty one; the result gets the original's encryption back, see `reencrypt`) and repaired as
   * the toolbox repairs it (see transaction/protection.ts). A tree qpdf cannot walk (a /Kids loop) is
   * refused as an unreadable PDF (-7).
   */
  private async openPdf(input: string, workDir: string, unique: string, password: string | undefined, deadline: CallDeadline): Promise<Rendered> {
    const opened = await openPlainPdf(this.engines.rewriter, input, {
      password,
      emptyPasswordOpens: true,
      scratch: (name) => path.join(workDir, `${name}-${unique}.pdf`),
      deadline: deadline.at,
    });
    return { file: opened.file, ...(opened.protection ? { encryption: opened.protection } : {}) };
  }

  /** The finished PDF with the encryption (and passwords, permissions) of the protected original. */
  private async reencrypt(input: string, encryption: OpenedProtection, workDir: string, deadline: CallDeadline): Promise<string> {
    try {
      return await restoreProtection(this.engines.rewriter, input, encryption, path.join(workDir, `encrypted-${path.basename(input)}`), deadline.at);
    } catch (error) {
      throw fromEngine(error, { accessPassword: false });
    }
  }

  /** A nested step (`converter.pdfa`, `converter.signature`): another service's step, run in this transaction. */
  private async runStep(step: ConversionStep, name: string, input: string, tx: Transaction, options: unknown): Promise<string> {
    tx.deadline.check();
    const output = path.join(tx.scratch.dir, `${name}.pdf`);
    await step.run(input, output, options, tx);
    return output;
  }
}

/** Fonts of one document `report.fontIsMissing`/`fontAliasUsage` check at most, and how many per check. */
const MAX_REPORTED_FONTS = 100;
const FONTS_PER_CHECK = 10;

function engineUnavailable(engine: string, type: FileType): QuireError {
  return new QuireError('ENGINE_UNAVAILABLE', `Converting "${type.key}" documents needs the ${engine} engine, which is disabled or not running on this server.`);
}
