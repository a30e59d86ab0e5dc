import type { PDFDocument, PDFRef } from '@cantoo/pdf-lib';
import { PdfContentError } from './errors.js';
import { concat, pageFrame, placementMatrix, type Anchor } from './geometry.js';
import { embedImage } from './images.js';
import { visibilityGroup } from './optional-content.js';
import { addPageContent, artifactOperators, createArtifactForm, findArtifacts, removeArtifacts } from './pagination.js';
import { num, rgbOperands, type Rgb } from './units.js';

export interface BackgroundSettings {
  /** 1-based page numbers. */
  pages: readonly number[];
  /** 0-1. */
  opacity: number;
  anchor: Anchor;
  /** Points, as for watermarks. */
  x: number;
  y: number;
  /** Scale the layer relative to the page (true) or to its own size (false). */
  relativeToPage: boolean;
  /** Degrees, clockwise. */
  rotation: number;
  /** Percent. */
  scale: number;
  onScreen: boolean;
  onPrint: boolean;
}

export interface BackgroundLayer {
  color?: Rgb;
  image?: Buffer;
  settings: BackgroundSettings;
  /** The option the layer came from, for errors (`background.add.imageBackground`). */
  member: string;
}

const KIND = new Set(['Background'] as const);

/**
 * Puts colour and/or image layers under the content of the selected pages (Acrobat-style
 * backgrounds). A document that has backgrounds already is refused unless `replaceExisting`, which
 * first removes them from every page. Returns whether anything was removed.
 */
export async function addBackgrounds(document: PDFDocument, layers: readonly BackgroundLayer[], replaceExisting: boolean, scratchPath: string): Promise<boolean> {
  const pages = document.getPages();
  let removed = false;
  const existing = findArtifacts(document, KIND);
  if (existing >= 0) {
    if (!replaceExisting) {
      throw new PdfContentError('invalidOptions', `page ${existing + 1} has a background already; set replaceExisting to replace the document's backgrounds.`, {
        member: `${layers[0]?.member ?? 'background.add'}.settings.replaceExisting`,
      });
    }
    removed = removeArtifacts(document, KIND);
  }
  const prepared: { form: PDFRef; natural: { width: number; height: number } | undefined; settings: BackgroundSettings }[] = [];
  for (const layer of layers) {
    const { settings } = layer;
    const optionalContent = settings.onScreen && settings.onPrint ? undefined : visibilityGroup(document, 'Background', settings);
    const state = settings.opacity < 1 ? { ExtGState: { GS1: { Type: 'ExtGState', ca: Number(num(settings.opacity)), CA: Number(num(settings.opacity)) } } } : {};
    const gs = settings.opacity < 1 ? '/GS1 gs ' : '';
    if (layer.color) {
      // A unit square, stretched to its size on each page.
      const form = createArtifactForm(document, { bbox: [0, 0, 1, 1], content: `${gs}${rgbOperands(layer.color)} rg 0 0 1 1 re f`, resources: state, kind: 'Background', optionalContent });
      prepared.push({ form, natural: undefined, settings });
    }
    if (layer.image) {
      const image = await embedImage(document.context, layer.image, scratchPath);
      const form = createArtifactForm(document, {
        bbox: [0, 0, image.width, image.height],
        content: `${gs}q ${num(image.width)} 0 0 ${num(image.height)} 0 0 cm /Im1 Do Q`,
        resources: { XObject: { Im1: image.ref }, ...state },
        kind: 'Background',
        optionalContent,
      });
      prepared.push({ form, natural: { width: image.width, height: image.height }, settings });
    }
  }
  const byPage = new Map<number, string>();
  for (const { form, natural, settings } of prepared) {
    for (const number of settings.pages) {
      const page = pages[number - 1]!;
      const frame = pageFrame(page);
      const factor = settings.scale / 100;
      let width: number;
      let height: number;
      if (!natural) {
        // A colour has no size of its own: it is always relative to the page.
        width = frame.width * factor;
        height = frame.height * factor;
      } else {
        const fit = settings.relativeToPage ? Math.min(frame.width / natural.width, frame.height / natural.height) : 1;
        width = natural.width * fit * factor;
        height = natural.height * fit * factor;
      }
      if (width <= 0 || height <= 0) continue;
      const placement = placementMatrix({
        naturalWidth: natural?.width ?? 1,
        naturalHeight: natural?.height ?? 1,
        width,
        height,
        angle: settings.rotation,
        anchor: settings.anchor,
        x: settings.x,
        y: settings.y,
        areaWidth: frame.width,
        areaHeight: frame.height,
      });
      byPage.set(number, (byPage.get(number) ?? '') + artifactOperators(page, form, 'Background', concat(placement, frame.toUser)));
    }
  }
  for (const [number, operators] of byPage) addPageContent(document, pages[number - 1]!, operators, 'background');
  return removed;
}

/** Removes every background; true if there was one. */
export function removeBackgrounds(document: PDFDocument): boolean {
  return removeArtifacts(document, KIND);
}
