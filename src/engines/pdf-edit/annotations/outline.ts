import { PDFDict, PDFName, PDFRef, type PDFDocument } from '@cantoo/pdf-lib';
import { buildActions, type ActionSpec } from './actions.js';
import { invalid } from './errors.js';
import { numberOf, rgb, textOf, textString } from './pdf-values.js';

/**
 * The document outline (bookmarks) as a tree in memory: read from /Outlines once, changed, and
 * written back with every link (/Parent, /First, /Last, /Prev, /Next) and /Count recomputed, so the
 * result is consistent whatever state the input was in. Items keep all their other entries.
 */

export interface OutlineItemSpec {
  itemName?: string;
  path?: string;
  pathPosition?: 'before' | 'inplace' | 'after';
  actions?: ActionSpec[];
  bold?: boolean;
  italic?: boolean;
  color?: string;
  isOpen?: boolean;
}

interface OutlineNode {
  dict: PDFDict;
  ref: PDFRef;
  children: OutlineNode[];
  open: boolean;
}

/** Outlines deeper or larger than this are not walked further (a cycle or a hostile file). */
const MAX_ITEMS = 200_000;
const MAX_DEPTH = 256;

export class OutlineEditor {
  private root: OutlineNode | undefined;

  constructor(private readonly document: PDFDocument) {
    this.root = this.read();
  }

  /** Item titles along the tree, for messages and tests. */
  get itemCount(): number {
    let count = 0;
    const walk = (node: OutlineNode) => node.children.forEach((child) => (count++, walk(child)));
    if (this.root) walk(this.root);
    return count;
  }

  clear(): void {
    if (this.root) this.root.children = [];
  }

  remove(path: string | undefined, field: string): void {
    const segments = splitPath(path ?? '');
    if (segments.length === 0) throw invalid(field, 'required: the path of the item to remove, e.g. "/Chapter 1".');
    const found = this.find(segments);
    if (!found) throw invalid(field, `the outline has no item "${path}".`);
    found.parent.children.splice(found.index, 1);
  }

  add(spec: OutlineItemSpec, field: string): void {
    const title = spec.itemName ?? '';
    if (title.trim() === '') throw invalid(`${field}.itemName`, 'required: the title of the item.');
    const { context } = this.document;
    const dict = context.obj({ Title: textString(title) });
    const color = rgb(spec.color, '#000000');
    if (color.some((c) => c !== 0)) dict.set(PDFName.of('C'), context.obj(color));
    const style = (spec.italic ? 1 : 0) | (spec.bold ? 2 : 0);
    if (style !== 0) dict.set(PDFName.of('F'), context.obj(style));
    const action = buildActions(this.document, spec.actions, `${field}.actions`);
    if (action) dict.set(PDFName.of('A'), action);
    const node: OutlineNode = { dict, ref: context.register(dict), children: [], open: spec.isOpen ?? false };

    const root = this.ensureRoot();
    const segments = splitPath(spec.path ?? '');
    const position = spec.pathPosition ?? 'inplace';
    if (segments.length === 0) {
      if (position === 'before') root.children.unshift(node);
      else root.children.push(node);
      return;
    }
    const found = this.find(segments);
    if (!found) throw invalid(`${field}.path`, `the outline has no item "${spec.path}".`);
    if (position === 'inplace') found.node.children.push(node);
    else found.parent.children.splice(position === 'before' ? found.index : found.index + 1, 0, node);
  }

  /** Writes the tree back (or removes /Outlines when it is empty). */
  finish(): void {
    const root = this.root;
    if (!root) return;
    const catalog = this.document.catalog;
    if (root.children.length === 0) {
      catalog.delete(PDFName.of('Outlines'));
      if (catalog.lookup(PDFName.of('PageMode')) === PDFName.of('UseOutlines')) catalog.delete(PDFName.of('PageMode'));
      return;
    }
    root.dict.set(PDFName.of('Type'), PDFName.of('Outlines'));
    this.link(root, undefined);
    catalog.set(PDFName.of('Outlines'), root.ref);
  }

