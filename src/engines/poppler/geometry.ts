import { runTool, type ToolLimits } from './tool.js';

/** A page as viewers show it: the crop box, turned by /Rotate. Lengths in points. */
export interface PageGeometry {
  /** 1-based page number in the file. */
  page: number;
  /** /Rotate normalised to 0, 90, 180 or 270 (clockwise). */
  rotation: number;
  /** The crop box in PDF user space: lower-left and upper-right corners. */
  cropBox: { x1: number; y1: number; x2: number; y2: number };
  /** Width and height of the page as shown (the crop box, with width and height swapped for 90 and 270). */
  width: number;
  height: number;
}

/** `pdfinfo -box` of pages first..last: crop box and rotation of each (pdfinfo's "size" is the crop box). */
export async function pageGeometry(file: string, first: number, last: number, limits: ToolLimits): Promise<PageGeometry[]> {
  return (await documentInfo(file, first, last, limits)).pages;
}

/** The geometry of pages first..last and the document's title ("" when it has none). */
export async function documentInfo(file: string, first: number, last: number, limits: ToolLimits): Promise<{ title: string; pages: PageGeometry[] }> {
  const result = await runTool('pdfinfo', ['-enc', 'UTF-8', '-f', String(first), '-l', String(last), '-box', file], {
    ...limits,
    maxOutputBytes: 64 * 1024 * 1024,
  });
  const text = result.stdout.toString('utf8');
  return { title: /^Title:\s+(.*)$/m.exec(text)?.[1]?.trim() ?? '', pages: parsePdfinfoPages(text, first, last) };
}

/**
 * Parses the per-page lines. The document information comes first and may hold any text (a title
 * with a line break that imitates "Page 1 rot: 90"), so for each page the last line of a kind wins:
 * poppler's own page lines follow the information block.
 */
export function parsePdfinfoPages(text: string, first: number, last: number): PageGeometry[] {
  const rotation = new Map<number, number>();
  const crop = new Map<number, [number, number, number, number]>();
  for (const line of text.split('\n')) {
    const rot = /^Page\s+(\d+)\s+rot:\s+(-?\d+)\s*$/.exec(line);
    if (rot) {
      rotation.set(Number(rot[1]), ((Number(rot[2]) % 360) + 360) % 360);
      continue;
    }
    const box = /^Page\s+(\d+)\s+CropBox:\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s*$/.exec(line);
    if (box) crop.set(Number(box[1]), [Number(box[2]), Number(box[3]), Number(box[4]), Number(box[5])]);
  }
  const pages: PageGeometry[] = [];
  for (let page = first; page <= last; page++) {
    const [x1, y1, x2, y2] = crop.get(page) ?? [0, 0, 612, 792];
    const turn = rotation.get(page) ?? 0;
    const w = Math.abs(x2 - x1);
    const h = Math.abs(y2 - y1);
    const sideways = turn === 90 || turn === 270;
    pages.push({
      page,
      rotation: turn,
      cropBox: { x1: Math.min(x1, x2), y1: Math.min(y1, y2), x2: Math.max(x1, x2), y2: Math.max(y1, y2) },
      width: sideways ? h : w,
      height: sideways ? w : h,
    });
  }
  return pages;
}

/**
 * A rectangle of PDF user space ([x1 y1 x2 y2], origin bottom-left) in the coordinates poppler's
 * text output uses: origin at the top-left corner of the page as shown (crop box, rotated), y
 * downwards, points.
 */
export function toViewRect(geometry: PageGeometry, rect: readonly [number, number, number, number]): { x: number; y: number; width: number; height: number } {
  const corners = [toViewPoint(geometry, rect[0], rect[1]), toViewPoint(geometry, rect[2], rect[3])];
  const xs = corners.map((c) => c.x);
  const ys = corners.map((c) => c.y);
  const x = Math.min(xs[0]!, xs[1]!);
  const y = Math.min(ys[0]!, ys[1]!);
  return { x: round(x), y: round(y), width: round(Math.max(xs[0]!, xs[1]!) - x), height: round(Math.max(ys[0]!, ys[1]!) - y) };
}

function toViewPoint(geometry: PageGeometry, px: number, py: number): { x: number; y: number } {
  const { cropBox, rotation } = geometry;
  const w = cropBox.x2 - cropBox.x1;
  const h = cropBox.y2 - cropBox.y1;
  const u = px - cropBox.x1;
  const v = cropBox.y2 - py;
  switch (rotation) {
    case 90:
      return { x: h - v, y: u };
    case 180:
      return { x: w - u, y: h - v };
    case 270:
      return { x: v, y: w - u };
    default:
      return { x: u, y: v };
  }
}

export function round(value: number, decimals = 3): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
