import { setImmediate as nextTurn } from 'node:timers/promises';
import { PDFArray, PDFDict, PDFName, PDFRef, PDFString, PDFHexString, type PDFDocument, type PDFPageLeaf } from '@cantoo/pdf-lib';
import { pageContent } from '../../redaction/content-redactor.js';
import { textBlocks, type Block } from './blocks.js';
import { AutoTagError } from './errors.js';
import { markContent, type Label } from './mark-content.js';
import { pageUnits, type UnitLimits } from './page-units.js';
import { pageNodes, sizeScale, type Leaf, type PageNode } from './roles.js';
import { writeStructureTree, type TaggedPage } from './structure-tree.js';
import { pageTables, type Table } from './tables.js';

/**
 * Auto-tagging for the PDF/A `a` levels on untagged input: a structure tree built from the page
 * content alone (page-units.ts → tables.ts, blocks.ts → roles.ts), the marks written into each page's content
 * (mark-content.ts), the tree with its ParentTree (structure-tree.ts), MarkInfo /Marked true, the
 * document's /Lang, and /Tabs /S on pages with annotations.
 *
 * Two passes over the pages: the first finds the blocks of every page (the body size and heading
 * sizes are the document's), the second marks them; only one page's operations are held at a time.
 * Bounded: bytes and operations per page, operations per document; it yields to the event loop
 * between pages and calls `checkpoint` (the caller's deadline) there.
 */

export interface AutoTagLimits extends UnitLimits {
  /** Operations of all pages together (each pass) at most. */
  maxDocumentOperations: number;
}

export const DEFAULT_AUTO_TAG_LIMITS: AutoTagLimits = {
  maxContentBytes: 32 * 1024 * 1024,
  maxOperations: 1_000_000,
  maxDocumentOperations: 10_000_000,
};

export interface AutoTagOptions {
  /** The document's natural language (catalog /Lang); default: the catalog's own, else `en`. */
  lang?: string;
  limits?: Partial<AutoTagLimits>;
  /** Called between pages: throws to stop (the caller's deadline). */
  checkpoint?: () => void;
}

export interface AutoTagSummary {
  pages: number;
  elements: number;
  headings: number;
  paragraphs: number;
  lists: number;
  tables: number;
  figures: number;
  /** Figures whose alternate text is the generic "Figure on page N" (no caption found). */
  genericAlt: number;
  lang: string;
}

/** Yield to the event loop after this much work. */
const SLICE_MS = 20;

export async function autoTag(document: PDFDocument, options: AutoTagOptions = {}): Promise<AutoTagSummary> {
  return untracked(document, (touched) => tag(document, options, touched));
}

/**
 * pdf-lib records every `set` on a dictionary for an incremental update by searching the whole object
 * graph for the dictionary's owner — an O(objects) search per entry, quadratic over a tree of thousands
 * of new elements (470 ms of 700 for 100 pages). The tagger works with the recording off and marks
 * what it changed itself: every object it created, and the existing ones it touched.
 */
async function untracked<T>(document: PDFDocument, work: (touched: Set<PDFRef>) => Promise<T>): Promise<T> {
  const context = document.context;
  const snapshot = context.snapshot;
  const firstNew = context.largestObjectNumber + 1;
  const touched = new Set<PDFRef>();
  context.snapshot = undefined;
  try {
    return await work(touched);
  } finally {
    context.snapshot = snapshot;
    if (snapshot) {
      for (const ref of touched) snapshot.markRefForSave(ref);
      for (let n = firstNew; n <= context.largestObjectNumber; n++) snapshot.markRefForSave(PDFRef.of(n));
    }
  }
}

