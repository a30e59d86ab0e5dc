import { writeFile } from 'node:fs/promises';
import { QuireError } from '../../../core/errors.js';
import { describeType, fileTypeByKey } from '../../../core/file-types.js';
import { ArchiveError } from '../../../engines/archive/index.js';
import { PdfEngineError } from '../../../engines/pdf/errors.js';
import { hasXfa } from '../../../engines/pdf/structure/catalog-edit.js';
import { StructureError } from '../../../engines/pdf/structure/errors.js';
import { mergeDocuments } from '../../../engines/pdf/structure/merge.js';
import type { MergePosition, MergeRequest, MergeSource } from '../../../engines/pdf/structure/merge.js';
import { looksLikePdf, pdfsFromZip, unlockedSource } from '../../../engines/pdf/structure/sources.js';
import type { UnlockedSource } from '../../../engines/pdf/structure/sources.js';
import { fromEngine } from '../../engine-errors.js';
import { decodeFileData } from '../file-data.js';
import type { ToolboxContext, ToolboxOperation, WorkFile } from '../operation.js';
import { requirePage } from '../pages.js';
import { defaultsOf } from '../../option-schema.js';
import { mergeOptions, type MergeOptions } from './merge.schema.js';

/** `Operation_MergeFileData`. */
type MergeFileData = NonNullable<MergeOptions['data']>;
/** Without `data` (sourceIsZip alone): its defaults. */
const NO_DATA = defaultsOf(mergeOptions.properties.data);

const PDF = fileTypeByKey('pdf');
/** Documents one call may merge by id or from one ZIP (qpdf keeps up to 200 files open at once, more get reopened). */
const MAX_SOURCES = 1000;
const PRODUCER = 'Quire';

/**
 * `merge`: inserts other PDFs into the document, at its end or beginning or before/after a page.
 * Sources: one PDF (`data.format` pdf), the PDFs of a ZIP archive (zip), or documents of the same
 * session by id (id; protected ones are opened with their remembered password). With `sourceIsZip`
 * the document itself is a ZIP whose first PDF is the base and whose others are appended.
 *
 * qpdf assembles the pages (streaming, whatever the size); the inserted documents' bookmarks are put
 * back into the outline (qpdf would drop them), under `outlineName` paths when given.
 */
export const mergeOperation: ToolboxOperation<MergeOptions> = {
  name: 'merge',
  // A ZIP is a valid input with sourceIsZip; run() checks the type itself.
  needsPdf: false,
  async run(input, options, context, field) {
    const { mode } = options;
    const qpdf = context.engines.qpdf;
    const scratch = () => context.scratch('pdf');

    try {
      let base: string;
      if (options.sourceIsZip) {
        if (input.type.key !== 'zip') {
          throw new QuireError('PARAMETER', `Invalid parameter ${field}.sourceIsZip: the document is ${describeType(input.type)}, not a ZIP archive of PDFs.`);
        }
        base = await zipAsBase(input, context, field);
      } else {
        if (input.type.key !== 'pdf') {
          throw new QuireError('INVALID_PDF', `${field}: merge works on PDFs and the document is ${describeType(input.type)} (set sourceIsZip for a ZIP of PDFs).`);
        }
        base = input.path;
      }
      if (!options.data && !options.sourceIsZip) throw new QuireError('PARAMETER', `Invalid parameter ${field}.data: required (the document to insert).`);
      if (!options.removeStaticXFA && (await hasXfa(qpdf, base, context.call))) {
        throw new QuireError(
          'PARAMETER',
          `Invalid parameter ${field}.removeStaticXFA: the document carries an XFA form, which merging would break; set removeStaticXFA to true to merge it as a plain AcroForm (the XFA packets and the usage rights are removed).`,
        );
      }
      const sources = options.data ? await collectSources(options.data, context, field) : [];

      let basePageCount: number | undefined;
      let position: MergePosition = { at: 'end' };
      if (mode === 'atTheBeginning') position = { at: 'start' };
      if (sources.length > 0 && (mode === 'afterPage' || mode === 'beforePage')) {
        basePageCount = await context.engines.rewriter.pageCount(base, context.call);
        // An empty document (the start of toolbox/new) has no page to stand before or after.
        if (basePageCount > 0) {
          const page = requirePage(options.page, basePageCount, `${field}.page`);
          position = mode === 'afterPage' ? { at: 'after', page } : { at: 'before', page };
        }
      }
      const request: MergeRequest = {
        base,
        ...(basePageCount === undefined ? {} : { basePageCount }),
        sources,
        position,
        baseOutlinePath: options.outlineName,
        insertedOutlinePath: (options.data ?? NO_DATA).outlineName,
        resetMetadata: options.resetMetadata,
        removeXfa: options.removeStaticXFA,
        producer: PRODUCER,
        scratch,
      };
      const path = await withCulprit(sources, context, () => mergeDocuments(qpdf, request, context.call));
      return { path, type: PDF };
    } catch (error) {
      if (error instanceof ArchiveError) throw fromEngine(error);
      if (error instanceof StructureError && error.kind === 'invalidOption') throw new QuireError('PARAMETER', `Invalid parameter ${error.message}`, { cause: error });
      throw error;
    }
  },
};

