import { BoundedCache } from '../../core/bounded-cache.js';
import { withCancellation } from '../../core/cancellation.js';
import { Errors, NO_ERROR, QuireError, type ExceptionBody } from '../../core/errors.js';
import { listEntries } from '../../engines/archive/index.js';
import { imageMetadata } from '../../engines/image/image-metadata.js';
import { MemoryLimitError } from '../../engines/process/memory-limit.js';
import type { PdfInspector, SecurityInfo } from '../../engines/pdf/index.js';
import { activeVersion, type DocumentRecord, type DocumentStore } from '../../storage/document-store.js';
import type { RememberedCredentials } from './credentials.js';
import { fromEngine } from '../engine-errors.js';

/** webPDF `Document_Password`: which protections a PDF carries. */
export interface DocumentPassword {
  isOpenSet: boolean;
  isPermissionSet: boolean;
  isCertificateSet: boolean;
  recipients: Array<{ issuer: string; serialNumber: string }>;
}

/** What a DocumentFile says beyond the stored record: access problems, protections, metadata. */
export interface DocumentDescription {
  error: ExceptionBody;
  password?: DocumentPassword;
  metadata?: { metadataType: string };
}

const ARCHIVE_LISTING_LIMIT = 10_000;
const CACHE_SIZE = 2_000;
/** How often background metadata work checks that its document still exists in that state. */
const WATCH_INTERVAL_MS = 250;

/** Metadata work that runs on after `GET info` answered, and how to stop it. */
interface BackgroundWork {
  sessionId: string;
  controller: AbortController;
}

/**
 * Describes documents for `GET info`: the protection of a PDF and whether the session can open it
 * (`error` -5009 / -5055 until it supplied credentials), and the metadata of PDFs, images and ZIP
 * archives. Results are cached per content file, so repeated calls cost a map lookup. Metadata gets
 * a time budget: when a large document needs longer, the answer comes without it while the work
 * finishes in the background, and later calls include it.
 *
 * Background work is for later calls, so it is stopped (its qpdf killed) as soon as none can come:
 * when the document is deleted or gets new content (a watcher compares the content file), when its
 * session ends (`forgetSession`), and when the server shuts down (`close`). Inspections run outside
 * the ambient cancellation of the call that started them: they are cached and shared.
 */
export class DocumentDescriber {
  private readonly security = new BoundedCache<Promise<SecurityInfo>>(CACHE_SIZE);
  private readonly metadata = new BoundedCache<Promise<DocumentDescription['metadata']>>(CACHE_SIZE);
  private readonly settled = new BoundedCache<NonNullable<DocumentDescription['metadata']>>(CACHE_SIZE);
  private readonly background = new Map<string, BackgroundWork>();
  private readonly passwords = new WeakMap<SecurityInfo, DocumentPassword>();

  constructor(
    private readonly store: DocumentStore,
    private readonly pdf: PdfInspector,
    private readonly credentials: RememberedCredentials,
    private readonly budgetMs: number,
  ) {}

  /**
   * `cachedMetadataOnly` (for lists) reports metadata only when it is already known, so listing many
   * documents never starts an inspection of each; the protection state is always determined.
   */
  async describe(record: DocumentRecord, options: { cachedMetadataOnly?: boolean } = {}): Promise<DocumentDescription> {
    const peek = options.cachedMetadataOnly === true;
    const version = activeVersion(record);
    // The record in hand names the file: in a cluster, another read of the index is another round trip to Redis.
    const file = this.store.contentOf(record);
    if (!file) return { error: NO_ERROR };
    const key = `${record.sessionId}/${record.id}/${version.file}`;
    if (version.fileTypeGroups.includes('pdf')) return this.describePdf(record, key, file.path, peek);
    try {
      if (version.fileTypeGroups.includes('image')) {
        return { error: NO_ERROR, metadata: await this.withinBudget(record, key, file.path, peek, async () => ({ metadataType: 'image', images: await imageMetadata(file.path) })) };
      }
      if (version.mimeType === 'application/zip') {
        return { error: NO_ERROR, metadata: await this.withinBudget(record, key, file.path, peek, async () => archiveMetadata(file.path)) };
      }
    } catch (error) {
      // An image or archive whose headers cannot be read is still stored: it just has no metadata.
      return { error: error instanceof QuireError ? asException(error) : NO_ERROR };
    }
    return { error: NO_ERROR };
  }

  /** How the active content of a PDF document is protected (cached). */
  async securityOf(record: DocumentRecord, path: string): Promise<SecurityInfo> {
    const key = `${record.sessionId}/${record.id}/${activeVersion(record).file}`;
    let pending = this.security.get(key);
    if (!pending) {
      pending = withCancellation(undefined, () => this.pdf.security(path));
      this.security.set(key, pending);
      pending.catch((error: unknown) => forgetUnlessLasting(error, () => this.security.delete(key)));
    }
    return pending;
  }

