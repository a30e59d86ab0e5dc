import { asArray, asDict, asName, asNumber, asText, isRef, type QDict, type QValue } from '../../pdf/qpdf-json.js';
import { addCoverPage } from './cover-page.js';
import type { EditContext } from './document-info.js';
import { addFileSpec, readEmbeddedFiles, writeEmbeddedFiles, type EmbeddedFilesTree, type NewEmbeddedFile } from './embedded-files.js';
import { DocumentEditError } from './errors.js';
import { PdfObjects, type PdfUpdate } from './pdf-objects.js';
import { byteString, keyBytes, pdfDate, text } from './pdf-values.js';

/**
 * PDF portfolios (collections, ISO 32000-1 §12.3.5) with folders (ISO 32000-2 §7.11.6, Adobe
 * extension level 3): the catalog's /Collection, a tree of folder dictionaries under /Folders, and
 * the files in the EmbeddedFiles name tree, where a key "<7>report.pdf" puts report.pdf into the
 * folder with ID 7 and a key without such a prefix into the root folder.
 *
 * An edit reads the whole structure into a model, changes it, and writes the folder tree and the
 * name tree anew (qpdf drops the replaced objects); the embedded data is never copied.
 */

export interface PortfolioFolder {
  id: number;
  name: string;
  parent: PortfolioFolder | undefined;
  children: PortfolioFolder[];
  /** Other entries of the folder dictionary (description, dates, thumbnail, collection item), kept. */
  extra: QDict;
}

export interface PortfolioFile {
  key: string;
  filespec: QValue;
  name: string;
  folder: PortfolioFolder;
  stream: string | undefined;
}

/** A file or a folder ("" file name: the folder with everything in it). Paths are folder names from the root. */
export interface PortfolioSelection {
  path: readonly string[];
  fileName: string;
}

export interface PortfolioNewFile extends NewEmbeddedFile {
  path: readonly string[];
}

export type SortKey = 'fileName' | 'description' | 'size' | 'creationDate' | 'modificationDate' | 'compressedSize' | 'order';

export interface SortCriterion {
  key: SortKey;
  ascending: boolean;
  displayName: string;
}

export interface PortfolioEdit {
  remove?: readonly PortfolioSelection[];
  addFolders?: readonly (readonly string[])[];
  addFiles?: readonly PortfolioNewFile[];
  /** The file shown first; undefined: unchanged (dropped when that file is removed). */
  initial?: PortfolioSelection;
  /** How errors about `initial` name it (e.g. "add.initialFileName"). */
  initialLabel?: string;
  sort?: readonly SortCriterion[];
  now: Date;
}

const MAX_FOLDERS = 100_000;
const MAX_FOLDER_ID = 2_147_483_647;

/** Each sort key: the schema field subtype it sorts by, its default key in the schema and its column label. */
const SORT_FIELDS: Record<SortKey, { subtype: string; key: string; label: string }> = {
  fileName: { subtype: 'F', key: 'FileName', label: 'Name' },
  description: { subtype: 'Desc', key: 'Description', label: 'Description' },
  size: { subtype: 'Size', key: 'Size', label: 'Size' },
  creationDate: { subtype: 'CreationDate', key: 'Created', label: 'Created' },
  modificationDate: { subtype: 'ModDate', key: 'Modified', label: 'Modified' },
  compressedSize: { subtype: 'CompressedSize', key: 'CompressedSize', label: 'Compressed size' },
  // No predefined field holds the order files were added in: a number field of the collection items.
  order: { subtype: 'N', key: 'Order', label: 'Order' },
};

class PortfolioModel {
  readonly byId = new Map<number, PortfolioFolder>();
  private nextId: number;
  /** Whether the document had a folder tree, or one was created. */
  hasFolders: boolean;

  constructor(
    readonly root: PortfolioFolder,
    readonly files: PortfolioFile[],
    hadFolders: boolean,
  ) {
    const visit = (folder: PortfolioFolder): void => {
      this.byId.set(folder.id, folder);
      folder.children.forEach(visit);
    };
    visit(root);
    this.nextId = this.maxId + 1;
    this.hasFolders = hadFolders;
  }

