import { copyFile, link, rename, stat } from 'node:fs/promises';
import { ambientCancellation, withCancellation } from '../../core/cancellation.js';
import type { QuireError } from '../../core/errors.js';
import type { WebserviceName } from '../../core/webservices.js';
import { fileTypeById, UNKNOWN_FILE_TYPE, type FileType } from '../../core/file-types.js';
import type { Session } from '../../sessions/session.js';
import { activeVersion, type DocumentRecord } from '../../storage/document-store.js';
import type { DocumentCredentials, RememberedCredentials } from '../documents/credentials.js';
import type { DocumentService } from '../documents/document-service.js';
import { CallDeadline } from './deadline.js';
import { resolvePassword, type CallPassword } from './password.js';
import { openPlainPdf, restoreProtection, type OpenedProtection, type ProtectionTool } from './protection.js';
import { Scratch } from './scratch.js';
import { requireCompletePdf } from './verify.js';
import { activeCommitGuard } from '../jobs/commit-guard.js';

/**
 * The document transaction every web service that changes or creates a document runs on (converter,
 * toolbox; pdfa, signature, ocr, barcode next):
 *
 *   lock → password (the call's, else the remembered one) → scratch directory → the stored content
 *   linked into it → [decrypt a protected PDF when the service needs plain input] → the service's
 *   steps → [re-encrypt like the original unless the steps changed the security] → atomic commit
 *   (in place, a new state in history mode; or as a new document) → cleanup, on every path.
 *
 * The stored document changes only by the final commit (a rename into the store): whatever a step
 * does — hang until the deadline, crash, write garbage — the document stays exactly as it was and the
 * scratch directory goes. The call's deadline (and, for services whose deadline aborts, the ambient
 * cancellation of core/cancellation.ts) lives here too.
 */

/** The document as the steps pass it on: a file in the transaction's scratch directory. */
export interface WorkFile {
  path: string;
  /** `pdf` for PDFs; results that are not PDFs (images, ZIP, text, JSON, XML, HTML) carry their type. */
  type: FileType;
}

export interface TransactionDeps {
  documents: DocumentService;
  credentials: RememberedCredentials;
}

/** What a running transaction offers its steps. */
export interface Transaction {
  readonly session: Session;
  /** The stored document worked on; undefined while a new document is made. */
  readonly documentId: string | undefined;
  /** The open password of the stored document (call's or remembered); undefined for new documents. */
  readonly password: string | undefined;
  readonly deadline: CallDeadline;
  readonly scratch: Scratch;
}

/**
 * A step that runs inside another service's transaction: the converter's nested `pdfa` and
 * `signature` members (and later `ocr.pdfa`) are the PDF/A and signature services' steps, written
 * once. A web-service module offers it as `WebServiceModule.nestedStep`; the registry hands every
 * offered step to the services that nest them (`NestedSteps`, see operations/webservices.ts).
 */
export interface DocumentStep<O = unknown> {
  /** Reads `input`, writes `output` (both in `tx.scratch`); `options` is the member as the client sent it. */
  run(input: string, output: string, options: O, tx: Transaction): Promise<void>;
}

/** The nested steps the registered web services offer, by the service that offers them (`converter.pdfa` = `pdfa`). */
export type NestedSteps = Partial<Record<WebserviceName, DocumentStep>>;

/** What the steps hand back: the result, and whether they changed the document's security. */
export interface StepsResult {
  /**
   * `type` undefined: the store detects the result's type from its content. `pdf`: a PDF result,
   * checked to be whole before it is committed (transaction/verify.ts).
   */
  file: { path: string; type?: FileType; pdf?: boolean };
  /**
   * The steps set new protection (toolbox `security`): no re-encryption, and what was remembered for
   * the old protection no longer applies to the result (older history states keep theirs).
   */
  securityChanged?: boolean;
  /**
   * With `securityChanged`: what opens the result, when the steps protected it with a password the
   * session chose (toolbox `security.encrypt`). The session set it itself, so it is remembered for the
   * new state as if supplied by `PUT documents/{id}/security/password`: its info shows the metadata,
   * later calls need not send it. Absent: nothing is remembered (decrypted, or certificate-encrypted).
   */
  credentials?: DocumentCredentials;
}

