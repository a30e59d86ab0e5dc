import { PDFHexString, PDFString, type PDFContext, type PDFDict, type PDFObject } from '@cantoo/pdf-lib';
import { annotationRect, annotationsOf, type PageAnnotation } from './annotations.js';
import { boundsOf, type Rect } from './geometry.js';
import { N, numbersOf, numberValue, resolve } from '../pdf-objects.js';

/**
 * The redaction annotations of a page (§12.5.6.23): where content is to be removed (/QuadPoints, or
 * /Rect without them) and the interior colour /IC the region is filled with afterwards (absent: left
 * transparent).
 */
export interface RedactionMark {
  annotation: PageAnnotation;
  areas: Rect[];
  /** /IC: 1 (grey), 3 (RGB) or 4 (CMYK) components; undefined: no fill. */
  fill: number[] | undefined;
  /** /OverlayText, with the /DA it is written in and the /Q alignment (0 left, 1 centre, 2 right). */
  overlayText: string | undefined;
  da: string | undefined;
  quadding: number;
}

export function redactionMarks(context: PDFContext, page: PDFDict): RedactionMark[] {
  const marks: RedactionMark[] = [];
  for (const annotation of annotationsOf(context, page)) {
    if (annotation.subtype !== 'Redact') continue;
    const areas: Rect[] = [];
    const quads = numbersOf(context, annotation.dict.get(N('QuadPoints')));
    if (quads && quads.length >= 8 && quads.every(Number.isFinite)) {
      for (let i = 0; i + 8 <= quads.length; i += 8) {
        const q = quads.slice(i, i + 8);
        const box = boundsOf([
          [q[0]!, q[1]!],
          [q[2]!, q[3]!],
          [q[4]!, q[5]!],
          [q[6]!, q[7]!],
        ]);
        if (box) areas.push(box);
      }
    } else {
      const rect = annotationRect(context, annotation.dict);
      if (rect) areas.push(rect);
    }
    const ic = numbersOf(context, annotation.dict.get(N('IC')));
    const fill = ic && [1, 3, 4].includes(ic.length) && ic.every((v) => Number.isFinite(v)) ? ic.map((v) => Math.min(1, Math.max(0, v))) : undefined;
    const overlayText = textOf(resolve(context, annotation.dict.get(N('OverlayText'))));
    const da = textOf(resolve(context, annotation.dict.get(N('DA'))));
    const quadding = numberValue(context, annotation.dict.get(N('Q'))) ?? 0;
    marks.push({ annotation, areas: areas.filter((a) => a.x1 > a.x0 && a.y1 > a.y0), fill, overlayText, da, quadding });
  }
  return marks;
}

/** The fill as RGB bytes for painting into pixels; no fill paints white (the pixels must go either way). */
export function fillRgb(fill: number[] | undefined): [number, number, number] {
  if (!fill) return [255, 255, 255];
  const byte = (v: number): number => Math.round(Math.min(1, Math.max(0, v)) * 255);
  if (fill.length === 1) return [byte(fill[0]!), byte(fill[0]!), byte(fill[0]!)];
  if (fill.length === 3) return [byte(fill[0]!), byte(fill[1]!), byte(fill[2]!)];
  const [c, m, y, k] = fill as [number, number, number, number];
  return [byte((1 - c) * (1 - k)), byte((1 - m) * (1 - k)), byte((1 - y) * (1 - k))];
}

function textOf(value: PDFObject | undefined): string | undefined {
  return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
}