  folder(path: readonly string[], create: boolean, now: Date): PortfolioFolder | undefined {
    let folder = this.root;
    for (const segment of path) {
      let child = folder.children.find((c) => c.name === segment);
      if (!child) {
        if (!create) return undefined;
        if (this.nextId > MAX_FOLDER_ID || this.byId.size >= MAX_FOLDERS) throw new DocumentEditError('tooLarge', 'The portfolio has too many folders.');
        child = { id: this.nextId++, name: segment, parent: folder, children: [], extra: { '/CreationDate': text(pdfDate(now)), '/ModDate': text(pdfDate(now)) } };
        folder.children.push(child);
        this.byId.set(child.id, child);
        this.hasFolders = true;
      }
      folder = child;
    }
    return folder;
  }

  keyFor(folder: PortfolioFolder, name: string): string {
    return folder === this.root ? name : `<${folder.id}>${name}`;
  }

  contains(ancestor: PortfolioFolder, folder: PortfolioFolder): boolean {
    for (let f: PortfolioFolder | undefined = folder; f; f = f.parent) if (f === ancestor) return true;
    return false;
  }

  /** The files a selection names; throws invalidOption when the folder or file does not exist. */
  select(selection: PortfolioSelection, what: string): PortfolioFile[] {
    const folder = this.folder(selection.path, false, new Date());
    const shown = `/${selection.path.join('/')}`;
    if (!folder) throw new DocumentEditError('invalidOption', `${what}: the portfolio has no folder ${JSON.stringify(shown)}`);
    if (selection.fileName === '') return this.files.filter((file) => this.contains(folder, file.folder));
    const found = this.files.filter((file) => file.folder === folder && file.name === selection.fileName);
    if (found.length === 0) throw new DocumentEditError('invalidOption', `${what}: the portfolio has no file ${JSON.stringify(selection.fileName)} in ${JSON.stringify(shown)}`);
    return found;
  }

  /** Removes the selected files, and for a folder selection the folder itself (never the root). */
  remove(selection: PortfolioSelection, what: string): void {
    const doomed = new Set(this.select(selection, what));
    this.files.splice(0, this.files.length, ...this.files.filter((file) => !doomed.has(file)));
    if (selection.fileName !== '' || selection.path.length === 0) {
      if (selection.path.length === 0 && selection.fileName === '') this.root.children.splice(0).forEach((child) => this.forget(child));
      return;
    }
    const folder = this.folder(selection.path, false, new Date())!;
    folder.parent!.children.splice(folder.parent!.children.indexOf(folder), 1);
    this.forget(folder);
  }

  private forget(folder: PortfolioFolder): void {
    this.byId.delete(folder.id);
    folder.children.forEach((child) => this.forget(child));
  }

  pathOf(folder: PortfolioFolder): string[] {
    const path: string[] = [];
    for (let f: PortfolioFolder | undefined = folder; f && f !== this.root; f = f.parent) path.unshift(f.name);
    return path;
  }

  get maxId(): number {
    let max = 0;
    for (const id of this.byId.keys()) if (id > max) max = id;
    return max;
  }
}

interface ReadPortfolio {
  objects: PdfObjects;
  catalogRef: string;
  catalog: QDict;
  collection: QDict | undefined;
  tree: EmbeddedFilesTree;
  model: PortfolioModel;
}

async function readPortfolio(input: string, context: EditContext, readOnly = false): Promise<ReadPortfolio> {
  const objects = await PdfObjects.open(context.qpdf, input, context.call, context.scratch, { readOnly });
  const { ref: catalogRef, dict } = await objects.catalog();
  const catalog = { ...dict };
  const collection = await objects.dict(catalog['/Collection']);
  await prefetchFolders(objects, collection?.['/Folders']);
  const tree = await readEmbeddedFiles(objects, catalog);

  const rootDict = await objects.dict(collection?.['/Folders']);
  const root = rootDict ? readFolders(objects, rootDict) : { id: 0, name: '', parent: undefined, children: [], extra: {} };
  const byId = new Map<number, PortfolioFolder>();
  const index = (folder: PortfolioFolder): void => {
    byId.set(folder.id, folder);
    folder.children.forEach(index);
  };
  index(root);
  const files: PortfolioFile[] = tree.entries.map((entry) => {
    const match = /^<(\d+)>([\s\S]*)$/.exec(entry.key);
    const folder = (match && byId.get(Number(match[1]))) || root;
    return { key: entry.key, filespec: entry.filespec, name: entry.name, folder, stream: entry.stream };
  });
  return { objects, catalogRef, catalog, collection, tree, model: new PortfolioModel(root, files, rootDict !== undefined) };
}

