import { copyFile, link, mkdir } from 'node:fs/promises';
import { QuireError } from '../../core/errors.js';
import { describeType, fileTypeById, fileTypeByKey, UNKNOWN_FILE_TYPE } from '../../core/file-types.js';
import { PdfEngineError } from '../../engines/pdf/errors.js';
import type { Session } from '../../sessions/session.js';
import { activeVersion, type DocumentRecord } from '../../storage/document-store.js';
import { runAsNew, runInPlace, type DeadlineSpec, type Transaction, type TransactionDeps } from '../transaction/document-transaction.js';
import type { CallPassword } from '../transaction/password.js';
import { applyPdfaEditProfile, pdfaEditProfile } from '../pdfa/edit-profile.js';
import type { ToolboxEngines } from './engines.js';
import type { ToolboxElement, ToolboxOptions } from './schemas.js';
import { fromToolboxEngine } from './engine-errors.js';
import { credentialsAfterSecurity } from './ops/security-credentials.js';
import { TOOLBOX_OPERATIONS, type SessionFile, type ToolboxContext, type ToolboxOperation, type ToolboxOperationName, type WorkFile } from './operation.js';

/** `Operation_ToolboxOperation` as the route hands it over. */
export interface ToolboxRequest {
  toolbox: ToolboxElement[];
  password?: CallPassword;
  /** `settings.pdfa.pdfaEditProfile` is read (operations/pdfa/edit-profile.ts). */
  settings?: unknown;
}

/**
 * Each operation takes its options as its schema (operations/toolbox/schemas.ts) types them. An entry
 * loads its operation's module when a call first uses it (registry.ts): the operations bring pdf-lib,
 * node-forge and the PDF editing engine, ~13 MB of resident memory a server that never runs them
 * should not carry.
 */
export type ToolboxRegistry = { [K in ToolboxOperationName]: () => Promise<ToolboxOperation<ToolboxOptions[K]>> };

const PDF = fileTypeByKey('pdf');

/**
 * `POST toolbox/{documentId}` and `POST toolbox/new`: the operations of the array run in order on a
 * working copy, as one document transaction (operations/transaction). Only when every step succeeded
 * does the result replace the document (or become the new one); any failure leaves the stored
 * document exactly as it was.
 *
 * A protected PDF is opened with the call's password or the remembered one and worked on decrypted;
 * unless the chain itself ran `security`, the result gets the original's encryption back.
 */
export class ToolboxService {
  constructor(
    private readonly deps: TransactionDeps,
    private readonly engines: ToolboxEngines,
    private readonly operations: ToolboxRegistry,
    private readonly timeoutMs: number,
  ) {}

  /**
   * `toolbox.timeout` is handed to every tool as its limit and checked between operations; it does
   * not abort the running operation itself (each maps its own tool's timeout).
   */
  private get deadline(): DeadlineSpec {
    return { timeoutMs: this.timeoutMs };
  }

  async run(session: Session, documentId: string, request: ToolboxRequest): Promise<DocumentRecord> {
    const steps = this.steps(request);
    const editProfile = pdfaEditProfile(request.settings);
    // Damage qpdf recovers from (a page tree root lying about its /Count among it) is repaired
    // once, before any engine sees the file (issue 11): see transaction/protection.ts.
    const { record } = await runInPlace(
      this.deps,
      {
        session,
        documentId,
        operation: 'toolbox',
        password: request.password,
        deadline: this.deadline,
        plainInput: { tool: this.engines.rewriter, mapError: fromToolboxEngine },
      },
      async (tx, input) => {
        const chained = await this.chain(input, steps, this.context(tx));
        // A document that claims PDF/A and is no longer: its claim goes, or the edit is refused (settings.pdfa.pdfaEditProfile).
        const result = chained.type.key === 'pdf' ? { ...chained, path: await applyPdfaEditProfile(editProfile, input.path, chained.path, tx, this.engines.qpdf) } : chained;
        const securityChanged = steps.some((s) => s.name === 'security');
        const credentials = securityChanged ? credentialsAfterSecurity(steps) : undefined;
        return { file: result, securityChanged, ...(credentials ? { credentials } : {}) };
      },
    );
    return record;
  }

  /** `toolbox/new`: the chain starts from an empty PDF; the result is a new document named `name`. */
  async runNew(session: Session, request: ToolboxRequest, options: { name: string; history: boolean }): Promise<DocumentRecord> {
    const steps = this.steps(request);
    const { record } = await runAsNew(this.deps, session, { ...options, operation: 'toolbox', deadline: this.deadline }, async (tx) => {
      const context = this.context(tx);
      const empty = tx.scratch.file('pdf');
      await this.guard(() => this.engines.rewriter.empty(empty));
      const result = await this.chain({ path: empty, type: PDF }, steps, context);
      await this.requirePages(result, context);
      const credentials = credentialsAfterSecurity(steps);
      return { file: result, ...(credentials ? { credentials } : {}) };
    });
    return record;
  }

