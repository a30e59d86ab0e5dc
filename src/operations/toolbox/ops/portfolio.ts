import { QuireError } from '../../../core/errors.js';
import { uniqueEntryNames } from '../../../engines/archive/index.js';
import {
  editContext,
  editPortfolio,
  extractPortfolio,
  safeFileName,
  writeEmbeddedData,
  type PortfolioEdit,
  type PortfolioNewFile,
  type PortfolioSelection,
} from '../../../engines/pdf-edit/document/index.js';
import { decodeFileData } from '../file-data.js';
import type { ToolboxContext, ToolboxOperation, WorkFile } from '../operation.js';
import { asParameter, fileNameOf, mimeTypeFor, typeOf, zipResult } from './attachment.js';
import type { PortfolioOptions } from './portfolio.schema.js';

type SelectionOptions = NonNullable<NonNullable<PortfolioOptions['extract']>['selection']>[number];

/**
 * `portfolio`: a PDF portfolio with folders. `remove` (selected files or whole folders), then `add`
 * (folders, and files into folders, created as needed; a file of the same name in the same folder is
 * replaced), then `sort`, then `extract`, which makes the selected files the result (one file as it
 * is when `singleFileAsZip` is false, else a ZIP that keeps the folder structure). A document
 * without pages (`toolbox/new`) gets a cover page.
 */
export const portfolioOperation: ToolboxOperation<PortfolioOptions> = {
  name: 'portfolio',
  needsPdf: true,
  async run(input, options, context, field) {
    if (!options.add && !options.remove && !options.sort && !options.extract) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}: give add, remove, sort or extract.`);
    }
    const edit: PortfolioEdit = { now: new Date() };
    if (options.remove) {
      edit.remove = (options.remove.selection ?? []).map((s, i) => selection(s, `${field}.remove.selection[${i}]`));
      const changesInitial = options.remove.initialFileName !== '' || options.remove.initialDocumentPath !== '';
      if (edit.remove.length === 0 && !changesInitial) {
        throw new QuireError('PARAMETER', `Invalid parameter ${field}.remove.selection: name the files or folders to remove ({"path":"/"} removes everything).`);
      }
    }
    if (options.add) {
      edit.addFolders = (options.add.folder ?? []).map((f, i) => folderPath(f.path, `${field}.add.folder[${i}].path`));
      edit.addFiles = await newFiles(options.add.file ?? [], `${field}.add.file`, edit.now, context);
    }
    const fromAdd = initialSelection(options.add, `${field}.add`);
    const initial = fromAdd ?? initialSelection(options.remove, `${field}.remove`);
    if (initial) {
      edit.initial = initial;
      edit.initialLabel = fromAdd ? 'add.initialFileName' : 'remove.initialFileName';
    }
    if (options.sort) {
      edit.sort = (options.sort.namedCriteria ?? []).map((c) => ({ key: c.key, ascending: c.ascending, displayName: c.displayName }));
    }
    const tools = editContext({ qpdf: context.engines.qpdf, timeoutMs: context.engines.toolTimeoutMs, deadline: context.deadline, scratch: context.scratch });
    let current: WorkFile = input;
    try {
      if (options.add || options.remove || options.sort) {
        const output = context.scratch('pdf');
        await editPortfolio(current.path, output, edit, tools);
        current = { path: output, type: input.type };
      }
      if (options.extract) {
        const chosen = (options.extract.selection ?? []).map((s, i) => selection(s, `${field}.extract.selection[${i}]`));
        const files = await extractPortfolio(current.path, chosen, context.scratch('data'), tools);
        if (files.length === 1 && !options.extract.singleFileAsZip) {
          const only = files[0]!;
          current = { path: only.file, type: await typeOf(only.file, only.name) };
        } else {
          const names = uniqueEntryNames(files.map((f) => [...f.path.map((segment) => safeFileName(segment, 'folder')), safeFileName(f.name)].join('/')));
          current = await zipResult(
            files.map((f, i) => ({ name: names[i]!, file: f.file })),
            context,
          );
        }
      }
    } catch (error) {
      throw asParameter(error, field);
    }
    return current;
  },
};

/** A folder path: "" or "/" is the root; segments are folder names (no "." or "..", no control characters). */
function folderPath(raw: string, at: string): string[] {
  const segments = raw
    .split('/')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const segment of segments) {
    if (segment === '.' || segment === '..') throw new QuireError('PARAMETER', `Invalid parameter ${at}: "${raw}" has a "${segment}" segment; give the path from the root, e.g. "/reports/2024".`);
    if (/[\u0000-\u001f\u007f\\]/.test(segment)) throw new QuireError('PARAMETER', `Invalid parameter ${at}: "${raw}" contains control characters or a backslash.`);
    if (segment.length > 255) throw new QuireError('PARAMETER', `Invalid parameter ${at}: a folder name is longer than 255 characters.`);
  }
  if (segments.length > 64) throw new QuireError('PARAMETER', `Invalid parameter ${at}: folders nested deeper than 64.`);
  return segments;
}

function selection(item: SelectionOptions, at: string): PortfolioSelection {
  const { fileName } = item;
  return { path: folderPath(item.path, `${at}.path`), fileName: fileName === '' ? '' : fileNameOf(fileName, `${at}.fileName`) };
}

function initialSelection(options: { initialDocumentPath: string; initialFileName: string } | undefined, at: string): PortfolioSelection | undefined {
  if (!options) return undefined;
  const { initialDocumentPath: path, initialFileName: fileName } = options;
  if (path === '' && fileName === '') return undefined;
  if (fileName === '') throw new QuireError('PARAMETER', `Invalid parameter ${at}.initialFileName: required with initialDocumentPath.`);
  return { path: folderPath(path, `${at}.initialDocumentPath`), fileName: fileNameOf(fileName, `${at}.initialFileName`) };
}

async function newFiles(files: NonNullable<PortfolioOptions['add']>['file'] & object, field: string, created: Date, context: ToolboxContext): Promise<PortfolioNewFile[]> {
  const result: PortfolioNewFile[] = [];
  for (const [index, file] of files.entries()) {
    const at = `${field}[${index}]`;
    const name = fileNameOf(file.fileName, `${at}.fileName`);
    const mimeType = mimeTypeFor(file.mimeType, name, `${at}.mimeType`);
    const folder = folderPath(file.path, `${at}.path`);
    const data = decodeFileData(file.data, `${at}.data`);
    const dataFile = context.scratch('bin');
    const { size, md5 } = await writeEmbeddedData(data, dataFile);
    const { creator } = file;
    result.push({ name, path: folder, dataFile, size, md5, mimeType, created, ...(creator ? { collectionItem: { '/Creator': `u:${creator}` } } : {}) });
  }
  return result;
}
