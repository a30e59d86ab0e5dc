import type { PDFDocument } from '@cantoo/pdf-lib';
import { PdfContentError } from './errors.js';
import { drawableLines, loadTextFont } from './fonts.js';
import type { LocateOptions } from './font-locator.js';
import { pageFrame } from './geometry.js';
import { addPageContent, artifactOperators, createArtifactForm, findArtifacts, removeArtifacts } from './pagination.js';
import { expandPlaceholders } from './placeholders.js';
import { textOperators } from './text-drawing.js';
import type { Rgb } from './units.js';

export interface HeaderFooterTexts {
  left: string;
  center: string;
  right: string;
}

export interface HeaderFooterSpec {
  header: HeaderFooterTexts;
  footer: HeaderFooterTexts;
  fontName: string;
  size: number;
  color: Rgb;
  underline: boolean;
  /** Points from the edges of the page as displayed. */
  margin: { top: number; bottom: number; left: number; right: number };
  /** 1-based page numbers. */
  pages: readonly number[];
  /** The number shown on the first selected page; later pages count on from there. */
  firstPageNumber: number;
  date: { year: number; month: number; day: number };
  replaceExisting: boolean;
  fonts?: LocateOptions;
}

const KINDS = new Set(['Header', 'Footer'] as const);

/**
 * Adds a header and/or footer to the selected pages: three text slots each (left-aligned at the
 * left margin, centred between the margins, right-aligned at the right margin), placeholders
 * expanded per page, as Acrobat-style /Header and /Footer artifacts. A document that has headers or
 * footers is refused unless `replaceExisting`, which removes them from every page first.
 */
export async function addHeaderFooter(document: PDFDocument, spec: HeaderFooterSpec): Promise<boolean> {
  const pages = document.getPages();
  let removed = false;
  const existing = findArtifacts(document, KINDS);
  if (existing >= 0) {
    if (!spec.replaceExisting) {
      throw new PdfContentError('invalidOptions', `page ${existing + 1} has a header or footer already; set replaceExisting to replace them.`, {
        member: 'headerFooter.add.headerFooterContent.replaceExisting',
      });
    }
    removed = removeArtifacts(document, KINDS);
  }
  // reduce, not Math.min(...pages): a spread of 100,000+ pages overflows the stack.
  const first = spec.pages.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
  const texts = new Map<number, { header: HeaderFooterTexts; footer: HeaderFooterTexts }>();
  for (const number of spec.pages) {
    const values = { page: spec.firstPageNumber + (number - first), pageCount: pages.length, date: spec.date };
    const expand = (slots: HeaderFooterTexts): HeaderFooterTexts => ({
      left: expandPlaceholders(slots.left, values),
      center: expandPlaceholders(slots.center, values),
      right: expandPlaceholders(slots.right, values),
    });
    texts.set(number, { header: expand(spec.header), footer: expand(spec.footer) });
  }
  const all = [...texts.values()].flatMap(({ header, footer }) => [header.left, header.center, header.right, footer.left, footer.center, footer.right].flatMap(drawableLines));
  let font;
  try {
    font = await loadTextFont(document, { name: spec.fontName, bold: false, italic: false }, all, spec.fonts);
  } catch (error) {
    if (error instanceof PdfContentError) {
      const member = error.member === 'name' ? 'headerFooter.add.headerFooterContent.font.name' : 'headerFooter.add.headerFooterContent';
      throw new PdfContentError(error.kind, error.message, { member, cause: error });
    }
    throw error;
  }
  const size = spec.size;
  const lineHeight = (font.ascent - font.descent) * size;
  const style = { font, resourceName: 'F1', size, color: spec.color, underline: spec.underline };

  for (const [number, { header, footer }] of texts) {
    const page = pages[number - 1]!;
    const frame = pageFrame(page);
    const { margin } = spec;
    const slotOperators = (slots: HeaderFooterTexts, place: 'top' | 'bottom'): string => {
      const operators: string[] = [];
      for (const slot of ['left', 'center', 'right'] as const) {
        const lines = drawableLines(slots[slot]);
        if (lines.every((line) => line === '')) continue;
        lines.forEach((line, i) => {
          if (line === '') return;
          const width = font.widthOf(line, size);
          const x = slot === 'left' ? margin.left : slot === 'right' ? frame.width - margin.right - width : margin.left + (frame.width - margin.left - margin.right - width) / 2;
          // Headers hang from the top margin; footers stand on the bottom margin.
          const y = place === 'top' ? frame.height - margin.top - font.ascent * size - i * lineHeight : margin.bottom - font.descent * size + (lines.length - 1 - i) * lineHeight;
          operators.push(textOperators(style, line, x, y));
        });
      }
      return operators.join('\n');
    };
    let content = '';
    for (const [kind, slots, place] of [
      ['Header', header, 'top'],
      ['Footer', footer, 'bottom'],
    ] as const) {
      const operators = slotOperators(slots, place);
      if (!operators) continue;
      // Drawn in the page's displayed coordinates; the form's matrix is the page's rotation.
      const form = createArtifactForm(document, { bbox: [0, 0, frame.width, frame.height], content: operators, resources: { Font: { F1: font.ref } }, kind });
      content += artifactOperators(page, form, kind, frame.toUser);
    }
    if (content) addPageContent(document, page, content, 'foreground');
  }
  return removed;
}

/** Removes every header and footer; true if there was one. */
export function removeHeaderFooter(document: PDFDocument): boolean {
  return removeArtifacts(document, KINDS);
}