export interface DeadlineSpec {
  timeoutMs: number;
  /** Set: the deadline aborts the running steps (ambient cancellation) with this error; unset: the tools get it as their limit. */
  abortWith?: (timeoutMs: number) => QuireError;
}

export interface InPlaceOptions<P> {
  session: Session;
  documentId: string;
  /** The history entry's operation name (`converter`, `toolbox`). */
  operation: string;
  password?: CallPassword;
  deadline: DeadlineSpec;
  /** Checks that need the stored document's record, before anything is locked (refuse early). */
  plan?(record: DocumentRecord, storedType: FileType): P;
  /** The steps need a plain PDF: a protected one is decrypted first and re-encrypted at the end. */
  plainInput?: { tool: ProtectionTool; mapError(error: unknown): unknown };
}

/** Changes the stored document `documentId` by `steps`, as one transaction (see above). */
export async function runInPlace<P, R extends StepsResult>(
  deps: TransactionDeps,
  options: InPlaceOptions<P>,
  steps: (tx: Transaction, input: WorkFile, plan: P) => Promise<R>,
): Promise<{ record: DocumentRecord; outcome: R }> {
  const { documents, credentials } = deps;
  const { session, documentId } = options;
  return withDeadline(options.deadline, async (deadline) => {
    await documents.ensureFreeSpace(); // the result is stored: refuse before the work when the disk is short
    const record = await documents.info(session, documentId);
    const storedType = fileTypeById(activeVersion(record).fileTypeId) ?? UNKNOWN_FILE_TYPE;
    const plan = options.plan ? options.plan(record, storedType) : (undefined as P);
    return documents.locks.with(session.id, documentId, () =>
      inScratch(documents, async (scratch) => {
        // The state under the lock: its remembered credentials are the ones that open this content.
        const { record: current, file } = await documents.content(session, documentId);
        const inputVersion = current.activeVersion;
        const password = resolvePassword(credentials, session.id, documentId, inputVersion, options.password);
        const tx: Transaction = { session, documentId, password, deadline, scratch };
        // A hard link costs nothing and keeps this state even if the store moves on; steps only read it.
        const original = scratch.file(storedType.extension || 'bin');
        await link(file.path, original).catch(() => copyFile(file.path, original));
        let input: WorkFile = { path: original, type: storedType };
        let protection: OpenedProtection | undefined;
        const plain = options.plainInput;
        if (plain && storedType.key === 'pdf') {
          const opened = await mapped(plain.mapError, () => openPlainPdf(plain.tool, original, { password, emptyPasswordOpens: false, scratch: () => scratch.file('pdf'), deadline: deadline.at }));
          input = { path: opened.file, type: storedType };
          protection = opened.protection;
        }
        const outcome = await steps(tx, input, plan);
        let result = outcome.file;
        if (plain && protection && result.type?.key === 'pdf' && !outcome.securityChanged) {
          const opened = protection;
          const path = await mapped(plain.mapError, () => restoreProtection(plain.tool, result.path, opened, scratch.file('pdf'), deadline.at));
          result = { path, type: result.type };
        }
        // A result finished after an aborting deadline is not stored: the call has failed by then.
        if (deadline.aborts) deadline.check();
        // A broken PDF (a faulty engine's) must not replace the document; the stored file itself passes unchecked.
        if (isPdf(result) && result.path !== original) await requireCompletePdf(result.path, options.operation);
        // The result moves out of the scratch directory before that is removed.
        // A cluster job commits only while it may (at most once per job; no guard for HTTP calls).
        const guard = activeCommitGuard();
        await guard?.beforeCommit();
        const temp = documents.tempPath();
        await rename(result.path, temp);
        const committed = await documents.commitResult(session, documentId, temp, options.operation, result.type);
        await guard?.afterCommit(committed.id);
        rememberResult(credentials, committed, inputVersion, outcome);
        return { record: committed, outcome };
      }),
    );
  });
}