async function tag(document: PDFDocument, options: AutoTagOptions, touched: Set<PDFRef>): Promise<AutoTagSummary> {
  const limits = { ...DEFAULT_AUTO_TAG_LIMITS, ...options.limits };
  const context = document.context;
  const pages = document.getPages();
  let budget = limits.maxDocumentOperations;
  let sliceStart = Date.now();
  const pause = async (): Promise<void> => {
    options.checkpoint?.();
    if (Date.now() - sliceStart >= SLICE_MS) {
      await nextTurn();
      sliceStart = Date.now();
    }
  };
  const unitsOf = (leaf: PDFPageLeaf, index: number) => {
    let bytes: Uint8Array;
    try {
      bytes = pageContent(context, leaf.get(PDFName.of('Contents')));
    } catch (error) {
      throw new AutoTagError('unsupported', `page ${index + 1}: its content cannot be decoded (${(error as Error).message})`);
    }
    try {
      const read = pageUnits(context, bytes, leaf.Resources(), limits);
      budget -= read.ops.length;
      if (budget < 0) throw new AutoTagError('tooLarge', `the pages have more than ${limits.maxDocumentOperations} content operations together, more than the auto-tagger reads`);
      return read;
    } catch (error) {
      if (error instanceof AutoTagError) throw new AutoTagError(error.kind, `page ${index + 1}: ${error.message}`);
      throw error;
    }
  };

  // Pass 1: every page's tables and blocks, for the document's body and heading sizes.
  const blocksOf: Block[][] = [];
  const tablesOf: Table[][] = [];
  for (const [index, page] of pages.entries()) {
    const { units } = unitsOf(page.node, index);
    const { tables, inTables } = pageTables(units);
    tablesOf.push(tables);
    blocksOf.push(textBlocks(units, inTables));
    await pause();
  }
  const scale = sizeScale(blocksOf);

  // Pass 2: the roles, the marks, the new content.
  budget = limits.maxDocumentOperations;
  const tagged: TaggedPage[] = [];
  const summary: AutoTagSummary = { pages: pages.length, elements: 0, headings: 0, paragraphs: 0, lists: 0, tables: 0, figures: 0, genericAlt: 0, lang: '' };
  for (const [index, page] of pages.entries()) {
    const { bytes, ops, units } = unitsOf(page.node, index);
    const nodes = pageNodes(units, blocksOf[index]!, scale, index + 1, tablesOf[index]);
    const labels = new Map<number, Label>();
    const leaves: Leaf[] = [];
    for (const leaf of leavesOf(nodes)) {
      leaves.push(leaf);
      for (const unit of leaf.units) labels.set(unit, { element: leaves.length - 1, tag: leaf.role });
    }
    units.forEach((unit, i) => {
      if (unit.kind === 'artifact' || (unit.kind === 'form' && unit.shows === 'paths')) labels.set(i, 'artifact');
    });
    const marked = markContent(bytes, ops, units, (i) => labels.get(i));
    const mcidsOf = new Map<Leaf, number[]>();
    marked.elementOfMcid.forEach((element, mcid) => {
      const leaf = leaves[element]!;
      mcidsOf.set(leaf, [...(mcidsOf.get(leaf) ?? []), mcid]);
    });
    page.node.set(PDFName.of('Contents'), context.register(context.flateStream(marked.bytes)));
    touched.add(page.ref);
    const annotations = pageAnnotations(page.node, touched);
    if (annotations.any) page.node.set(PDFName.of('Tabs'), PDFName.of('S'));
    tagged.push({ ref: page.ref, nodes, mcidsOf, mcidCount: marked.elementOfMcid.length, links: annotations.links });
    count(summary, nodes, mcidsOf);
    await pause();
  }
  summary.elements = writeStructureTree(context, document.catalog, tagged).elements;
  for (const page of tagged) for (const link of page.links) touched.add(link);
  const catalogRef = context.trailerInfo.Root;
  if (catalogRef instanceof PDFRef) touched.add(catalogRef);
  summary.lang = languageTag(options.lang) ?? languageTag(catalogLang(document)) ?? 'en';
  document.catalog.set(PDFName.of('Lang'), PDFString.of(summary.lang));
  return summary;
}

function* leavesOf(nodes: readonly PageNode[]): Generator<Leaf> {
  for (const node of nodes) {
    if (node.kind === 'leaf') yield node.leaf;
    else if (node.kind === 'table') for (const row of node.rows) yield* row;
    else
      for (const item of node.items) {
        if (item.label) yield item.label;
        yield item.body;
      }
  }
}

function count(summary: AutoTagSummary, nodes: readonly PageNode[], mcidsOf: Map<Leaf, number[]>): void {
  for (const node of nodes) {
    if (node.kind === 'list' || node.kind === 'table') {
      summary[node.kind === 'list' ? 'lists' : 'tables']++;
      continue;
    }
    if (!mcidsOf.has(node.leaf)) continue;
    const role = node.leaf.role;
    if (role === 'Figure') {
      summary.figures++;
      if (node.leaf.alt?.startsWith('Figure on page ')) summary.genericAlt++;
    } else if (role === 'P') summary.paragraphs++;
    else if (role.startsWith('H')) summary.headings++;
  }
}

/**
 * The page's annotations (Popups excepted: they belong to their parent): whether it has any, and its
 * indirect link annotations. A stale /StructParent on the others would point into the new tree: dropped.
 */
function pageAnnotations(page: PDFPageLeaf, touched: Set<PDFRef>): { any: boolean; links: PDFRef[] } {
  const annots = page.lookup(PDFName.of('Annots'));
  const links: PDFRef[] = [];
  let any = false;
  if (!(annots instanceof PDFArray)) return { any, links };
  for (let i = 0; i < annots.size(); i++) {
    const annotation = annots.lookup(i);
    if (!(annotation instanceof PDFDict) || annotation.get(PDFName.of('Subtype')) === PDFName.of('Popup')) continue;
    any = true;
    const ref = annots.get(i);
    if (annotation.get(PDFName.of('Subtype')) === PDFName.of('Link') && ref instanceof PDFRef) links.push(ref);
    else if (annotation.has(PDFName.of('StructParent'))) {
      annotation.delete(PDFName.of('StructParent'));
      if (ref instanceof PDFRef) touched.add(ref);
      const array = page.get(PDFName.of('Annots'));
      if (array instanceof PDFRef) touched.add(array); // a direct annotation lives in the array
    }
  }
  return { any, links };
}

function catalogLang(document: PDFDocument): string | undefined {
  const lang = document.catalog.lookup(PDFName.of('Lang'));
  return lang instanceof PDFString || lang instanceof PDFHexString ? lang.decodeText() : undefined;
}

/**
 * A language tag every part's check accepts (ISO 19005-1 §6.8.4 allows letters only in subtags,
 * parts 2 and 3 digits too): the tag itself, else its primary language, else nothing.
 */
export function languageTag(value: string | undefined): string | undefined {
  const tag = value?.trim();
  if (!tag) return undefined;
  if (/^[a-zA-Z]{1,8}(-[a-zA-Z]{1,8})*$/.test(tag)) return tag;
  const primary = /^([a-zA-Z]{2,8})[-_]/.exec(tag)?.[1];
  return primary;
}
