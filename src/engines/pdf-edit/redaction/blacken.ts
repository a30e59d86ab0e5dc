import type { PDFDocument, PDFObject, PDFPageLeaf } from '@cantoo/pdf-lib';
import { annotationRect, removeAnnotations } from './annotations.js';
import { ContentRedactor, pageContent } from './content-redactor.js';
import { RedactionError } from './errors.js';
import { overlapsStrictly, type Rect } from './geometry.js';
import { IDENTITY } from '../matrix.js';
import { overlayOf, withOverlayFont } from './overlay.js';
import { N } from '../pdf-objects.js';
import { affordableDpi, type RasterJob } from './rasterize.js';
import { fillRgb, redactionMarks, type RedactionMark } from './redaction-areas.js';
import { pruneReplacedXObjects } from './resource-pruning.js';
import { flateStream, StreamDecodeError } from './stream-codec.js';

/**
 * `blacken` (webPDF `Operation_Blacken`): applies every redaction annotation of the document. On each
 * page with such annotations the content under their areas is removed from the content streams
 * (content-redactor.ts), the areas are filled with each annotation's interior colour, annotations in
 * the areas go (`redactAnnotations`), and the redaction annotations themselves are removed — they
 * have been applied. Pages whose content cannot be edited safely come back as raster jobs: the caller
 * renders them with the boxes painted into the pixels.
 */
export interface BlackenOptions {
  collisionRatio: number;
  redactTexts: boolean;
  redactImages: boolean;
  redactPaths: boolean;
  redactAnnotations: boolean;
}

export interface BlackenResult {
  /** Pages (0-based) that had redaction annotations. */
  pages: number[];
  /** Pages to rasterise instead, with why. */
  raster: (RasterJob & { reason: string })[];
}

/** Resolution of pages rasterised because their content could not be edited. */
export const FALLBACK_DPI = 300;

export async function blacken(document: PDFDocument, options: BlackenOptions, deadline = Number.POSITIVE_INFINITY): Promise<BlackenResult> {
  const context = document.context;
  const catalog = document.catalog;
  const result: BlackenResult = { pages: [], raster: [] };
  const replaced = new Set<PDFObject>();
  for (const [pageIndex, page] of document.getPages().entries()) {
    const leaf = page.node;
    const marks = redactionMarks(context, leaf);
    if (marks.length === 0) continue;
    if (Date.now() > deadline) throw new RedactionError('timeout', `The call ran out of time while redacting page ${pageIndex + 1}.`);
    result.pages.push(pageIndex);
    const areas = marks.flatMap((mark) => mark.areas);
    const fallback = await redactContent(leaf, areas, marks, options, replaced);
    if (fallback !== undefined) {
      result.raster.push({
        pageIndex,
        dpi: affordableDpi(leaf, FALLBACK_DPI),
        boxes: marks.flatMap((mark) => mark.areas.map((rect) => ({ rect, rgb: fillRgb(mark.fill) }))),
        overlay: overlayOf(marks),
        reason: fallback,
      });
    }
    const applied = new Set(marks.map((mark) => mark.annotation.dict));
    removeAnnotations(context, leaf, catalog, (annotation) => {
      if (applied.has(annotation.dict)) return true;
      if (!options.redactAnnotations) return false;
      const rect = annotationRect(context, annotation.dict);
      return rect !== undefined && overlapsStrictly(rect, areas);
    });
    // A thumbnail or application data (e.g. an editor's private copy of the page) would still show it all.
    for (const key of ['Thumb', 'PieceInfo']) leaf.delete(N(key));
  }
  pruneReplacedXObjects(document, replaced);
  return result;
}

/** Edits the page content; returns a reason when it cannot be done safely (the page is then rasterised). */
async function redactContent(leaf: PDFPageLeaf, areas: Rect[], marks: RedactionMark[], options: BlackenOptions, replaced: Set<PDFObject>): Promise<string | undefined> {
  const context = leaf.context;
  const overlay = overlayOf(marks);
  const editing = options.redactTexts || options.redactImages || options.redactPaths;
  let content: Uint8Array;
  try {
    content = pageContent(context, leaf.get(N('Contents')));
  } catch (error) {
    if (error instanceof StreamDecodeError) return `content that cannot be decoded (${error.message})`;
    throw error;
  }
  let body = content;
  if (editing && areas.length > 0) {
    const redactor = new ContentRedactor(
      context,
      { areas, texts: options.redactTexts, images: options.redactImages, paths: options.redactPaths, collisionRatio: options.collisionRatio, replaced },
      leaf.Resources(),
      IDENTITY,
    );
    const edited = await redactor.run(content);
    if (edited.fallback) return edited.fallback;
    body = edited.bytes;
    if (edited.resources) leaf.set(N('Resources'), edited.resources);
  }
  if (overlay.usesFont) leaf.set(N('Resources'), withOverlayFont(context, leaf.Resources()));
  // The old content in q … Q, so that whatever state it leaves does not shift the boxes painted after it.
  const text = Buffer.concat([Buffer.from('q\n'), body, Buffer.from(`\nQ\n${overlay.content}\n`, 'latin1')]);
  leaf.set(N('Contents'), context.register(flateStream(context, text)));
  return undefined;
}
