import { createWriteStream } from 'node:fs';
import { copyFile, link, writeFile } from 'node:fs/promises';
import { QuireError } from '../../core/errors.js';
import { fileTypeById, fileTypeByKey, UNKNOWN_FILE_TYPE } from '../../core/file-types.js';
import { writeZip } from '../../engines/archive/index.js';
import type { PdfaLevel } from '../../engines/pdfa-validator/profile/model.js';
import type { Session } from '../../sessions/session.js';
import { activeVersion, type DocumentRecord } from '../../storage/document-store.js';
import { fromEngine } from '../engine-errors.js';
import type { DocumentStep, Transaction, TransactionDeps } from '../transaction/document-transaction.js';
import { runAsNew, runInPlace } from '../transaction/document-transaction.js';
import type { PdfRewriter } from '../../engines/pdf/rewriter.js';
import type { ProtectionTool } from '../transaction/protection.js';
import { fromToolboxEngine } from '../toolbox/engine-errors.js';
import { convertToPdfa, PdfaNotCompliant, refuseUnsupported, type ConversionResult, type PdfaEngines } from './conversion.js';
import type { PdfaConvertOptions, PdfaOptions, PdfaRequest, ReportFormat } from './pdfa.schema.js';
import { failedRulesText, reportFileName, verdictText, writeReport, type ReportContext } from './report.js';
import { validateFile } from './validation.js';
import { zugferdExtras } from './zugferd.js';

const PDF = fileTypeByKey('pdf');

export interface PdfaServiceEngines extends PdfaEngines {
  /** qpdf: decrypts the input (transaction/protection.ts) and, with errorCorrection, repairs it. */
  rewriter: ProtectionTool & Pick<PdfRewriter, 'rewrite'>;
}

/** What a call answers: the document the 303 points to, and the verdict for a Warning header. */
export interface PdfaOutcome {
  record: DocumentRecord;
  warnings: string[];
}

/**
 * The pdfa web service (reference §10.2; docs/pdfa.md): `convert` changes the stored document into
 * PDF/A, as one document transaction, and only when our validator does not find it failing its level;
 * `analyze` validates the stored document and makes the report a new document (the document itself
 * is not touched).
 */
export class PdfaService {
  constructor(
    private readonly deps: TransactionDeps,
    private readonly engines: PdfaServiceEngines,
    private readonly timeoutMs: number,
  ) {}

  async run(session: Session, documentId: string, request: PdfaRequest, format: ReportFormat): Promise<PdfaOutcome> {
    const { convert, analyze } = request.pdfa;
    if (convert && analyze) throw new QuireError('PARAMETER', 'Invalid parameter pdfa: give either pdfa.convert or pdfa.analyze, not both.');
    if (analyze) return this.analyze(session, documentId, (analyze.level ?? '3b') as PdfaLevel, format);
    if (convert) return this.convert(session, documentId, request, convert, format);
    throw new QuireError('PARAMETER', 'Invalid parameter pdfa: give pdfa.convert (with the level to produce) or pdfa.analyze (with the level to check).');
  }

  /** Validates the stored document; the report becomes a new document of the session. */
  private async analyze(session: Session, documentId: string, level: PdfaLevel, format: ReportFormat): Promise<PdfaOutcome> {
    const { documents } = this.deps;
    const stored = await documents.info(session, documentId);
    const storedType = fileTypeById(activeVersion(stored).fileTypeId) ?? UNKNOWN_FILE_TYPE;
    if (storedType.key !== 'pdf') throw notPdf(storedType.key);
    let verdict = '';
    const { record } = await documents.locks.with(session.id, documentId, () =>
      runAsNew(this.deps, session, { operation: 'pdfa', name: reportFileName(`${stored.fileName}-pdfa-${level}-report`, format), history: false, deadline: this.deadline }, async (tx) => {
        const { record: current, file } = await documents.content(session, documentId);
        const copy = tx.scratch.file('pdf');
        await link(file.path, copy).catch(() => copyFile(file.path, copy));
        const report = await validateFile(copy, level, tx.deadline);
        verdict = verdictText(report);
        const written = writeReport(report, { document: current.fileName, operation: 'analyze' }, format);
        const out = tx.scratch.file(written.extension);
        await writeFile(out, written.bytes);
        return { file: { path: out, type: fileTypeByKey(written.extension) } };
      }),
    );
    return { record, warnings: [verdict] };
  }