export interface AsNewOptions {
  /** What makes the document (`toolbox`), for messages. */
  operation: string;
  /** The new document's file name and history mode. */
  name: string;
  history: boolean;
  deadline: DeadlineSpec;
}

/** Makes a new document of the session from `steps` (which start from nothing), as one transaction. */
export async function runAsNew<R extends StepsResult>(
  deps: Pick<TransactionDeps, 'documents'> & Partial<Pick<TransactionDeps, 'credentials'>>,
  session: Session,
  options: AsNewOptions,
  steps: (tx: Transaction) => Promise<R>,
): Promise<{ record: DocumentRecord; outcome: R }> {
  const { documents } = deps;
  return withDeadline(options.deadline, async (deadline) => {
    await documents.ensureFreeSpace();
    return inScratch(documents, async (scratch) => {
      const tx: Transaction = { session, documentId: undefined, password: undefined, deadline, scratch };
      const outcome = await steps(tx);
      if (deadline.aborts) deadline.check();
      if (isPdf(outcome.file)) await requireCompletePdf(outcome.file.path, options.operation);
      const guard = activeCommitGuard();
      await guard?.beforeCommit();
      const temp = documents.tempPath();
      await rename(outcome.file.path, temp);
      const { size } = await stat(temp);
      const record = await documents.adopt(session, temp, size, { clientFileName: options.name, history: options.history });
      await guard?.afterCommit(record.id);
      if (outcome.credentials) deps.credentials?.replace(session.id, record.id, record.activeVersion, outcome.credentials);
      return { record, outcome };
    });
  });
}

/**
 * What the session remembers for the committed state. New protection the steps set: exactly what
 * they say opens it (nothing after a decryption). Otherwise the result carries the input's protection
 * again, so a new history state inherits the input state's credentials (without history the state
 * id stays 0 and they stay as they are). Older history states keep theirs either way.
 */
function rememberResult(credentials: RememberedCredentials, committed: DocumentRecord, inputVersion: number, outcome: StepsResult): void {
  const { sessionId, id, activeVersion: resultVersion } = committed;
  if (outcome.securityChanged) credentials.replace(sessionId, id, resultVersion, outcome.credentials);
  else if (resultVersion !== inputVersion) credentials.replace(sessionId, id, resultVersion, credentials.get(sessionId, id, inputVersion));
}

/**
 * Runs `work` under the call's deadline. An aborting deadline becomes the ambient cancellation: when
 * it passes, the running tool or pool job is killed, and whatever the killed step reported, the call
 * fails with why it ended (its time ran out, or its client left).
 */
async function withDeadline<T>(spec: DeadlineSpec, work: (deadline: CallDeadline) => Promise<T>): Promise<T> {
  const deadline = new CallDeadline({ timeoutMs: spec.timeoutMs, outer: ambientCancellation(), ...(spec.abortWith ? { abortWith: spec.abortWith } : {}) });
  try {
    if (!deadline.aborts) return await work(deadline);
    return await withCancellation(deadline.signal, () => work(deadline));
  } catch (error) {
    if (deadline.aborts && deadline.signal.aborted) throw deadline.signal.reason;
    throw error;
  } finally {
    deadline.dispose();
  }
}

/** A fresh scratch directory under the store's tmp for `task`, removed afterwards on every path. */
async function inScratch<T>(documents: Pick<DocumentService, 'tempPath'>, task: (scratch: Scratch) => Promise<T>): Promise<T> {
  const scratch = await Scratch.open(documents.tempPath());
  try {
    return await task(scratch);
  } finally {
    await scratch.dispose();
  }
}

/** A result of type `pdf`, or an untyped one its steps declare a PDF. */
function isPdf(file: StepsResult['file']): boolean {
  return file.type?.key === 'pdf' || (file.type === undefined && file.pdf === true);
}

async function mapped<T>(map: (error: unknown) => unknown, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw map(error);
  }
}