/**
 * Fetches the folder dictionaries: a round per step along /Child and /Next links, all known links in
 * one qpdf run. Siblings form a linked list, so a long list would take a run per sibling; after a
 * few rounds every object of the file is read at once instead.
 */
async function prefetchFolders(objects: PdfObjects, root: QValue | undefined): Promise<void> {
  let frontier = isRef(root) ? [root] : [];
  const seen = new Set(frontier);
  for (let round = 0; frontier.length > 0; round++) {
    if (round === 12) {
      await objects.loadAll();
      return;
    }
    await objects.fetch(frontier);
    const next: string[] = [];
    for (const ref of frontier) {
      const folder = asDict(objects.peek(ref));
      for (const link of [folder?.['/Child'], folder?.['/Next']]) {
        if (isRef(link) && !seen.has(link)) {
          seen.add(link);
          next.push(link);
        }
      }
    }
    frontier = next;
  }
}

/** The folder tree from the loaded objects; folders met twice (a cycle) or with a duplicate ID are skipped. */
function readFolders(objects: PdfObjects, rootDict: QDict): PortfolioFolder {
  const seenIds = new Set<number>();
  const seenDicts = new Set<QDict>();
  const make = (dict: QDict, parent: PortfolioFolder | undefined, depth: number): PortfolioFolder | undefined => {
    const id = asNumber(dict['/ID']);
    if (seenDicts.has(dict) || depth > 256 || seenDicts.size > MAX_FOLDERS) return undefined;
    seenDicts.add(dict);
    const folderId = id !== undefined && Number.isInteger(id) && id >= 0 && !seenIds.has(id) ? id : undefined;
    if (folderId === undefined && parent) return undefined;
    const resolvedId = folderId ?? 0;
    seenIds.add(resolvedId);
    const extra: QDict = {};
    for (const key of ['/Desc', '/CreationDate', '/ModDate', '/CI', '/Thumb']) if (dict[key] !== undefined) extra[key] = dict[key]!;
    const folder: PortfolioFolder = { id: resolvedId, name: asText(objects.peek(dict['/Name'])) ?? '', parent, children: [], extra };
    for (let child = asDict(objects.peek(dict['/Child'])); child && folder.children.length < MAX_FOLDERS; child = asDict(objects.peek(child['/Next']))) {
      if (seenDicts.has(child)) break;
      const made = make(child, folder, depth + 1);
      if (made) folder.children.push(made);
    }
    return folder;
  };
  return make(rootDict, undefined, 0)!;
}