  private async convert(session: Session, documentId: string, request: PdfaRequest, options: PdfaConvertOptions, format: ReportFormat): Promise<PdfaOutcome> {
    refuseUnsupported(options, 'pdfa.convert');
    const extras = zugferdExtras(options.zugferd, options.level ?? '3b', 'pdfa.convert.zugferd');
    let failure: PdfaNotCompliant | undefined;
    let fileName = '';
    try {
      const { record, outcome } = await runInPlace(
        this.deps,
        {
          session,
          documentId,
          operation: 'pdfa',
          password: request.password,
          deadline: this.deadline,
          plan: (stored, storedType) => {
            if (storedType.key !== 'pdf') throw notPdf(storedType.key);
            fileName = stored.fileName;
          },
          // PDF/A forbids encryption: the input is decrypted, and the result is stored unencrypted (securityChanged below).
          plainInput: { tool: this.decryptOnly, mapError: pdfaPasswordError },
        },
        async (tx, input) => {
          const output = tx.scratch.file('pdf');
          const result = await this.withErrorCorrection(options, tx, input.path, (source) =>
            this.mapped(() => convertToPdfa(this.engines, { input: source, output, options, scratch: tx.scratch, deadline: tx.deadline, ...(extras ? { extras } : {}) })),
          );
          const warnings = [conversionWarning(result)];
          if (options.successReport === 'linked') {
            const linked = await this.linkReport(tx, output, result, fileName);
            return { file: { path: linked.file, type: PDF }, securityChanged: true, warnings: [conversionWarning(linked.result)] };
          }
          if (options.successReport === 'zip') {
            const zip = await this.zipWithReport(tx, output, result, fileName);
            return { file: { path: zip, type: fileTypeByKey('zip') }, securityChanged: true, warnings };
          }
          return { file: { path: output, type: PDF }, securityChanged: true, warnings };
        },
      );
      return { record, warnings: outcome.warnings };
    } catch (error) {
      if (!(error instanceof PdfaNotCompliant)) throw error;
      failure = error;
    }
    if (options.errorReport === 'file') return this.reportAsDocument(session, fileName, failure, format);
    if (options.errorReport === 'message') {
      const text = writeReport(failure.report, { document: fileName, operation: 'convert', notes: failure.notes }, 'xml').bytes.toString('utf8');
      throw new PdfaNotCompliant(failure.report, `${failure.message}\n${text}`, failure.notes);
    }
    throw failure;
  }

  /**
   * The transaction's opening without its repair pass: Ghostscript reads damaged files itself (and
   * the qpdf pass would cost a process and a read of the whole file on every call). Repairing is what
   * `errorCorrection` asks for: see withErrorCorrection.
   */
  private get decryptOnly(): ProtectionTool {
    const rewriter = this.engines.rewriter;
    return {
      isEncrypted: (input, options) => rewriter.isEncrypted(input, options),
      decrypt: (input, output, options) => rewriter.decrypt(input, output, options),
      copyEncryption: (...args) => rewriter.copyEncryption(...args),
      repaired: async (input) => input,
    };
  }

  /**
   * `errorCorrection.enabled`: a conversion that fails on the input (unreadable -7, Ghostscript -102, a
   * result that fails its level -170) is retried once on qpdf's repaired rewrite of the input.
   */
  private async withErrorCorrection(options: PdfaConvertOptions, tx: Transaction, input: string, attempt: (source: string) => Promise<ConversionResult>): Promise<ConversionResult> {
    try {
      return await attempt(input);
    } catch (error) {
      const retry = options.errorCorrection?.enabled === true && error instanceof QuireError && [-7, -102, -170].includes(error.errorCode);
      if (!retry) throw error;
      tx.deadline.check();
      const repaired = tx.scratch.file('pdf');
      try {
        await this.engines.rewriter.rewrite(input, repaired, { deadline: tx.deadline.at });
      } catch {
        throw error; // qpdf cannot repair it either: the first failure is the answer
      }
      const result = await attempt(repaired);
      result.notes.unshift('errorCorrection: the input was repaired by qpdf and converted again');
      return result;
    }
  }

  /** `errorReport: file`: the report of the failed result becomes a new document; the document stays as it was. */
  private async reportAsDocument(session: Session, fileName: string, failure: PdfaNotCompliant, format: ReportFormat): Promise<PdfaOutcome> {
    const { record } = await runAsNew(
      this.deps,
      session,
      { operation: 'pdfa', name: reportFileName(`${fileName}-pdfa-${failure.report.level}-errors`, format), history: false, deadline: this.deadline },
      async (tx) => {
        const written = writeReport(failure.report, { document: fileName, operation: 'convert', notes: failure.notes }, format);
        const out = tx.scratch.file(written.extension);
        await writeFile(out, written.bytes);
        return { file: { path: out, type: fileTypeByKey(written.extension) } };
      },
    );
    return { record, warnings: [failure.message.split('\n')[0]!] };
  }

  /**
   * `successReport: linked` (PDF/A-3 only): the XML report of the conversion becomes an associated file
   * of the PDF/A (AFRelationship Supplement); the file with the report attached is validated again,
   * and that verdict is the call's.
   */
  private async linkReport(tx: Transaction, pdf: string, result: ConversionResult, fileName: string): Promise<{ file: string; result: ConversionResult }> {
    const { attachAssociatedFile } = await import('../../engines/pdf-edit/pdfa/fixups.js');
    const bytes = writeReport(result.report, { document: fileName, operation: 'convert', notes: result.notes }, 'xml').bytes;
    const linked = tx.scratch.file('pdf');
    const checked = await this.mapped(async () => {
      await attachAssociatedFile(pdf, linked, { name: 'pdfa-report.xml', bytes, mimeType: 'application/xml', description: `PDF/A-${result.report.level} validation report`, modified: new Date() });
      return { report: await validateFile(linked, result.report.level, tx.deadline), notes: [...result.notes, 'the XML report attached as an associated file'] };
    });
    return { file: linked, result: checked };
  }

