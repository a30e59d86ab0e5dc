import type { PDFDocument, PDFRef } from '@cantoo/pdf-lib';
import { PdfContentError } from './errors.js';
import { drawableLines, loadTextFont, type FontChoice } from './fonts.js';
import type { LocateOptions } from './font-locator.js';
import { concat, drawnSize, pageFrame, placementMatrix, type Anchor } from './geometry.js';
import { embedImage } from './images.js';
import { addPageContent, artifactOperators, createArtifactForm } from './pagination.js';
import { textOperators } from './text-drawing.js';
import { num, type Rgb } from './units.js';

/** Where a watermark goes, lengths in points (see `Placement`). */
export interface WatermarkPosition {
  anchor: Anchor;
  x: number;
  y: number;
  /** 0 = not forced. */
  width: number;
  height: number;
  aspectRatio: boolean;
}

export interface TextWatermark {
  text: string;
  font: FontChoice;
  size: number;
  color: Rgb;
  /** 0-1. */
  opacity: number;
  outline: boolean;
  position: WatermarkPosition;
}

export interface ImageWatermark {
  bytes: Buffer;
  /** 0-1. */
  opacity: number;
  /** Percent of the natural size; 0 = 100. */
  scale: number;
  position: WatermarkPosition;
}

export interface WatermarkSpec {
  /** 1-based page numbers. */
  pages: readonly number[];
  /** Degrees, clockwise. */
  angle: number;
  text?: TextWatermark;
  image?: ImageWatermark;
  /** A scratch file path for decoding the image. */
  scratchPath: string;
  fonts?: LocateOptions;
}

interface PreparedForm {
  ref: PDFRef;
  naturalWidth: number;
  naturalHeight: number;
  position: WatermarkPosition;
  scale: number;
}

/**
 * Stamps a text and/or image watermark over the selected pages: one form XObject per watermark
 * (shared by all pages), placed on each page relative to what a reader shows (CropBox, /Rotate).
 * The image goes first, the text over it.
 */
export async function addWatermark(document: PDFDocument, spec: WatermarkSpec): Promise<void> {
  const forms: PreparedForm[] = [];
  if (spec.image) forms.push(await imageForm(document, spec.image, spec.scratchPath));
  if (spec.text) forms.push(await textForm(document, spec.text, spec.fonts));
  const pages = document.getPages();
  for (const number of spec.pages) {
    const page = pages[number - 1]!;
    const frame = pageFrame(page);
    let operators = '';
    for (const form of forms) {
      const size = drawnSize({ width: form.naturalWidth, height: form.naturalHeight }, form.position, form.scale);
      const placement = placementMatrix({
        naturalWidth: form.naturalWidth,
        naturalHeight: form.naturalHeight,
        width: size.width,
        height: size.height,
        angle: spec.angle,
        anchor: form.position.anchor,
        x: form.position.x,
        y: form.position.y,
        areaWidth: frame.width,
        areaHeight: frame.height,
      });
      operators += artifactOperators(page, form.ref, 'Watermark', concat(placement, frame.toUser));
    }
    addPageContent(document, page, operators, 'foreground');
  }
}

function opacityState(opacity: number): Record<string, unknown> | undefined {
  return opacity < 1 ? { GS1: { Type: 'ExtGState', ca: Number(num(opacity)), CA: Number(num(opacity)) } } : undefined;
}

async function textForm(document: PDFDocument, spec: TextWatermark, fonts: LocateOptions | undefined): Promise<PreparedForm> {
  const lines = drawableLines(spec.text);
  if (lines.every((line) => line.trim() === '')) throw new PdfContentError('invalidOptions', 'the watermark text is empty.', { member: 'text.text' });
  let font;
  try {
    font = await loadTextFont(document, spec.font, lines, fonts);
  } catch (error) {
    // The font locator names the font ("name") or nothing (then the text is what cannot be shown).
    if (error instanceof PdfContentError) throw new PdfContentError(error.kind, error.message, { member: error.member === 'name' ? 'text.font.name' : 'text.text', cause: error });
    throw error;
  }
  const size = spec.size;
  const lineHeight = (font.ascent - font.descent) * size;
  const widths = lines.map((line) => font.widthOf(line, size));
  const width = widths.reduce((a, b) => Math.max(a, b), 1);
  const height = lineHeight * lines.length;
  const state = opacityState(spec.opacity);
  const operators = [state ? '/GS1 gs' : ''];
  lines.forEach((line, i) => {
    if (line === '') return;
    // Lines centred on each other; the block's bottom-left corner at the origin.
    const baseline = height - font.ascent * size - i * lineHeight;
    operators.push(textOperators({ font, resourceName: 'F1', size, color: spec.color, outline: spec.outline }, line, (width - widths[i]!) / 2, baseline));
  });
  // Room for strokes (outline, synthetic bold) and italic slant beyond the advance widths.
  const pad = size * 0.25;
  const ref = createArtifactForm(document, {
    bbox: [-pad, -pad, width + pad, height + pad],
    content: operators.filter(Boolean).join('\n'),
    resources: { Font: { F1: font.ref }, ...(state ? { ExtGState: state } : {}) },
    kind: 'Watermark',
  });
  return { ref, naturalWidth: width, naturalHeight: height, position: spec.position, scale: 100 };
}

async function imageForm(document: PDFDocument, spec: ImageWatermark, scratchPath: string): Promise<PreparedForm> {
  const image = await embedImage(document.context, spec.bytes, scratchPath);
  const state = opacityState(spec.opacity);
  const content = `${state ? '/GS1 gs ' : ''}q ${num(image.width)} 0 0 ${num(image.height)} 0 0 cm /Im1 Do Q`;
  const ref = createArtifactForm(document, {
    bbox: [0, 0, image.width, image.height],
    content,
    resources: { XObject: { Im1: image.ref }, ...(state ? { ExtGState: state } : {}) },
    kind: 'Watermark',
  });
  return { ref, naturalWidth: image.width, naturalHeight: image.height, position: spec.position, scale: spec.scale };
}