  private link(node: OutlineNode, parent: OutlineNode | undefined): number {
    const { dict, children } = node;
    const set = (key: string, value: PDFRef | undefined) => (value ? dict.set(PDFName.of(key), value) : dict.delete(PDFName.of(key)));
    if (parent) set('Parent', parent.ref);
    set('First', children[0]?.ref);
    set('Last', children.at(-1)?.ref);
    let visible = 0;
    children.forEach((child, index) => {
      child.dict.set(PDFName.of('Parent'), node.ref);
      const prev = children[index - 1]?.ref;
      const next = children[index + 1]?.ref;
      if (prev) child.dict.set(PDFName.of('Prev'), prev);
      else child.dict.delete(PDFName.of('Prev'));
      if (next) child.dict.set(PDFName.of('Next'), next);
      else child.dict.delete(PDFName.of('Next'));
      const below = this.link(child, node);
      visible += 1 + (child.open ? below : 0);
    });
    // /Count: for the root the visible items; for an item the visible descendants when open, negative when closed.
    if (children.length === 0) dict.delete(PDFName.of('Count'));
    else dict.set(PDFName.of('Count'), this.document.context.obj(!parent || node.open ? visible : -visible));
    return visible;
  }

  private ensureRoot(): OutlineNode {
    if (!this.root) {
      const dict = this.document.context.obj({ Type: 'Outlines' });
      this.root = { dict, ref: this.document.context.register(dict), children: [], open: true };
    }
    return this.root;
  }

  private find(segments: readonly string[]): { node: OutlineNode; parent: OutlineNode; index: number } | undefined {
    let parent = this.root;
    let found: { node: OutlineNode; parent: OutlineNode; index: number } | undefined;
    for (const segment of segments) {
      if (!parent) return undefined;
      const children: OutlineNode[] = parent.children;
      let index = children.findIndex((child) => titleOf(child) === segment);
      if (index < 0) index = children.findIndex((child) => titleOf(child).trim() === segment.trim());
      if (index < 0) return undefined;
      found = { node: children[index]!, parent, index };
      parent = children[index];
    }
    return found;
  }

  private read(): OutlineNode | undefined {
    const { context } = this.document;
    const rootValue = this.document.catalog.get(PDFName.of('Outlines'));
    const rootDict = rootValue instanceof PDFRef ? context.lookup(rootValue) : rootValue;
    if (!(rootDict instanceof PDFDict)) return undefined;
    const root: OutlineNode = { dict: rootDict, ref: rootValue instanceof PDFRef ? rootValue : context.register(rootDict), children: [], open: true };
    // The root counts as seen: an item whose /First or /Next leads back to it would make it its own child.
    const seen = new Set<PDFRef>([root.ref]);
    const readChildren = (node: OutlineNode, depth: number) => {
      let next = node.dict.get(PDFName.of('First'));
      while (next instanceof PDFRef && !seen.has(next) && seen.size < MAX_ITEMS && depth < MAX_DEPTH) {
        seen.add(next);
        const dict = context.lookup(next);
        if (!(dict instanceof PDFDict)) break;
        const child: OutlineNode = { dict, ref: next, children: [], open: (numberOf(dict.lookup(PDFName.of('Count'))) ?? 0) > 0 };
        node.children.push(child);
        readChildren(child, depth + 1);
        next = dict.get(PDFName.of('Next'));
      }
    };
    readChildren(root, 0);
    return root;
  }
}

function titleOf(node: OutlineNode): string {
  return textOf(node.dict.lookup(PDFName.of('Title'))) ?? '';
}

/** "/Chapter 1/Section 2" → ["Chapter 1", "Section 2"]; "\/" stands for a slash inside a title. */
export function splitPath(path: string): string[] {
  const segments: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i++) {
    const char = path[i]!;
    if (char === '\\' && path[i + 1] === '/') {
      current += '/';
      i++;
    } else if (char === '/') {
      segments.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  segments.push(current);
  // The leading slash (and a trailing one) leave empty segments.
  return segments.filter((segment, index) => segment !== '' || (index !== 0 && index !== segments.length - 1));
}
