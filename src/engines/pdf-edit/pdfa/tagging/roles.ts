import type { Rect } from '../../redaction/geometry.js';
import { roundSize, type Block, type MarkerKind } from './blocks.js';
import type { Unit } from './page-units.js';
import type { Table } from './tables.js';

/**
 * The standard structure types (ISO 32000-1 §14.8.4) a page's blocks and images become:
 *
 * - headings by size: the body size is the size most of the document's characters have; a block of
 *   at most a few lines at least 15 % larger is a heading, and the distinct heading sizes, largest
 *   first, are H1…H6 (sizes beyond the sixth are H6). A heading set in bold at body size is a P;
 * - consecutive list items of one marker kind are one L of LI, each with its Lbl (when the marker is
 *   a run of its own) and LBody;
 * - images (XObjects, inline images, forms that show images only) are Figures, with the text of a
 *   caption next to them ("Figure 3: …") as the alternate text, or else "Figure on page N";
 * - forms that show text are a P of their own; forms of paths only, and painted paths, are artifacts.
 *
 * - tables found by tables.ts are a Table of TR, each with its TH (a header row's cells, Scope
 *   Column) or TD.
 */

export type LeafRole = 'P' | 'H1' | 'H2' | 'H3' | 'H4' | 'H5' | 'H6' | 'Lbl' | 'LBody' | 'Figure' | 'TH' | 'TD';

export interface Leaf {
  role: LeafRole;
  /** Indexes into the page's units. */
  units: number[];
  alt?: string;
  box?: Rect;
}

export type PageNode = { kind: 'leaf'; leaf: Leaf } | { kind: 'list'; items: { label?: Leaf; body: Leaf }[] } | { kind: 'table'; rows: Leaf[][] };

/** A heading is at least this much larger than the body text… */
const HEADING_RATIO = 1.15;
/** …and this short. */
const MAX_HEADING_CHARS = 300;
const MAX_ALT_CHARS = 250;
const CAPTION = /^(fig(ure|\.)|image|illustration|photo|chart|diagram|abb(ildung|\.)|bild)\s*[\p{N}\p{Lu}]/iu;

/** The body size and the heading sizes (largest first) of a document's blocks. */
export function sizeScale(pages: readonly (readonly Block[])[]): { body: number; headings: number[] } {
  const weight = new Map<number, number>();
  for (const blocks of pages) for (const block of blocks) weight.set(block.size, (weight.get(block.size) ?? 0) + block.text.length);
  let body = 0;
  let best = -1;
  for (const [size, w] of weight) {
    if (w > best || (w === best && size < body)) {
      body = size;
      best = w;
    }
  }
  const headings = new Set<number>();
  for (const blocks of pages) for (const block of blocks) if (isHeading(block, body)) headings.add(roundSize(block.size));
  return { body, headings: [...headings].sort((a, b) => b - a) };
}

function isHeading(block: Block, body: number): boolean {
  return body > 0 && block.size >= body * HEADING_RATIO && block.text.length <= MAX_HEADING_CHARS && block.text !== '';
}

export function pageNodes(units: readonly Unit[], blocks: readonly Block[], scale: { body: number; headings: number[] }, pageNumber: number, tables: readonly Table[] = []): PageNode[] {
  const placed: { first: number; node: PageNode }[] = tables.map((table) => ({
    first: Math.min(...table.rows.flat(2)),
    node: { kind: 'table', rows: table.rows.map((row, r) => row.map((cell) => leaf(r === 0 && table.header ? 'TH' : 'TD', cell))) },
  }));
  let list: { kind: MarkerKind; node: Extract<PageNode, { kind: 'list' }> } | undefined;
  for (const block of blocks) {
    const first = block.units[0]!;
    if (isHeading(block, scale.body)) {
      const level = Math.min(6, scale.headings.indexOf(roundSize(block.size)) + 1);
      placed.push({ first, node: { kind: 'leaf', leaf: { role: `H${Math.max(1, level)}` as LeafRole, units: block.units } } });
      list = undefined;
      continue;
    }
    if (block.marker) {
      const { labelUnit } = block.marker;
      const item =
        labelUnit === undefined
          ? { body: leaf('LBody', block.units) }
          : {
              label: leaf('Lbl', [labelUnit]),
              body: leaf(
                'LBody',
                block.units.filter((u) => u !== labelUnit),
              ),
            };
      if (list?.kind === block.marker.kind) list.node.items.push(item);
      else {
        list = { kind: block.marker.kind, node: { kind: 'list', items: [item] } };
        placed.push({ first, node: list.node });
      }
      continue;
    }
    list = undefined;
    placed.push({ first, node: { kind: 'leaf', leaf: leaf('P', block.units) } });
  }
  units.forEach((unit, index) => {
    if (unit.kind === 'image' || (unit.kind === 'form' && unit.shows === 'image')) placed.push({ first: index, node: { kind: 'leaf', leaf: { role: 'Figure', units: [index], box: unit.box } } });
    else if (unit.kind === 'form' && unit.shows === 'text') placed.push({ first: index, node: { kind: 'leaf', leaf: leaf('P', [index]) } });
  });
  placed.sort((a, b) => a.first - b.first);
  const nodes = placed.map((p) => p.node);
  nameFigures(nodes, blocks, pageNumber);
  return nodes;
}

function leaf(role: LeafRole, units: number[]): Leaf {
  return { role, units };
}

/** Each Figure's alternate text: a caption right before or after it, or else where it is. */
function nameFigures(nodes: readonly PageNode[], blocks: readonly Block[], pageNumber: number): void {
  const textOf = new Map<number, string>(blocks.map((b) => [b.units[0]!, b.text]));
  const caption = (node: PageNode | undefined): string | undefined => {
    if (node?.kind !== 'leaf' || node.leaf.role === 'Figure') return undefined;
    const text = textOf.get(node.leaf.units[0]!);
    return text !== undefined && CAPTION.test(text) ? text.slice(0, MAX_ALT_CHARS) : undefined;
  };
  nodes.forEach((node, i) => {
    if (node.kind === 'leaf' && node.leaf.role === 'Figure') node.leaf.alt = caption(nodes[i + 1]) ?? caption(nodes[i - 1]) ?? `Figure on page ${pageNumber}`;
  });
}
