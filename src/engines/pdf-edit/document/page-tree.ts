import { asArray, asDict, asName, asNumber, isRef, type QDict, type QValue } from '../../pdf/qpdf-json.js';
import type { PdfObjects } from './pdf-objects.js';
import { asRectangle } from './pdf-values.js';

/** A page as the editors need it: its object, its visible box and rotation (inherited values resolved). */
export interface PageInfo {
  ref: string;
  dict: QDict;
  /** The crop box (the visible area), else the media box, as [llx, lly, urx, ury]. */
  box: [number, number, number, number];
  rotate: number;
}

const MAX_DEPTH = 64;
const A4: [number, number, number, number] = [0, 0, 595.28, 841.89];

/**
 * The pages in document order, by walking the page tree from the catalog. Nodes are fetched level
 * by level (one qpdf run per tree level), then walked from the cache; a node met twice is skipped.
 */
export async function readPages(objects: PdfObjects, pagesRoot: QValue | undefined): Promise<PageInfo[]> {
  if (!isRef(pagesRoot)) return [];
  const root = pagesRoot;
  const seen = new Set<string>([root]);
  let level = [root];
  await objects.fetch(level);
  for (let depth = 0; level.length > 0 && depth < MAX_DEPTH; depth++) {
    const kids = level.flatMap((ref) => (asArray(asDict(objects.peek(ref))?.['/Kids']) ?? []).filter((kid): kid is string => isRef(kid) && !seen.has(kid)));
    kids.forEach((kid) => seen.add(kid));
    await objects.fetch(kids);
    level = kids;
  }
  const pages: PageInfo[] = [];
  const walked = new Set<string>();
  const walk = (ref: string, inherited: { media?: [number, number, number, number]; crop?: [number, number, number, number]; rotate?: number }, depth: number): void => {
    if (walked.has(ref) || depth > MAX_DEPTH) return;
    walked.add(ref);
    const node = asDict(objects.peek(ref));
    if (!node) return;
    const media = asRectangle(objects.peek(node['/MediaBox'])) ?? inherited.media;
    const crop = asRectangle(objects.peek(node['/CropBox'])) ?? inherited.crop;
    const rotate = asNumber(objects.peek(node['/Rotate'])) ?? inherited.rotate;
    const kids = asArray(node['/Kids']);
    if (asName(node['/Type']) === 'Page' || !kids) {
      pages.push({ ref, dict: node, box: crop ?? media ?? A4, rotate: (((rotate ?? 0) % 360) + 360) % 360 });
      return;
    }
    for (const kid of kids) if (isRef(kid)) walk(kid, { ...(media ? { media } : {}), ...(crop ? { crop } : {}), ...(rotate !== undefined ? { rotate } : {}) }, depth + 1);
  };
  walk(root, {}, 0);
  return pages;
}
