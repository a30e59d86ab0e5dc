import { PDFName, type PDFContext, type PDFDict, type PDFObject, type PDFRef } from '@cantoo/pdf-lib';
import type { Box } from './geometry.js';
import { n } from './pdf-values.js';

/**
 * Appearance streams: form XObjects whose BBox is the annotation's /Rect in page space (so the
 * viewer's mapping of BBox onto Rect is the identity), drawn with plain content-stream text.
 */

export interface AppearanceResources {
  fonts?: Record<string, PDFRef>;
  xobjects?: Record<string, PDFRef>;
  /** 0..1; also written to the annotation's /CA, but not every viewer applies that to an appearance. */
  opacity?: number;
  blendMode?: 'Multiply';
}

/** Registers a form XObject and returns its reference. */
export function formXObject(context: PDFContext, bbox: Box, content: string, resources: AppearanceResources = {}): PDFRef {
  const resourceDict: Record<string, PDFObject | Record<string, unknown>> = {};
  if (resources.fonts && Object.keys(resources.fonts).length > 0) resourceDict.Font = context.obj(resources.fonts);
  if (resources.xobjects && Object.keys(resources.xobjects).length > 0) resourceDict.XObject = context.obj(resources.xobjects);
  const translucent = resources.opacity !== undefined && resources.opacity < 1;
  let prefix = '';
  if (translucent || resources.blendMode) {
    const state: Record<string, PDFObject> = { Type: PDFName.of('ExtGState') };
    if (translucent) {
      state.CA = context.obj(resources.opacity!);
      state.ca = context.obj(resources.opacity!);
    }
    if (resources.blendMode) state.BM = PDFName.of(resources.blendMode);
    resourceDict.ExtGState = context.obj({ GS0: context.obj(state) });
    prefix = '/GS0 gs\n';
  }
  const stream = context.flateStream(prefix + content, {
    Type: 'XObject',
    Subtype: 'Form',
    FormType: 1,
    BBox: bbox.map((value) => Number(n(value))),
    Matrix: [1, 0, 0, 1, 0, 0],
    Resources: context.obj(resourceDict as Record<string, PDFObject>),
  });
  return context.register(stream);
}

/** Sets /AP << /N ref >> (and /D, /R removed: they would show the old look on hover). */
export function setNormalAppearance(context: PDFContext, annotation: PDFDict, ref: PDFRef | undefined, extra: Record<string, PDFRef> = {}): void {
  if (!ref) {
    annotation.delete(PDFName.of('AP'));
    return;
  }
  annotation.set(PDFName.of('AP'), context.obj({ N: ref, ...extra }));
}

export const fillColor = (c: readonly number[]): string => `${c.map(n).join(' ')} rg`;
export const strokeColor = (c: readonly number[]): string => `${c.map(n).join(' ')} RG`;

export function rectPath(box: Box): string {
  return `${n(box[0])} ${n(box[1])} ${n(box[2] - box[0])} ${n(box[3] - box[1])} re`;
}

/** An ellipse inscribed in the box, as four Bézier curves. */
export function ellipsePath(box: Box): string {
  const k = 0.5523;
  const cx = (box[0] + box[2]) / 2;
  const cy = (box[1] + box[3]) / 2;
  const rx = (box[2] - box[0]) / 2;
  const ry = (box[3] - box[1]) / 2;
  return [
    `${n(cx + rx)} ${n(cy)} m`,
    `${n(cx + rx)} ${n(cy + k * ry)} ${n(cx + k * rx)} ${n(cy + ry)} ${n(cx)} ${n(cy + ry)} c`,
    `${n(cx - k * rx)} ${n(cy + ry)} ${n(cx - rx)} ${n(cy + k * ry)} ${n(cx - rx)} ${n(cy)} c`,
    `${n(cx - rx)} ${n(cy - k * ry)} ${n(cx - k * rx)} ${n(cy - ry)} ${n(cx)} ${n(cy - ry)} c`,
    `${n(cx + k * rx)} ${n(cy - ry)} ${n(cx + rx)} ${n(cy - k * ry)} ${n(cx + rx)} ${n(cy)} c`,
    'h',
  ].join('\n');
}

/** Rounded rectangle (for stamps and note icons). */
export function roundedRectPath(box: Box, radius: number): string {
  const [x1, y1, x2, y2] = box;
  const r = Math.max(0, Math.min(radius, (x2 - x1) / 2, (y2 - y1) / 2));
  const k = 0.5523 * r;
  return [
    `${n(x1 + r)} ${n(y1)} m`,
    `${n(x2 - r)} ${n(y1)} l`,
    `${n(x2 - r + k)} ${n(y1)} ${n(x2)} ${n(y1 + r - k)} ${n(x2)} ${n(y1 + r)} c`,
    `${n(x2)} ${n(y2 - r)} l`,
    `${n(x2)} ${n(y2 - r + k)} ${n(x2 - r + k)} ${n(y2)} ${n(x2 - r)} ${n(y2)} c`,
    `${n(x1 + r)} ${n(y2)} l`,
    `${n(x1 + r - k)} ${n(y2)} ${n(x1)} ${n(y2 - r + k)} ${n(x1)} ${n(y2 - r)} c`,
    `${n(x1)} ${n(y1 + r)} l`,
    `${n(x1)} ${n(y1 + r - k)} ${n(x1 + r - k)} ${n(y1)} ${n(x1 + r)} ${n(y1)} c`,
    'h',
  ].join('\n');
}

export function dashPattern(style: 'solid' | 'dashed' | undefined, dash: number, gap: number): string {
  return style === 'dashed' ? `[${n(dash)} ${n(gap)}] 0 d` : '[] 0 d';
}