  private async describePdf(record: DocumentRecord, key: string, path: string, peek: boolean): Promise<DocumentDescription> {
    let security: SecurityInfo;
    try {
      security = await this.securityOf(record, path);
    } catch (error) {
      return { error: asException(fromEngine(error)) };
    }
    const password = this.passwordOf(security);
    const remembered = this.credentials.get(record.sessionId, record.id, record.activeVersion);
    if (security.kind === 'certificate') {
      // Verified key material opens the document for this session; qpdf cannot decrypt it for metadata.
      return remembered?.keyPair
        ? { error: NO_ERROR, password }
        : {
            error: asException(new QuireError('PDF_CERTIFICATE_REQUIRED', "The PDF is encrypted for certificates; supply a recipient's key pair with PUT documents/{id}/security/password.")),
            password,
          };
    }
    if (security.kind === 'openPassword' && !remembered?.password) {
      return { error: asException(new QuireError('PDF_PASSWORD_REQUIRED', 'The PDF is password protected; supply its password with PUT documents/{id}/security/password.')), password };
    }
    try {
      const metadata = await this.withinBudget(record, key, path, peek, () => this.pdf.metadata(path, { password: remembered?.password }));
      return { error: NO_ERROR, password, metadata };
    } catch (error) {
      return { error: asException(fromEngine(error)), password };
    }
  }

  /**
   * The protections of an inspection as `Document_Password`, one object per inspection: an answer
   * made of the same objects as the last one is the same text (http/schemas/documents.ts keeps it).
   */
  private passwordOf(security: SecurityInfo): DocumentPassword {
    let password = this.passwords.get(security);
    if (password === undefined) {
      password = {
        isOpenSet: security.hasOpenPassword,
        isPermissionSet: security.hasPermissionPassword,
        isCertificateSet: security.hasCertificate,
        recipients: security.recipients.map((r) => ({ issuer: r.issuer, serialNumber: r.serialNumber })),
      };
      this.passwords.set(security, password);
    }
    return password;
  }

  /**
   * The cached metadata, or computes it; answers undefined when that takes longer than the budget.
   * With `peek`, nothing new is computed.
   */
  private async withinBudget(record: DocumentRecord, key: string, path: string, peek: boolean, compute: () => Promise<DocumentDescription['metadata']>): Promise<DocumentDescription['metadata']> {
    // The hot path: known metadata is answered without a timer or a race.
    const known = this.settled.get(key);
    if (known) return known;
    let pending = this.metadata.get(key);
    if (!pending && peek) return undefined;
    if (!pending) {
      pending = this.inBackground(record, key, path, compute);
      this.metadata.set(key, pending);
      pending.then(
        (value) => {
          if (value && this.metadata.get(key) === pending) this.settled.set(key, value);
        },
        (error: unknown) => forgetUnlessLasting(error, () => this.metadata.delete(key)),
      );
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.budgetMs);
    });
    try {
      return await Promise.race([pending, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops the background work of a session's documents (its session ended). */
  forgetSession(sessionId: string): void {
    for (const work of this.background.values()) {
      if (work.sessionId === sessionId) work.controller.abort(new Error('the session ended'));
    }
  }

  /** Stops all background work (the server shuts down). */
  close(): void {
    for (const work of this.background.values()) work.controller.abort(new Error('the server shuts down'));
  }

  /**
   * Runs `compute` with a cancellation of its own (and none of the calling request's), watched:
   * when the document no longer has `path` as its content, nobody will ask for the result.
   */
  private inBackground<T>(record: DocumentRecord, key: string, path: string, compute: () => Promise<T>): Promise<T> {
    const work: BackgroundWork = { sessionId: record.sessionId, controller: new AbortController() };
    this.background.set(key, work);
    let checking = false;
    const watcher = setInterval(() => {
      if (checking) return;
      checking = true;
      void this.store
        .content(record.sessionId, record.id)
        .then(
          (file) => {
            if (file?.path !== path) work.controller.abort(new Error('the document was deleted or replaced'));
          },
          () => undefined,
        )
        .finally(() => (checking = false));
    }, WATCH_INTERVAL_MS);
    watcher.unref();
    const pending = withCancellation(work.controller.signal, compute);
    void pending
      .finally(() => {
        clearInterval(watcher);
        if (this.background.get(key) === work) this.background.delete(key);
      })
      .catch(() => undefined);
    return pending;
  }
}

/**
 * A failed inspection is forgotten, so the next call tries again (the tool may have been missing, the
 * work cancelled) — except a memory cap: the same content hits it again, and every `GET info` would
 * start another process that grows to the cap. That failure stays and is reported (-109).
 */
function forgetUnlessLasting(error: unknown, forget: () => void): void {
  if (!(error instanceof MemoryLimitError)) forget();
}

async function archiveMetadata(path: string): Promise<DocumentDescription['metadata']> {
  try {
    const listing = await listEntries(path, { maxEntries: ARCHIVE_LISTING_LIMIT });
    const metadata: DocumentDescription['metadata'] & { files: unknown[] } = {
      metadataType: 'archive',
      files: listing.entries.filter((e) => !e.isDirectory).map((e) => ({ path: e.path, size: e.size, lastModifiedDate: e.lastModified })),
    };
    return metadata;
  } catch (error) {
    throw fromEngine(error);
  }
}

/** A failure reported inside a DocumentFile (status 200) rather than as the response. */
export function asException(error: unknown): ExceptionBody {
  if (error instanceof QuireError) return { errorCode: error.errorCode, errorMessage: error.message, stackTrace: '' };
  return { errorCode: Errors.INTERNAL.errorCode, errorMessage: 'The document could not be inspected; the cause is in the server log.', stackTrace: '' };
}
