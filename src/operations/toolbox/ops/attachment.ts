import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { QuireError } from '../../../core/errors.js';
import { fileTypeByKey, type FileType } from '../../../core/file-types.js';
import { uniqueEntryNames, unsafeNameReason, writeZip } from '../../../engines/archive/index.js';
import { detectFormat } from '../../../engines/format/detect-format.js';
import {
  DocumentEditError,
  editAttachments,
  editContext,
  extractAttachments,
  isMimeType,
  mimeTypeOf,
  safeFileName,
  writeEmbeddedData,
  type AnnotationPlacement,
  type AttachmentSelection,
  type NewAttachment,
} from '../../../engines/pdf-edit/document/index.js';
import { decodeFileData } from '../file-data.js';
import type { ToolboxContext, ToolboxOperation, WorkFile } from '../operation.js';
import { requirePage, selectPages } from '../pages.js';
import type { AttachmentOptions } from './attachment.schema.js';

type Metrics = NonNullable<FileAttachmentOptions['annotation']>['point']['metrics'];
type AttachmentSelectionOptions = NonNullable<NonNullable<AttachmentOptions['extract']>['selection']>[number];
type FileAttachmentOptions = NonNullable<NonNullable<AttachmentOptions['add']>['file']>[number];

const POINTS_PER: Record<Metrics, number> = { pt: 1, pc: 12, px: 0.75, mm: 72 / 25.4, in: 72 };
const ICONS = { graph: 'Graph', paperclip: 'Paperclip', pushPin: 'PushPin', tag: 'Tag', none: undefined } as const;

/**
 * `attachment`: `remove` (the selected attachments), then `add` (document-level embedded files, or
 * page-level file attachment annotations when `annotation` is given), then `extract`, which makes
 * the selected files the result: one file as it is when `singleFileAsZip` is false, else a ZIP with
 * page-level files in folders named by `folderNameTemplate`. Extracting with no selection takes
 * every attachment; removing needs one (`[{}]` selects every attachment).
 */
export const attachmentOperation: ToolboxOperation<AttachmentOptions> = {
  name: 'attachment',
  needsPdf: true,
  async run(input, options, context, field) {
    if (!options.add && !options.remove && !options.extract) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}: give add, remove or extract.`);
    }
    const edit = editContext({ qpdf: context.engines.qpdf, timeoutMs: context.engines.toolTimeoutMs, deadline: context.deadline, scratch: context.scratch });
    const pageCount = await context.engines.rewriter.pageCount(input.path, context.call);
    if (options.remove && (options.remove.selection ?? []).length === 0) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}.remove.selection: name the attachments to remove ([{}] selects every one).`);
    }
    const remove = options.remove ? selections(options.remove.selection, pageCount, `${field}.remove.selection`) : [];
    const add = await newAttachments(options.add?.file ?? [], pageCount, `${field}.add.file`, context);
    let current: WorkFile = input;
    try {
      if (options.remove || add.length > 0) {
        const output = context.scratch('pdf');
        await editAttachments(current.path, output, { remove, add, now: new Date() }, edit);
        current = { path: output, type: input.type };
      }
      if (options.extract) current = await extract(current, options.extract, pageCount, field, context);
    } catch (error) {
      throw asParameter(error, field);
    }
    return current;
  },
};

async function extract(input: WorkFile, options: NonNullable<AttachmentOptions['extract']>, pageCount: number, field: string, context: ToolboxContext): Promise<WorkFile> {
  const template = options.folderNameTemplate;
  const folder = (page: number): string => template.replace(/%d/g, String(page));
  const problem = template === '' ? 'empty' : (unsafeNameReason(folder(1)) ?? (folder(1).includes('/') ? 'it contains "/"' : undefined));
  if (problem) throw new QuireError('PARAMETER', `Invalid parameter ${field}.extract.folderNameTemplate: "${template}" cannot name a folder (${problem}).`);
  const chosen = selections(options.selection, pageCount, `${field}.extract.selection`);
  const edit = editContext({ qpdf: context.engines.qpdf, timeoutMs: context.engines.toolTimeoutMs, deadline: context.deadline, scratch: context.scratch });
  const files = await extractAttachments(input.path, chosen, context.scratch('data'), edit);
  if (files.length === 0) throw new QuireError('PARAMETER', `Invalid parameter ${field}.extract.selection: no embedded attachment matches.`);
  if (files.length === 1 && !options.singleFileAsZip) {
    const only = files[0]!;
    return { path: only.file, type: await typeOf(only.file, only.name) };
  }
  const names = uniqueEntryNames(files.map((file) => (file.page === undefined ? safeFileName(file.name) : `${folder(file.page)}/${safeFileName(file.name)}`)));
  return zipResult(
    files.map((file, index) => ({ name: names[index]!, file: file.file })),
    context,
  );
}