/** sourceIsZip: the first PDF of the document's archive with the others appended, as one base PDF. */
async function zipAsBase(input: WorkFile, context: ToolboxContext, field: string): Promise<string> {
  const qpdf = context.engines.qpdf;
  const entries = await pdfsFromZip(input.path, () => context.scratch('pdf'), archiveLimits(context), `${field}.sourceIsZip`);
  const unlocked = await Promise.all(entries.map((entry, i) => unlock(entry.file, '', context, `${field}.sourceIsZip: ZIP entry ${i + 1} (${JSON.stringify(entry.title)})`)));
  const labelled = unlocked.map((source, i) => ({ ...source, title: entries[i]!.title, label: `${field}.sourceIsZip: ZIP entry ${i + 1} (${JSON.stringify(entries[i]!.title)})` }));
  const [first, ...rest] = labelled;
  if (rest.length === 0) return first!.file;
  const request: MergeRequest = {
    base: first!.file,
    sources: rest,
    position: { at: 'end' },
    baseOutlinePath: '',
    insertedOutlinePath: '',
    resetMetadata: false,
    removeXfa: false,
    producer: PRODUCER,
    scratch: () => context.scratch('pdf'),
  };
  return withCulprit(labelled, context, () => mergeDocuments(qpdf, request, context.call));
}

type LabelledSource = MergeSource & { label: string };

/**
 * Runs the merge; when qpdf finds a PDF it cannot read, says which source it was. Sources are not
 * opened one by one beforehand (a qpdf start each, for 99 documents a good part of the merge); only
 * on failure are they checked, in order.
 */
async function withCulprit<T>(sources: readonly LabelledSource[], context: ToolboxContext, merge: () => Promise<T>): Promise<T> {
  try {
    return await merge();
  } catch (error) {
    if (!(error instanceof PdfEngineError) || error.kind !== 'invalidPdf') throw error;
    for (const source of sources) {
      try {
        await context.engines.rewriter.pageCount(source.file, context.call);
      } catch (check) {
        if (check instanceof PdfEngineError && check.kind === 'invalidPdf') {
          throw new QuireError('INVALID_PDF', `Unable to read the PDF file content of ${source.label}: ${check.message}`, { cause: check });
        }
      }
    }
    throw error;
  }
}

/** The documents `data` names, each a readable (decrypted) PDF in the scratch directory. */
async function collectSources(data: MergeFileData, context: ToolboxContext, field: string): Promise<LabelledSource[]> {
  const { format } = data;
  const label = `${field}.data`;
  const bytes = decodeFileData(data, label);

  if (format === 'pdf') {
    const file = context.scratch('pdf');
    await writeFile(file, bytes, { mode: 0o600 });
    if (!(await looksLikePdf(file))) throw new QuireError('PARAMETER', `Invalid parameter ${label}.value: the Base64 content is not a PDF (format "pdf").`);
    return [{ ...(await unlock(file, '', context, `${label}.value`)), title: 'document', label: `${label}.value` }];
  }

  if (format === 'zip') {
    const zip = context.scratch('zip');
    await writeFile(zip, bytes, { mode: 0o600 });
    const entries = await pdfsFromZip(zip, () => context.scratch('pdf'), archiveLimits(context), `${label}.value`);
    return Promise.all(
      entries.map(async (entry, i) => {
        const name = `${label}.value: ZIP entry ${i + 1} (${JSON.stringify(entry.title)})`;
        return { ...(await unlock(entry.file, '', context, name)), title: entry.title, label: name };
      }),
    );
  }

  // format "id": a ';'-separated list of documentIds of this session, Base64-encoded.
  const ids = bytes
    .toString('utf8')
    .split(';')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  if (ids.length === 0) throw new QuireError('PARAMETER', `Invalid parameter ${label}.value: no documentId in the list (format "id": Base64 of "id1;id2;…").`);
  if (ids.length > MAX_SOURCES) throw new QuireError('PARAMETER', `Invalid parameter ${label}.value: ${ids.length} documents; at most ${MAX_SOURCES} can be merged in one call.`);
  const documents = await Promise.all(ids.map((id) => context.sessionDocument(id)));
  return Promise.all(
    documents.map(async (document, i) => {
      const name = `${label}.value: document ${ids[i]} (${JSON.stringify(document.fileName)})`;
      if (document.type.key !== 'pdf') throw new QuireError('PARAMETER', `Invalid parameter ${name} is ${describeType(document.type)}, not a PDF.`);
      return { ...(await unlock(document.path, document.password ?? '', context, name)), title: document.fileName.replace(/\.pdf$/i, ''), label: name };
    }),
  );
}

/** The source itself or its decrypted copy; password failures name the source. */
async function unlock(file: string, password: string, context: ToolboxContext, name: string): Promise<UnlockedSource> {
  try {
    return await unlockedSource(context.engines.qpdf, file, password, context.scratch('pdf'), context.call);
  } catch (error) {
    if (error instanceof PdfEngineError && error.kind === 'passwordRequired') {
      throw new QuireError('PDF_PASSWORD_REQUIRED', `${name} is password protected: remember its password first (PUT documents/{id}/security/password), or decrypt it.`, { cause: error });
    }
    if (error instanceof PdfEngineError && error.kind === 'passwordWrong') {
      throw new QuireError('PDF_PASSWORD_WRONG', `${name}: the remembered password does not open it.`, { cause: error });
    }
    if (error instanceof PdfEngineError && error.kind === 'invalidPdf') {
      throw new QuireError('INVALID_PDF', `Unable to read the PDF file content of ${name}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

function archiveLimits(context: ToolboxContext) {
  const bytes = context.maxResultBytes > 0 ? { maxEntryBytes: context.maxResultBytes, maxTotalBytes: context.maxResultBytes } : {};
  return { maxEntries: MAX_SOURCES, ...bytes };
}
