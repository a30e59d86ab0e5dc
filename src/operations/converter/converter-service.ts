import { randomBytes } from 'node:crypto';
import { copyFile, link, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { QuireError } from '../../core/errors.js';
import { fileTypeById, UNKNOWN_FILE_TYPE, type FileType } from '../../core/file-types.js';
import { formatPageList, PageSelectionError, resolvePageSelection } from '../../core/page-selection.js';
import type { Ghostscript } from '../../engines/ghostscript/ghostscript.js';
import type { FontInventory } from '../../engines/fonts/font-inventory.js';
import { requestedFonts } from '../../engines/format/document-fonts.js';
import type { LibreOfficeEngine } from '../../engines/libreoffice/libreoffice-engine.js';
import type { PdfRewriter } from '../../engines/pdf/rewriter.js';
import type { Session } from '../../sessions/session.js';
import { activeVersion, type DocumentRecord } from '../../storage/document-store.js';
import type { RememberedCredentials } from '../documents/credentials.js';
import type { DocumentService } from '../documents/document-service.js';
import { fromConversionEngine } from './engine-errors.js';
import { effectiveType, inputKindOf, unsupportedType, type InputKind } from './input-kind.js';
import { convertOffice, delimitedImport, NATIVE_PDFA_LEVELS, officeFilterData } from './office.js';
import { conversionSettings, type ConversionSettings, type ConverterOptions } from './options.js';
import type { ConversionStep, ConversionSteps } from './steps.js';

/** The converted document, and what the requested `report` found (human-readable lines). */
export interface ConversionOutcome {
  record: DocumentRecord;
  warnings: string[];
}

export interface ConverterRequest {
  converter: ConverterOptions;
  password?: { open?: string; permission?: string };
}

/** The engines the converter drives; an absent one makes its inputs fail with ENGINE_UNAVAILABLE. */
export interface ConverterEngines {
  libreoffice?: LibreOfficeEngine;
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
}

export interface RenderResult {
  /** The renderer already kept only `pages`. */
  pagesApplied?: boolean;
  /** The renderer already limited image resolution. */
  resolutionApplied?: boolean;
}

interface Rendered extends RenderResult {
  file: string;
}

export type Renderer = (context: RenderContext) => Promise<RenderResult | void>;

/**
 * `POST converter/{documentId}`: converts a stored document to PDF in place. The document keeps its
 * id and name; its content becomes the PDF (a new state in history mode). The work happens in a
 * scratch directory under the store's tmp; the document changes only by the final rename, so a
 * failure at any step leaves it as it was (and unlocked).
 */
export class ConverterService {
  constructor(
    private readonly documents: DocumentService,
    private readonly credentials: RememberedCredentials,
    private readonly engines: ConverterEngines,
    private readonly steps: ConversionSteps = {},
  ) {}

  async convert(session: Session, documentId: string, request: ConverterRequest): Promise<ConversionOutcome> {
    const settings = conversionSettings(request.converter);
    await this.documents.ensureFreeSpace(); // the result is stored: refuse before the work when the disk is short
    const record = await this.documents.info(session, documentId);
    const version = activeVersion(record);
    const type = effectiveType(fileTypeById(version.fileTypeId) ?? UNKNOWN_FILE_TYPE, request.converter.fileExtension);
    const kind = inputKindOf(type);
    if (!kind) throw unsupportedType(type);
    const pdfa = this.pdfaPlan(settings, kind);
    const signature = settings.options.signature ? this.steps.signature : undefined;
    if (settings.options.signature && !signature) {
      throw new QuireError('OPTION_UNSUPPORTED', 'converter.signature is not supported by this server yet: sign the result with the signature web service when it is available.');
    }
    const password = request.password?.open || request.password?.permission || this.credentials.get(session.id, documentId)?.password;

    return this.documents.locks.with(session.id, documentId, async () => {
      const { file } = await this.documents.content(session, documentId);
      const workDir = this.documents.tempPath();
      await mkdir(workDir);
      try {
        const key = `${session.id}/${documentId}/${version.id}/${version.file}`;
        const warnings = await this.fontReport(file.path, type, settings);
        const rendered = await this.render({ source: file.path, type, kind, settings, workDir, key, depth: 1, password, pdfaNative: pdfa.native });
        let current = await this.finish(rendered, workDir, settings, password, kind);
        if (pdfa.step) current = await this.runStep(pdfa.step, 'pdfa', current, workDir, settings.options.pdfa);
        if (signature) current = await this.runStep(signature, 'signature', current, workDir, settings.options.signature);
        // The result moves out of the scratch directory before it is removed.
        const result = this.documents.tempPath();
        await rename(current, result);
        return { record: await this.documents.commitResult(session, documentId, result, 'converter'), warnings };
      } finally {
        await rm(workDir, { recursive: true, force: true });
      }
    });
  }

  /** `report.fontIsMissing` and `report.fontAliasUsage`: the fonts an Office document asks for that this server lacks. */
  private async fontReport(source: string, type: FileType, settings: ConversionSettings): Promise<string[]> {
    const report = settings.options.report;
    if (!this.engines.fonts || !(report?.fontIsMissing || report?.fontAliasUsage)) return [];
    const check = await this.engines.fonts.check(await requestedFonts(source, type.key));
    return [
      ...(report.fontIsMissing ? check.missing.map((f) => `Font missing: "${f.font}" is not installed; replaced by "${f.replacement}".`) : []),
      ...(report.fontAliasUsage ? check.aliased.map((f) => `Font alias used: "${f.font}" is not installed; replaced by the compatible "${f.replacement}".`) : []),
    ];
  }

  /** PDF/A at conversion time: LibreOffice's own export for Office input at levels it writes, else the PDF/A step. */
  private pdfaPlan(settings: ConversionSettings, kind: InputKind): { native?: string; step?: ConversionStep } {
    const convert = settings.options.pdfa?.convert;
    if (!settings.options.pdfa) return {};
    if (!convert) throw new QuireError('PARAMETER', 'Invalid parameter converter.pdfa: give pdfa.convert with the level to produce.');
    const level = convert.level ?? '3b';
    if ((kind === 'office' || kind === 'delimited') && level in NATIVE_PDFA_LEVELS && !convert.zugferd && (convert.successReport ?? 'none') === 'none') {
      return { native: level };
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
      if (kind === 'pdf') {
        // PDF input is normalised by the finishing rewrite (pages, compression, repair).
        await rename(input, output);
        return { file: output };
      }
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
      const result = (await renderer({
        input,
        output,
        workDir,
        type,
        settings,
        key: job.key,
        depth: job.depth,
        convertNested: async (nestedInput, nestedType, nestedOutput) => {
          const nestedKind = inputKindOf(nestedType);
          if (!nestedKind) throw unsupportedType(nestedType);
          const nested = await this.render({ ...job, source: nestedInput, type: nestedType, kind: nestedKind, depth: job.depth + 1, password: undefined });
          // Attachments are converted whole: `pages` applies to the message only.
          await rename(await this.finish({ ...nested, pagesApplied: true }, workDir, settings, undefined, nestedKind), nestedOutput);
        },
      })) ?? {};
      return { file: output, ...result };
    } catch (error) {
      throw fromConversionEngine(error, { accessPassword: settings.accessPassword !== '' });
    }
  }

  /** Page selection, compression and resolution on the rendered PDF, each only when asked for. */
  private async finish(rendered: Rendered, workDir: string, settings: ConversionSettings, password: string | undefined, kind: InputKind): Promise<string> {
    const { rewriter, ghostscript } = this.engines;
    let current = rendered.file;
    try {
      let pages: string | undefined;
      if (!settings.pages.all && !rendered.pagesApplied) {
        const count = await rewriter.pageCount(current, { password: kind === 'pdf' ? password : undefined });
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
          ...(kind === 'pdf' && password ? { password } : {}),
        });
        current = next;
      }
      if (settings.maxDpi !== undefined && !rendered.resolutionApplied) {
        const next = path.join(workDir, `downsampled-${path.basename(current)}`);
        await ghostscript.downsample(current, next, { dpi: settings.maxDpi, jpegQuality: settings.jpegQuality, timeoutMs: 120_000 });
        current = next;
      }
      return current;
    } catch (error) {
      throw fromConversionEngine(error, { accessPassword: false });
    }
  }

  private async runStep(step: ConversionStep, name: string, input: string, workDir: string, options: unknown): Promise<string> {
    const output = path.join(workDir, `${name}.pdf`);
    await step.run(input, output, options);
    return output;
  }
}

function engineUnavailable(engine: string, type: FileType): QuireError {
  return new QuireError('ENGINE_UNAVAILABLE', `Converting "${type.key}" documents needs the ${engine} engine, which is disabled or not running on this server.`);
}