/** The type of an extracted file, from its content (its name decides only between text flavours). */
export async function typeOf(file: string, fileName: string): Promise<FileType> {
  return detectFormat(file, fileName);
}

/** Writes a ZIP of the entries into the scratch directory and returns it as the result. */
export async function zipResult(entries: { name: string; file: string }[], context: ToolboxContext): Promise<WorkFile> {
  const zip = context.scratch('zip');
  await writeZip(entries, createWriteStream(zip));
  return { path: zip, type: fileTypeByKey('zip') };
}

/** The selections of remove/extract; none (extract only) means every attachment. */
function selections(list: AttachmentSelectionOptions[] | undefined, pageCount: number, field: string): AttachmentSelection[] {
  if (!list || list.length === 0) return [{ scope: 'all', matches: () => true }];
  return list.map((item, index) => {
    const at = `${field}[${index}]`;
    const { context: scope, pages } = item;
    if (scope === 'document' && pages.trim() !== '') {
      throw new QuireError('PARAMETER', `Invalid parameter ${at}.pages: pages select page-level attachments; context "document" has none (use "page" or "all").`);
    }
    const selected = pages.trim() === '' || pages.trim() === '*' ? undefined : new Set(selectPages(pages, pageCount, `${at}.pages`));
    return { scope, matches: fileMask(item.fileMask), ...(selected ? { pages: selected } : {}) };
  });
}

/** A file mask with "*" and "?" wildcards, compared case-insensitively with the whole file name. */
export function fileMask(mask: string): (name: string) => boolean {
  if (mask === '' || mask === '*') return () => true;
  const pattern = new RegExp(
    `^${mask
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'is',
  );
  return (name) => pattern.test(name);
}

async function newAttachments(files: FileAttachmentOptions[], pageCount: number, field: string, context: ToolboxContext): Promise<NewAttachment[]> {
  const created = new Date();
  const result: NewAttachment[] = [];
  for (const [index, file] of files.entries()) {
    const at = `${field}[${index}]`;
    const name = fileNameOf(file.fileName, `${at}.fileName`);
    const mimeType = mimeTypeFor(file.mimeType, name, `${at}.mimeType`);
    const data = decodeFileData(file.data, `${at}.data`);
    const dataFile = context.scratch('bin');
    const { size, md5 } = await writeEmbeddedData(data, dataFile);
    const { creator } = file;
    const attachment: NewAttachment = { name, dataFile, size, md5, mimeType, created, ...(creator ? { collectionItem: { '/Creator': `u:${creator}` } } : {}) };
    if (file.annotation) attachment.annotation = placement(file.annotation, creator, pageCount, `${at}.annotation`);
    result.push(attachment);
  }
  return result;
}

/** The plain file name (a path's last part); required, no control characters. */
export function fileNameOf(raw: string, at: string): string {
  const name = path.posix.basename(raw.replace(/\\/g, '/')).trim();
  if (name === '' || name === '.' || name === '..') throw new QuireError('PARAMETER', `Invalid parameter ${at}: a file name is required.`);
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new QuireError('PARAMETER', `Invalid parameter ${at}: the file name contains control characters.`);
  return name;
}

export function mimeTypeFor(given: string, name: string, at: string): string {
  if (given === '') return mimeTypeOf(name);
  if (!isMimeType(given)) throw new QuireError('PARAMETER', `Invalid parameter ${at}: "${given}" is not a MIME type (type/subtype).`);
  return given.toLowerCase();
}

function placement(annotation: NonNullable<FileAttachmentOptions['annotation']>, creator: string, pageCount: number, at: string): AnnotationPlacement {
  const page = requirePage(annotation.page, pageCount, `${at}.page`);
  const unit = POINTS_PER[annotation.point.metrics];
  const color = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(annotation.color);
  if (!color) throw new QuireError('PARAMETER', `Invalid parameter ${at}.color: "${annotation.color}" is not #RRGGBB.`);
  const channel = (hex: string): number => Math.round((Number.parseInt(hex, 16) / 255) * 10_000) / 10_000;
  return {
    page,
    x: annotation.point.x * unit,
    y: annotation.point.y * unit,
    width: annotation.width * unit,
    height: annotation.height * unit,
    fromTop: annotation.point.coordinates === 'user',
    icon: ICONS[annotation.icon],
    color: [channel(color[1]!), channel(color[2]!), channel(color[3]!)],
    opacity: annotation.opacity / 100,
    locked: annotation.lockedPosition,
    popupText: annotation.popupText,
    author: creator,
  };
}

/** An invalid value found by the engine becomes -14 naming the operation. */
export function asParameter(error: unknown, field: string): unknown {
  if (error instanceof DocumentEditError && error.kind === 'invalidOption') return new QuireError('PARAMETER', `Invalid parameter ${field}.${error.message}`);
  return error;
}