  /** `successReport: zip`: the PDF/A and its XML report, zipped. */
  private async zipWithReport(tx: Transaction, pdf: string, result: ConversionResult, fileName: string): Promise<string> {
    const context: ReportContext = { document: fileName, operation: 'convert', notes: result.notes };
    const report = tx.scratch.file('xml');
    await writeFile(report, writeReport(result.report, context, 'xml').bytes);
    const zip = tx.scratch.file('zip');
    const base = safeBase(fileName);
    await writeZip(
      [
        { name: `${base}.pdf`, file: pdf },
        { name: `${base}-pdfa-report.xml`, file: report },
      ],
      createWriteStream(zip),
      { signal: tx.deadline.signal },
    );
    return zip;
  }

  /** The nested step (`converter.pdfa`): the same conversion inside the converter's transaction. */
  nestedStep(): DocumentStep {
    return {
      run: async (input, output, options, tx) => {
        const convert = (options as PdfaOptions | undefined)?.convert;
        if (!convert) throw new QuireError('PARAMETER', 'Invalid parameter converter.pdfa: give pdfa.convert with the level to produce.');
        // autoTagging: the converter asks LibreOffice for its tagged export; what arrives untagged (other inputs) is auto-tagged here.
        refuseUnsupported(convert, 'converter.pdfa.convert', false);
        const extras = zugferdExtras(convert.zugferd, convert.level ?? '3b', 'converter.pdfa.convert.zugferd');
        if (convert.successReport === 'zip')
          throw new QuireError('OPTION_UNSUPPORTED', 'converter.pdfa.convert.successReport "zip" is not supported: convert first, then call pdfa/{documentId} with it.');
        try {
          await this.mapped(() => convertToPdfa(this.engines, { input, output, options: convert, scratch: tx.scratch, deadline: tx.deadline, ...(extras ? { extras } : {}) }));
        } catch (error) {
          if (error instanceof PdfaNotCompliant && convert.errorReport !== 'none') {
            const text = writeReport(error.report, { document: 'converter result', operation: 'convert', notes: error.notes }, 'xml').bytes.toString('utf8');
            throw new PdfaNotCompliant(error.report, `${error.message}\n${text}`, error.notes);
          }
          throw error;
        }
      },
    };
  }

  /** Non-compliant results become PdfaNotCompliant with the failed rules named; engine errors map as everywhere. */
  private async mapped(work: () => Promise<ConversionResult>): Promise<ConversionResult> {
    let result: ConversionResult;
    try {
      result = await work();
    } catch (error) {
      throw fromPdfaEngine(error);
    }
    if (result.report.verdict === 'non-compliant') {
      const { report } = result;
      throw new PdfaNotCompliant(
        report,
        `The PDF/A-${report.level} conversion failed: the result does not conform (${report.counts.failed} rules failed): ${failedRulesText(report)}. The document is unchanged.`,
        result.notes,
      );
    }
    return result;
  }

  private get deadline() {
    return { timeoutMs: this.timeoutMs };
  }
}

function conversionWarning(result: ConversionResult): string {
  return result.report.verdict === 'compliant' ? verdictText(result.report) : `${verdictText(result.report)} The result is stored, but not confirmed compliant.`;
}

function notPdf(type: string): QuireError {
  return new QuireError('CONVERSION_UNSUPPORTED', `pdfa works on PDF documents; this one is "${type}": convert it with the converter first (converter.pdfa converts to PDF/A in the same call).`);
}

/** The webPDF clients expect -21 for a protected PDF without a password on pdfa calls. */
function pdfaPasswordError(error: unknown): unknown {
  const mapped = fromEngine(error);
  if (mapped instanceof QuireError && mapped.definition.errorCode === -5009) {
    return new QuireError('PDFA_PASSWORD_REQUIRED', "The PDF is password protected: send its password in the call's password member (PDF/A forbids encryption; the result is stored unencrypted).", {
      cause: error,
    });
  }
  return mapped;
}

/** Engine failures as the toolbox maps them (pdf-lib's read failures are unreadable input, -7). */
function fromPdfaEngine(error: unknown): unknown {
  return error instanceof QuireError ? error : fromToolboxEngine(error);
}

/** A member name from the display name (ids and names never become paths; this is inside the zip only). */
function safeBase(fileName: string): string {
  const base = fileName
    .replace(/[^\p{L}\p{N} ._-]/gu, '_')
    .replace(/^[.\s]+/, '')
    .slice(0, 100);
  return base === '' ? 'document' : base;
}
