import { execFileSync } from 'node:child_process';

/**
 * A tagged PDF's logical structure as qpdf sees it (qpdf --json=2, streams decoded): an independent
 * reading of what the auto-tagger wrote — the catalog, the structure elements from StructTreeRoot
 * down, the ParentTree, the pages (StructParents, Tabs, decoded content) and the annotations.
 */

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Obj = { value?: Json; stream?: { dict: Record<string, Json>; data?: string } };

export interface StructNode {
  type: string;
  alt?: string;
  /** Marked-content identifiers directly under the element. */
  mcids: number[];
  /** The page object (e.g. "4 0 R") of the element's content. */
  page?: string;
  /** The annotation an OBJR kid refers to. */
  objr?: string;
  kids: StructNode[];
}

export interface PdfStructure {
  catalog: Record<string, Json>;
  root: Record<string, Json>;
  tree: StructNode[];
  /** ParentTree /Nums as key → value (an array of element refs, or one ref). */
  parentTree: Map<number, Json>;
  pages: { ref: string; dict: Record<string, Json>; content: string }[];
  object(ref: string): Record<string, Json>;
}

export function readStructure(file: string): PdfStructure {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-stream-data=inline', '--decode-level=generalized', file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })) as {
    qpdf: [unknown, Record<string, Obj>];
  };
  const objects = json.qpdf[1];
  const object = (ref: Json | undefined): Record<string, Json> => {
    if (typeof ref !== 'string') return (ref ?? {}) as Record<string, Json>;
    const found = objects[`obj:${ref}`];
    return (found?.stream?.dict ?? found?.value ?? {}) as Record<string, Json>;
  };
  const data = (ref: string): string => Buffer.from(objects[`obj:${ref}`]?.stream?.data ?? '', 'base64').toString('latin1');
  const text = (value: Json | undefined): string | undefined => (typeof value === 'string' && value.startsWith('u:') ? value.slice(2) : undefined);
  const trailer = (objects.trailer as Obj).value as Record<string, Json>;
  const catalog = object(trailer['/Root']);
  const root = object(catalog['/StructTreeRoot']);

  const node = (ref: Json, depth: number): StructNode => {
    const dict = object(ref);
    const out: StructNode = { type: String(dict['/S']).replace(/^\//, ''), mcids: [], kids: [] };
    const alt = text(dict['/Alt']);
    if (alt !== undefined) out.alt = alt;
    if (typeof dict['/Pg'] === 'string') out.page = dict['/Pg'];
    const k = dict['/K'];
    for (const kid of Array.isArray(k) ? k : k === undefined ? [] : [k]) {
      if (typeof kid === 'number') out.mcids.push(kid);
      else if (depth < 64) {
        const kidDict = object(kid);
        if (kidDict['/Type'] === '/OBJR') out.objr = String(kidDict['/Obj']);
        else if (kidDict['/Type'] === '/MCR') out.mcids.push(Number(kidDict['/MCID']));
        else out.kids.push(node(kid, depth + 1));
      }
    }
    return out;
  };
  const rootKids = root['/K'];
  const tree = (Array.isArray(rootKids) ? rootKids : rootKids === undefined ? [] : [rootKids]).map((kid) => node(kid, 0));

  const parentTree = new Map<number, Json>();
  const nums = object(root['/ParentTree'])['/Nums'];
  if (Array.isArray(nums)) for (let i = 0; i + 1 < nums.length; i += 2) parentTree.set(Number(nums[i]), nums[i + 1]!);

  const pages: PdfStructure['pages'] = [];
  const walk = (ref: Json, depth: number): void => {
    const dict = object(ref);
    if (dict['/Type'] === '/Pages' && Array.isArray(dict['/Kids']) && depth < 32) for (const kid of dict['/Kids']) walk(kid, depth + 1);
    else if (typeof ref === 'string') {
      const contents = dict['/Contents'];
      const content = (Array.isArray(contents) ? contents : [contents]).map((c) => (typeof c === 'string' ? data(c) : '')).join('\n');
      pages.push({ ref, dict, content });
    }
  };
  walk(catalog['/Pages']!, 0);
  return { catalog, root, tree, parentTree, pages, object };
}

/** The element types depth first, as "H1", "L(LI(Lbl,LBody),…)" style nesting flattened to a list of paths. */
export function typesOf(nodes: readonly StructNode[]): string[] {
  return nodes.flatMap((n) => [n.type, ...typesOf(n.kids).map((t) => `${n.type}/${t}`)]);
}
