import type { QpdfCall } from '../qpdf.js';
import type { PdfStructureTool } from '../../contracts.js';
import { ObjectFetcher, asArray, asDict, asNumber, isRef, parseJson } from '../qpdf-json.js';
import type { QValue } from '../qpdf-json.js';
import { listPages } from '../page-count.js';
import { readTrailerSize } from '../trailer-reader.js';
import { readDocumentJson } from './document-json.js';

/**
 * Each page's visible size and rotation, read with qpdf JSON. Boxes and /Rotate are inheritable
 * (PDF 32000-1 §7.7.3.4): a page without its own takes the nearest ancestor's in the page tree.
 */
export interface PageGeometry {
  /** Width and height of the crop box (the media box when there is none), unrotated, in points. */
  width: number;
  height: number;
  /** /Rotate normalised to 0, 90, 180 or 270 (other values round down to a multiple of 90). */
  rotation: number;
}

/** Documents with at most this many objects are read in one qpdf run (all dictionaries, no stream data). */
const DUMP_ALL_OBJECTS = 50_000;
const A4 = { width: 595.28, height: 841.89 };

export async function readPageGeometry(qpdf: PdfStructureTool, file: string, call: QpdfCall): Promise<PageGeometry[]> {
  const size = await readTrailerSize(file);
  let pages: string[];
  let fetcher: ObjectFetcher;
  if (size !== undefined && size <= DUMP_ALL_OBJECTS) {
    // The page list from qpdf's walk of the page tree (not --json-key=pages: it loops on outline cycles).
    const [all, listing] = await Promise.all([qpdf.run(['--json=2', '--json-key=qpdf', file], { ...call, maxOutputBytes: 256 * 1024 * 1024 }), listPages(qpdf, file, call)]);
    const parsed = parseJson(all.stdout);
    pages = listing.refs;
    fetcher = new ObjectFetcher(qpdf, file, call);
    fetcher.absorb(asDict(asArray(parsed.qpdf)?.[1]) ?? {}, true);
  } else {
    const document = await readDocumentJson(qpdf, file, call, { pages: true });
    ({ pages, fetcher } = document);
    // Pages first, then their ancestors level by level (a page tree is a few levels deep).
    let wanted = pages;
    for (let depth = 0; wanted.length > 0 && depth < 32; depth++) {
      await fetcher.fetch(wanted);
      wanted = wanted.map((ref) => asDict(fetcher.get(ref))?.['/Parent']).filter((p): p is string => isRef(p) && !fetcher.has(p));
    }
  }
  const boxRefs = new Set<string>();
  const inherited = (page: string, key: string): QValue | undefined => {
    let node: QValue | undefined = page;
    for (let depth = 0; depth < 32 && isRef(node); depth++) {
      const dict = asDict(fetcher.get(node));
      if (!dict) return undefined;
      if (dict[key] !== undefined) return dict[key];
      node = dict['/Parent'];
    }
    return undefined;
  };
  const raw = pages.map((page) => ({
    media: inherited(page, '/MediaBox'),
    crop: inherited(page, '/CropBox'),
    rotate: inherited(page, '/Rotate'),
  }));
  // Boxes given as references (rare) are fetched in one batch.
  for (const entry of raw) for (const value of [entry.media, entry.crop, entry.rotate]) if (isRef(value)) boxRefs.add(value);
  if (boxRefs.size > 0) await fetcher.fetch(boxRefs);
  return raw.map((entry) => {
    const box = rectangle(fetcher.peek(entry.crop)) ?? rectangle(fetcher.peek(entry.media)) ?? A4;
    return { ...box, rotation: normalisedRotation(asNumber(fetcher.peek(entry.rotate)) ?? 0) };
  });
}

function rectangle(value: QValue | undefined): { width: number; height: number } | undefined {
  const numbers = asArray(value)?.map((v) => asNumber(v));
  if (!numbers || numbers.length !== 4 || numbers.some((n) => n === undefined)) return undefined;
  const [x1, y1, x2, y2] = numbers as number[];
  return { width: Math.abs(x2! - x1!), height: Math.abs(y2! - y1!) };
}

export function normalisedRotation(value: number): number {
  const turned = Math.floor(value / 90) * 90;
  return ((turned % 360) + 360) % 360;
}

/** The orientation a reader sees: the box turned by the page's rotation. */
export function displayedOrientation(page: PageGeometry): 'portrait' | 'landscape' {
  const turned = page.rotation === 90 || page.rotation === 270;
  const width = turned ? page.height : page.width;
  const height = turned ? page.width : page.height;
  return width > height ? 'landscape' : 'portrait';
}