  /** The array as (name, options) steps; the schema already allows one known key per element. */
  private steps(request: ToolboxRequest): { name: ToolboxOperationName; options: unknown }[] {
    if (!Array.isArray(request.toolbox) || request.toolbox.length === 0) {
      throw new QuireError('PARAMETER', 'Invalid parameter body.toolbox: give at least one operation, e.g. [{"rotate":{"pages":"1","degrees":90}}].');
    }
    const steps = request.toolbox.map((element, index) => {
      const keys = Object.keys(element).filter((key) => (TOOLBOX_OPERATIONS as readonly string[]).includes(key));
      if (keys.length !== 1) {
        throw new QuireError('PARAMETER', `Invalid parameter body.toolbox[${index}]: each element names exactly one operation (${TOOLBOX_OPERATIONS.join(', ')}).`);
      }
      const name = keys[0] as ToolboxOperationName;
      return { name, options: element[name] ?? {} };
    });
    // Encryption must come last: the operations after it would get an encrypted document.
    const encrypting = steps.findIndex((s) => s.name === 'security' && typeof s.options === 'object' && s.options !== null && ('encrypt' in s.options || 'encryptCertificate' in s.options));
    if (encrypting >= 0 && encrypting < steps.length - 1) {
      throw new QuireError(
        'PARAMETER',
        `Invalid parameter body.toolbox[${encrypting}].security: encryption must be the last operation of the array (the operations after it would get an encrypted document).`,
      );
    }
    return steps;
  }

  private async chain(start: WorkFile, steps: { name: ToolboxOperationName; options: unknown }[], context: ToolboxContext): Promise<WorkFile> {
    let current = start;
    for (const [index, step] of steps.entries()) {
      const field = `toolbox[${index}].${step.name}`;
      const operation = (await this.operations[step.name]()) as ToolboxOperation<unknown>;
      if (operation.needsPdf && current.type.key !== 'pdf') {
        throw new QuireError(
          index === 0 ? 'INVALID_PDF' : 'PARAMETER',
          index === 0
            ? `The toolbox works on PDFs and this document is ${describeType(current.type)}: convert it first (converter web service).`
            : `Invalid parameter ${field}: needs a PDF, but the step before it produced a ${current.type.key}.`,
        );
      }
      if (Date.now() > context.deadline) throw new QuireError('PROCESSING_TIMEOUT', `The toolbox call ran out of time before ${field}.`);
      current = await this.guard(() => operation.run(current, step.options, context, field));
    }
    return current;
  }

  private context(tx: Transaction): ToolboxContext {
    const { session, scratch } = tx;
    const limits = this.deps.documents.limitsOf(session);
    return {
      session,
      workDir: scratch.dir,
      scratch: (extension) => scratch.file(extension),
      inFastDirectory: async (estimatedBytes, work) => {
        const memory = await this.engines.memoryScratch?.reserve(estimatedBytes);
        if (memory) {
          scratch.onCleanup(() => memory.release());
          try {
            return await work(memory.path);
          } catch {
            // Redone on disk below: a genuine failure fails there again, with its own error.
            await memory.release();
          }
        }
        const dir = scratch.file('dir');
        await mkdir(dir);
        return work(dir);
      },
      password: tx.password,
      engines: this.engines,
      deadline: tx.deadline.at,
      call: { deadline: tx.deadline.at },
      maxResultBytes: limits.uploadLimit,
      sessionDocument: (documentId) => this.sessionDocument(session, documentId, (extension) => scratch.file(extension)),
    };
  }

  private async sessionDocument(session: Session, documentId: string, scratch: (extension: string) => string): Promise<SessionFile> {
    const { record, file } = await this.deps.documents.content(session, documentId);
    const version = activeVersion(record);
    const type = fileTypeById(version.fileTypeId) ?? UNKNOWN_FILE_TYPE;
    // A hard link keeps this state even if the document is replaced while the chain runs.
    const copy = scratch(type.extension || 'bin');
    await link(file.path, copy).catch(() => copyFile(file.path, copy));
    const password = this.deps.credentials.get(session.id, documentId, record.activeVersion)?.password;
    return { path: copy, type, fileName: record.fileName, ...(password ? { password } : {}) };
  }

  /** A PDF result must have pages (toolbox/new starts from none). */
  private async requirePages(result: WorkFile, context: ToolboxContext): Promise<void> {
    if (result.type.key !== 'pdf') return;
    let pages: number;
    try {
      pages = await this.engines.rewriter.pageCount(result.path, context.call);
    } catch (error) {
      // Encrypted by the chain's own security step: it was checked before that step.
      if (error instanceof PdfEngineError && ['passwordRequired', 'passwordWrong', 'unsupportedEncryption', 'certificateRequired'].includes(error.kind)) return;
      throw fromToolboxEngine(error);
    }
    if (pages === 0) {
      throw new QuireError('PARAMETER', 'Invalid parameter body.toolbox: the result would be a PDF without pages (toolbox/new starts from an empty document: merge or add a portfolio first).');
    }
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw fromToolboxEngine(error);
    }
  }
}