/** Applies `edit` and writes the result. */
export async function editPortfolio(input: string, output: string, edit: PortfolioEdit, context: EditContext): Promise<void> {
  const { objects, catalogRef, catalog, collection: existing, tree, model } = await readPortfolio(input, context);
  const update = objects.update();

  if ((edit.sort || edit.remove) && !existing) {
    throw new DocumentEditError('invalidOption', `${edit.sort ? 'sort' : 'remove'}: the document is not a portfolio (add files to it first)`);
  }
  for (const [index, selection] of (edit.remove ?? []).entries()) model.remove(selection, `remove.selection[${index}]`);
  for (const path of edit.addFolders ?? []) model.folder(path, true, edit.now);

  // Each new file gets a collection item with the next order number (the "order" sort key).
  const ciRefs = model.files.map((file) => asDict(objects.peek(file.filespec))?.['/CI']).filter((ci): ci is string => isRef(ci));
  await objects.fetch(ciRefs);
  let order = highestOrder(objects, model);
  let creators = false;
  for (const file of edit.addFiles ?? []) {
    const folder = model.folder(file.path, true, edit.now)!;
    const spec = addFileSpec(update, { ...file, collectionItem: { ...(file.collectionItem ?? {}), '/Order': ++order } });
    if (file.collectionItem?.['/Creator'] !== undefined) creators = true;
    const doomed = model.files.findIndex((f) => f.folder === folder && f.name === file.name);
    if (doomed !== -1) model.files.splice(doomed, 1);
    model.files.push({ key: model.keyFor(folder, file.name), filespec: spec, name: file.name, folder, stream: undefined });
  }
  // Keys follow the folders (a file's key names its folder's ID).
  for (const file of model.files) file.key = model.keyFor(file.folder, file.name);

  const collection: QDict = { ...(existing ?? { '/View': '/D' }), '/Type': '/Collection' };
  let schema = await schemaOf(objects, collection);
  if (!existing) schema = defaultSchema();
  if (creators && !Object.values(schema).some((field) => asName(asDict(field)?.['/Subtype']) === 'S' && asText(asDict(field)?.['/N']) === 'Creator')) {
    schema['/Creator'] = { '/Type': '/CollectionField', '/Subtype': '/S', '/N': text('Creator'), '/O': nextOrder(schema), '/V': true };
  }
  if (edit.sort) {
    applySort(collection, schema, edit.sort);
    if (edit.sort.some((criterion) => criterion.key === 'order')) await numberFiles(objects, update, model);
  }
  if (Object.keys(schema).some((key) => key !== '/Type')) collection['/Schema'] = { '/Type': '/CollectionSchema', ...schema };
  else delete collection['/Schema'];

  const initialKey = edit.initial ? initialFile(model, edit.initial, edit.initialLabel ?? 'initialFileName') : asText(objects.peek(collection['/D']));
  if (initialKey !== undefined && model.files.some((file) => file.key === initialKey)) collection['/D'] = byteString(keyBytes(initialKey));
  else delete collection['/D'];

  if (model.hasFolders) collection['/Folders'] = writeFolders(update, model);
  catalog['/Collection'] = collection;
  writeEmbeddedFiles(
    update,
    catalog,
    tree,
    model.files.map((file) => ({ key: file.key, value: file.filespec })),
  );
  update.set(catalogRef, catalog);

  // A document without pages (toolbox/new) gets a cover sheet: a PDF must have a page.
  const pagesRef = catalog['/Pages'];
  const pages = await objects.dict(pagesRef);
  if (isRef(pagesRef) && pages && (asArray(await objects.resolve(pages['/Kids'])) ?? []).length === 0) await addCoverPage(update, pagesRef, pages, context.scratch('txt'));

  // Collections are PDF 1.7; folders Adobe's extension level 3 of it, which qpdf declares in the
  // catalog's /Extensions when it raises the version.
  await objects.commit(update, output, [`--min-version=${model.hasFolders ? '1.7.3' : '1.7'}`]);
}

function initialFile(model: PortfolioModel, selection: PortfolioSelection, label: string): string {
  if (selection.fileName === '') throw new DocumentEditError('invalidOption', `${label}: required with the initial document's path`);
  const [file] = model.select(selection, label);
  return file!.key;
}

/** The collection's schema with its fields resolved (indirect fields are copied inline). */
async function schemaOf(objects: PdfObjects, collection: QDict): Promise<QDict> {
  const schema = { ...((await objects.dict(collection['/Schema'])) ?? {}) };
  for (const [key, value] of Object.entries(schema)) {
    if (key === '/Type') continue;
    const field = await objects.dict(value);
    if (field) schema[key] = { ...field };
    else delete schema[key];
  }
  return schema;
}

function defaultSchema(): QDict {
  const field = (subtype: string, label: string, order: number): QDict => ({ '/Type': '/CollectionField', '/Subtype': `/${subtype}`, '/N': text(label), '/O': order, '/V': true });
  return {
    '/Type': '/CollectionSchema',
    '/FileName': field('F', 'Name', 0),
    '/Description': field('Desc', 'Description', 1),
    '/Modified': field('ModDate', 'Modified', 2),
    '/Size': field('Size', 'Size', 3),
  };
}

function nextOrder(schema: QDict): number {
  return Math.max(-1, ...Object.values(schema).map((field) => asNumber(asDict(field)?.['/O']) ?? -1)) + 1;
}

