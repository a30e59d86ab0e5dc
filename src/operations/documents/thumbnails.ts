import { copyFile, link, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { describeType, fileTypeById, UNKNOWN_FILE_TYPE } from '../../core/file-types.js';
import { Errors, QuireError } from '../../core/errors.js';
import type { PdfRewriter } from '../../engines/pdf/rewriter.js';
import { renderThumbnail } from '../../engines/poppler/thumbnail.js';
import type { PopplerRunner } from '../../engines/poppler/tool.js';
import type { Session } from '../../sessions/session.js';
import { activeVersion, type DocumentRecord } from '../../storage/document-store.js';
import { fromEngine } from '../engine-errors.js';
import { Scratch } from '../transaction/scratch.js';
import type { RememberedCredentials } from './credentials.js';
import type { DocumentService } from './document-service.js';

/** Widest thumbnail: a preview, not a page rendering service (the toolbox's `image` operation is that). */
export const MAX_THUMBNAIL_WIDTH = 1024;
/** Thumbnails kept per document; past it the oldest go (a client asking for every width cannot fill the disk). */
const KEPT_PER_DOCUMENT = 32;
const PREFIX = 'thumbnail-';

export interface Thumbnail {
  png: Buffer;
  /** Names the state, page and width: the same tag is the same picture. */
  etag: string;
  /** False when the picture came from the cache. */
  rendered: boolean;
}

export interface ThumbnailDeps {
  documents: DocumentService;
  credentials: Pick<RememberedCredentials, 'get'>;
  pdf: Pick<PdfRewriter, 'isEncrypted' | 'decrypt' | 'pageCount'>;
  poppler: PopplerRunner;
  /** Most milliseconds one tool run may take (documents.toolTimeout); the whole render gets twice that. */
  toolTimeoutMs: number;
}

/**
 * Page thumbnails of stored PDFs for the portal's document list (`GET documents/{id}/thumbnail`).
 * Rendered by poppler under its gate (concurrency bound, queue → 429), the call's time limit and the
 * configured memory cap, and kept next to the content in the document's own directory, named after
 * the content file: a new state of the document has a new content file, so a stale picture is never
 * served, and deleting the document or its session deletes its thumbnails (the store's start-up check
 * removes them too, as files it does not know: a cache may go). A protected PDF is opened with the
 * password the session supplied; the stored document is only read, through a hard link of its content.
 */
export class DocumentThumbnails {
  private readonly inFlight = new Map<string, Promise<Buffer>>();

  constructor(private readonly deps: ThumbnailDeps) {}

  async thumbnail(session: Session, documentId: string, page: number, width: number): Promise<Thumbnail> {
    const { record, file } = await this.deps.documents.content(session, documentId);
    const version = activeVersion(record);
    if (!version.fileTypeGroups.includes('pdf')) {
      const type = fileTypeById(version.fileTypeId) ?? UNKNOWN_FILE_TYPE;
      throw new QuireError('THUMBNAIL_UNSUPPORTED', `The document "${documentId}" is ${describeType(type)}, not a PDF: it has no page thumbnail.`);
    }
    const name = `${PREFIX}${version.file}-${page}-${width}.png`;
    const cached = path.join(path.dirname(file.path), name);
    const etag = `"${version.file}-${page}-${width}"`;
    const hit = await readFile(cached).catch(() => undefined);
    if (hit) return { png: hit, etag, rendered: false };
    let pending = this.inFlight.get(cached);
    if (!pending) {
      pending = this.render(session, record, file.path, page, width, cached).finally(() => this.inFlight.delete(cached));
      this.inFlight.set(cached, pending);
    }
    return { png: await pending, etag, rendered: true };
  }

  private async render(session: Session, record: DocumentRecord, content: string, page: number, width: number, cached: string): Promise<Buffer> {
    const { documents, credentials, pdf, poppler, toolTimeoutMs } = this.deps;
    const deadline = Date.now() + 2 * toolTimeoutMs;
    const scratch = await Scratch.open(documents.tempPath());
    try {
      // A hard link keeps this state readable even if the document changes meanwhile.
      let input = scratch.file('pdf');
      await link(content, input).catch(() => copyFile(content, input));
      if (await mapped(pdf.isEncrypted(input, { deadline }))) {
        input = await this.decrypted(input, credentials.get(session.id, record.id, record.activeVersion)?.password, scratch, deadline);
      }
      const pages = await mapped(pdf.pageCount(input, { deadline }));
      if (page > pages) throw new QuireError('PARAMETER', `page: the document has ${pages} page${pages === 1 ? '' : 's'}; page ${page} does not exist.`);
      const base = scratch.file('thumbnail').replace(/\.thumbnail$/, '');
      await mapped(renderThumbnail(input, page, width, base, { deadline, toolTimeoutMs, poppler }));
      const png = await readFile(`${base}.png`);
      await keep(`${base}.png`, cached, record);
      return png;
    } finally {
      await scratch.dispose();
    }
  }

  /** A decrypted copy: with the session's password, or an empty one (a PDF protected by an owner password only opens with it). */
  private async decrypted(input: string, password: string | undefined, scratch: Scratch, deadline: number): Promise<string> {
    const output = scratch.file('pdf');
    try {
      await this.deps.pdf.decrypt(input, output, { password: password ?? '', deadline });
    } catch (error) {
      const answer = fromEngine(error);
      // Without a password of the session, "the empty password is wrong" means "a password is needed".
      if (password === undefined && answer instanceof QuireError && answer.errorCode === Errors.PDF_PASSWORD_WRONG.errorCode) {
        throw new QuireError('PDF_PASSWORD_REQUIRED', 'The PDF is password protected: supply its password (PUT documents/{id}/security/password) to see its thumbnail.', { cause: error });
      }
      throw answer;
    }
    return output;
  }
}

/** An engine's failure as the catalogue's error. */
function mapped<T>(work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => Promise.reject(fromEngine(error)));
}

/**
 * Moves the picture into the document's directory, and removes what is no longer worth keeping there:
 * thumbnails of content files the document no longer has, and the oldest past KEPT_PER_DOCUMENT. The
 * document may be gone meanwhile: then nothing is kept (its directory must not come back).
 */
async function keep(picture: string, cached: string, record: DocumentRecord): Promise<void> {
  const dir = path.dirname(cached);
  try {
    await rename(picture, cached);
  } catch {
    return;
  }
  const files = new Set(record.versions.map((v) => v.file));
  const thumbnails = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.startsWith(PREFIX));
  const current: { name: string; mtime: number }[] = [];
  for (const name of thumbnails) {
    const owner = name.slice(PREFIX.length).replace(/-\d+-\d+\.png$/, '');
    if (!files.has(owner)) await rm(path.join(dir, name), { force: true });
    else current.push({ name, mtime: (await stat(path.join(dir, name)).catch(() => undefined))?.mtimeMs ?? 0 });
  }
  current.sort((a, b) => a.mtime - b.mtime);
  for (const old of current.slice(0, Math.max(0, current.length - KEPT_PER_DOCUMENT))) await rm(path.join(dir, old.name), { force: true });
}
