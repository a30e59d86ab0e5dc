import { randomBytes } from 'node:crypto';
import { copyFile, link, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { QuireError } from '../../core/errors.js';
import { fileTypeById, fileTypeByKey, UNKNOWN_FILE_TYPE } from '../../core/file-types.js';
import { PdfEngineError } from '../../engines/pdf/errors.js';
import type { Session } from '../../sessions/session.js';
import { activeVersion, type DocumentRecord } from '../../storage/document-store.js';
import type { RememberedCredentials } from '../documents/credentials.js';
import type { DocumentService } from '../documents/document-service.js';
import type { ToolboxEngines } from './engines.js';
import { fromToolboxEngine } from './engine-errors.js';
import { TOOLBOX_OPERATIONS, type SessionFile, type ToolboxContext, type ToolboxOperation, type ToolboxOperationName, type WorkFile } from './operation.js';

/** `Operation_ToolboxOperation` as the route hands it over. */
export interface ToolboxRequest {
  toolbox: Partial<Record<ToolboxOperationName, unknown>>[];
  password?: { open?: string; permission?: string };
}

export type ToolboxRegistry = Record<ToolboxOperationName, ToolboxOperation<never>>;

const PDF = fileTypeByKey('pdf');

/**
 * `POST toolbox/{documentId}` and `POST toolbox/new`: the operations of the array run in order on a
 * working copy, as one transaction. Only when every step succeeded does the result replace the
 * document (or become the new one); any failure leaves the stored document exactly as it was.
 *
 * A protected PDF is opened with the call's password or the remembered one and worked on decrypted;
 * unless the chain itself ran `security`, the result gets the original's encryption back.
 */
export class ToolboxService {
  constructor(
    private readonly documents: DocumentService,
    private readonly credentials: RememberedCredentials,
    private readonly engines: ToolboxEngines,
    private readonly operations: ToolboxRegistry,
    private readonly timeoutMs: number,
  ) {}

  async run(session: Session, documentId: string, request: ToolboxRequest): Promise<DocumentRecord> {
    const steps = this.steps(request);
    await this.documents.ensureFreeSpace(); // the result is stored: refuse before the work when the disk is short
    const record = await this.documents.info(session, documentId);
    const version = activeVersion(record);
    const type = fileTypeById(version.fileTypeId) ?? UNKNOWN_FILE_TYPE;
    const password = request.password?.open || request.password?.permission || this.credentials.get(session.id, documentId)?.password;
    return this.documents.locks.with(session.id, documentId, () =>
      this.inScratch(async (workDir, scratch, onCleanup) => {
        const { file } = await this.documents.content(session, documentId);
        const original = scratch(type.extension || 'bin');
        await link(file.path, original).catch(() => copyFile(file.path, original));
        const context = this.context(session, workDir, scratch, onCleanup, password);
        let start: WorkFile = { path: original, type };
        let encrypted = false;
        if (type.key === 'pdf') {
          encrypted = await this.guard(() => this.engines.rewriter.isEncrypted(original, { deadline: context.deadline }));
          if (encrypted) start = { path: await this.decrypted(original, password, context), type };
          // Damage qpdf recovers from (a page tree root lying about its /Count among it) is repaired
          // once, before any engine sees the file (issue 11): see PdfRewriter.repaired.
          const checked = start.path;
          start = { path: await this.guard(() => this.engines.rewriter.repaired(checked, scratch('pdf'), { deadline: context.deadline })), type };
        }
        let result = await this.chain(start, steps, context);
        if (encrypted && result.type.key === 'pdf' && !steps.some((s) => s.name === 'security')) {
          const reencrypted = scratch('pdf');
          await this.guard(() => this.engines.rewriter.copyEncryption(result.path, original, reencrypted, { password, deadline: context.deadline }));
          result = { path: reencrypted, type: PDF };
        }
        const temp = this.documents.tempPath();
        await rename(result.path, temp);
        const committed = await this.documents.commitResult(session, documentId, temp, 'toolbox', result.type);
        // Passwords remembered for the old protection no longer fit a document the chain re-secured.
        if (steps.some((s) => s.name === 'security')) this.credentials.forget(session.id, documentId);
        return committed;
      }),
    );
  }

  /** `toolbox/new`: the chain starts from an empty PDF; the result is a new document named `name`. */
  async runNew(session: Session, request: ToolboxRequest, options: { name: string; history: boolean }): Promise<DocumentRecord> {
    const steps = this.steps(request);
    await this.documents.ensureFreeSpace();
    return this.inScratch(async (workDir, scratch, onCleanup) => {
      const context = this.context(session, workDir, scratch, onCleanup, undefined);
      const empty = scratch('pdf');
      await this.guard(() => this.engines.rewriter.empty(empty));
      const result = await this.chain({ path: empty, type: PDF }, steps, context);
      await this.requirePages(result, context);
      const temp = this.documents.tempPath();
      await rename(result.path, temp);
      const { size } = await stat(temp);
      return this.documents.adopt(session, temp, size, { clientFileName: options.name, history: options.history });
    });
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
      throw new QuireError('PARAMETER', `Invalid parameter body.toolbox[${encrypting}].security: encryption must be the last operation of the array (the operations after it would get an encrypted document).`);
    }
    return steps;
  }

  private async chain(start: WorkFile, steps: { name: ToolboxOperationName; options: unknown }[], context: ToolboxContext): Promise<WorkFile> {
    let current = start;
    for (const [index, step] of steps.entries()) {
      const field = `toolbox[${index}].${step.name}`;
      const operation = this.operations[step.name] as ToolboxOperation<unknown>;
      if (operation.needsPdf && current.type.key !== 'pdf') {
        throw new QuireError(
          index === 0 ? 'INVALID_PDF' : 'PARAMETER',
          index === 0
            ? `The toolbox works on PDFs and this document is ${current.type.key === 'unknown' ? 'of unknown type' : `a ${current.type.key}`}: convert it first (converter web service).`
            : `Invalid parameter ${field}: needs a PDF, but the step before it produced a ${current.type.key}.`,
        );
      }
      if (Date.now() > context.deadline) throw new QuireError('PROCESSING_TIMEOUT', `The toolbox call ran out of time before ${field}.`);
      current = await this.guard(() => operation.run(current, step.options, context, field));
    }
    return current;
  }

  private context(
    session: Session,
    workDir: string,
    scratch: (extension: string) => string,
    onCleanup: (release: () => Promise<void>) => void,
    password: string | undefined,
  ): ToolboxContext {
    const limits = this.documents.limitsOf(session);
    return {
      session,
      workDir,
      scratch,
      inFastDirectory: async (estimatedBytes, work) => {
        const memory = await this.engines.memoryScratch?.reserve(estimatedBytes);
        if (memory) {
          onCleanup(() => memory.release());
          try {
            return await work(memory.path);
          } catch {
            // Redone on disk below: a genuine failure fails there again, with its own error.
            await memory.release();
          }
        }
        const dir = scratch('dir');
        await mkdir(dir);
        return work(dir);
      },
      password,
      engines: this.engines,
      deadline: Date.now() + this.timeoutMs,
      maxResultBytes: limits.uploadLimit,
      sessionDocument: (documentId) => this.sessionDocument(session, documentId, scratch),
    };
  }

  private async sessionDocument(session: Session, documentId: string, scratch: (extension: string) => string): Promise<SessionFile> {
    const { record, file } = await this.documents.content(session, documentId);
    const version = activeVersion(record);
    const type = fileTypeById(version.fileTypeId) ?? UNKNOWN_FILE_TYPE;
    // A hard link keeps this state even if the document is replaced while the chain runs.
    const copy = scratch(type.extension || 'bin');
    await link(file.path, copy).catch(() => copyFile(file.path, copy));
    const password = this.credentials.get(session.id, documentId)?.password;
    return { path: copy, type, fileName: record.fileName, ...(password ? { password } : {}) };
  }

  private async decrypted(original: string, password: string | undefined, context: ToolboxContext): Promise<string> {
    if (!password) {
      throw new QuireError(
        'PDF_PASSWORD_REQUIRED',
        'The PDF is password protected; supply its password (the call\'s password member or PUT documents/{id}/security/password).',
      );
    }
    const output = context.scratch('pdf');
    await this.guard(() => this.engines.rewriter.decrypt(original, output, { password, deadline: context.deadline }));
    return output;
  }

  /** A PDF result must have pages (toolbox/new starts from none). */
  private async requirePages(result: WorkFile, context: ToolboxContext): Promise<void> {
    if (result.type.key !== 'pdf') return;
    let pages: number;
    try {
      pages = await this.engines.rewriter.pageCount(result.path, { deadline: context.deadline });
    } catch (error) {
      // Encrypted by the chain's own security step: it was checked before that step.
      if (error instanceof PdfEngineError && ['passwordRequired', 'passwordWrong', 'unsupportedEncryption', 'certificateRequired'].includes(error.kind)) return;
      throw fromToolboxEngine(error);
    }
    if (pages === 0) {
      throw new QuireError('PARAMETER', 'Invalid parameter body.toolbox: the result would be a PDF without pages (toolbox/new starts from an empty document: merge or add a portfolio first).');
    }
  }

  /**
   * Runs a call in a fresh scratch directory, removed afterwards together with whatever the call
   * registered through `onCleanup` (memory scratch directories).
   */
  private async inScratch<T>(
    task: (workDir: string, scratch: (extension: string) => string, onCleanup: (release: () => Promise<void>) => void) => Promise<T>,
  ): Promise<T> {
    const workDir = this.documents.tempPath();
    await mkdir(workDir);
    let counter = 0;
    const prefix = randomBytes(3).toString('hex');
    const scratch = (extension: string) => path.join(workDir, `${prefix}-${counter++}.${extension.replace(/[^a-z0-9]/gi, '') || 'bin'}`);
    const releases: (() => Promise<void>)[] = [];
    try {
      return await task(workDir, scratch, (release) => releases.push(release));
    } finally {
      await Promise.all([rm(workDir, { recursive: true, force: true }), ...releases.map((release) => release())]);
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