/** Sets /Sort from the criteria, adding a schema field for each key the schema does not have. */
function applySort(collection: QDict, schema: QDict, criteria: readonly SortCriterion[]): void {
  if (criteria.length === 0) {
    delete collection['/Sort'];
    return;
  }
  const keys: string[] = [];
  const ascending: boolean[] = [];
  for (const criterion of criteria) {
    const wanted = SORT_FIELDS[criterion.key];
    // "order" is Quire's own number field; the others are found by their predefined subtype.
    let key = Object.keys(schema).find((k) => k !== '/Type' && (criterion.key === 'order' ? k === `/${wanted.key}` : asName(asDict(schema[k])?.['/Subtype']) === wanted.subtype));
    if (!key) {
      key = `/${wanted.key}`;
      schema[key] = { '/Type': '/CollectionField', '/Subtype': `/${wanted.subtype}`, '/N': text(wanted.label), '/O': nextOrder(schema), '/V': true };
    }
    if (criterion.displayName !== '') schema[key] = { ...asDict(schema[key]), '/N': text(criterion.displayName) };
    keys.push(key);
    ascending.push(criterion.ascending);
  }
  collection['/Sort'] = { '/Type': '/CollectionSort', '/S': keys.length === 1 ? keys[0]! : keys, '/A': ascending.length === 1 ? ascending[0]! : ascending };
}

/** Gives every file without an /Order in its collection item the next number, in the current order. */
async function numberFiles(objects: PdfObjects, update: PdfUpdate, model: PortfolioModel): Promise<void> {
  let order = highestOrder(objects, model);
  for (const file of model.files) {
    if (!isRef(file.filespec) || asNumber(collectionItem(objects, file)?.['/Order']) !== undefined) continue;
    const spec = asDict(objects.peek(file.filespec));
    if (!spec) continue;
    const item = update.add({ ...(collectionItem(objects, file) ?? {}), '/Type': '/CollectionItem', '/Order': ++order });
    update.set(file.filespec, { ...spec, '/CI': item });
  }
}

function collectionItem(objects: PdfObjects, file: PortfolioFile): QDict | undefined {
  return asDict(objects.peek(asDict(objects.peek(file.filespec))?.['/CI']));
}

/** The highest /Order of the files' collection items (0 for none). */
function highestOrder(objects: PdfObjects, model: PortfolioModel): number {
  let highest = 0;
  for (const file of model.files) highest = Math.max(highest, asNumber(collectionItem(objects, file)?.['/Order']) ?? 0);
  return highest;
}

/** Writes the folder tree as new objects; returns the root's reference. */
function writeFolders(update: PdfUpdate, model: PortfolioModel): string {
  const refs = new Map<PortfolioFolder, string>();
  const reserve = (folder: PortfolioFolder): void => {
    refs.set(folder, update.reserve());
    folder.children.forEach(reserve);
  };
  reserve(model.root);
  const write = (folder: PortfolioFolder): void => {
    const dict: QDict = { '/Type': '/Folder', '/ID': folder.id, '/Name': text(folder.name), ...folder.extra };
    if (folder.parent) dict['/Parent'] = refs.get(folder.parent)!;
    else dict['/Free'] = model.maxId < MAX_FOLDER_ID ? [model.maxId + 1, MAX_FOLDER_ID] : [];
    if (folder.children.length > 0) dict['/Child'] = refs.get(folder.children[0]!)!;
    const siblings = folder.parent?.children ?? [];
    const next = siblings[siblings.indexOf(folder) + 1];
    if (next) dict['/Next'] = refs.get(next)!;
    update.set(refs.get(folder)!, dict);
    folder.children.forEach(write);
  };
  write(model.root);
  return refs.get(model.root)!;
}

export interface PortfolioExtracted {
  path: string[];
  name: string;
  file: string;
}

/** The data of the selected files (all: no selection), with their folder paths. */
export async function extractPortfolio(input: string, selections: readonly PortfolioSelection[], prefix: string, context: EditContext): Promise<PortfolioExtracted[]> {
  const { objects, model } = await readPortfolio(input, context, true);
  const chosen = selections.length === 0 ? [...model.files] : [...new Set(selections.flatMap((s, i) => model.select(s, `extract.selection[${i}]`)))];
  const withData = chosen.filter((file) => file.stream !== undefined);
  if (withData.length === 0)
    throw new DocumentEditError('invalidOption', selections.length === 0 ? 'extract: the document has no embedded files' : 'extract.selection: the selected files have no embedded data');
  const files = await objects.streamsToFiles(
    withData.map((file) => file.stream!),
    prefix,
  );
  return withData.flatMap((file) => {
    const data = files.get(file.stream!);
    return data ? [{ path: model.pathOf(file.folder), name: file.name, file: data.file }] : [];
  });
}
