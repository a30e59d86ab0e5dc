import { PDFDocument, PDFName, type PDFPage, type PDFRef } from '@cantoo/pdf-lib';
import { readFile } from 'node:fs/promises';
import { PdfContentError } from '../pdf-edit/content/errors.js';
import { loadPdf, savePdf } from '../pdf-edit/pdf-lib-io.js';
import { pageFrame } from '../pdf-edit/content/geometry.js';
import { addForeground, addResource, pageResources } from '../pdf-edit/content/page-content.js';
import { num, type Metrics } from '../pdf-edit/content/units.js';
import { type CodeShape, formContent } from './encode.js';
import { fitText, TEXT_FONT } from './human-readable.js';
import { stampThroughCos } from './cos-stamp.js';
import { saveIncrementally } from './incremental-save.js';
import { stampMatrix } from './placement.js';

/** webPDF's `Operation_Rectangle`. */
export interface CodeRectangle {
  x: number;
  y: number;
  width: number;
  height: number;
  metrics: Metrics;
  /** `user`: from the top-left of the page as displayed (its /Rotate applied), y down; `pdf`: from the bottom-left of the unrotated page, y up. */
  coordinates: 'user' | 'pdf';
}

/** One code to stamp: its shape, the 1-based pages and where it goes on each. */
export interface CodeStamp {
  shape: CodeShape;
  pages: readonly number[];
  position: CodeRectangle;
  /** Degrees, clockwise as seen. */
  rotation: number;
  /**
   * Instead of drawing on existing pages: a new page of the shape's size, holding only the shape,
   * inserted before page `pages[0]` (`before`) or after the last page (`end`); `position` is then
   * not used (the Swiss QR bill's pdf.mode insertBefore / appendAtEnd).
   */
  newPage?: 'before' | 'end';
}

/**
 * Stamps codes onto the pages of `input`, writing `output`. Each code is one form XObject (its
 * rectangles, on a white ground that includes its quiet zone) shared by every page it goes on, drawn
 * over the page's content through `addForeground` (the page's own graphics state isolated first):
 * vector paths, a few dozen bytes per page beyond the form itself. The result is `input` with an
 * incremental update holding only the new and changed objects (incremental-save.ts); a file whose
 * end cannot take one is saved in full.
 */
export async function stampCodes(input: string, output: string, stamps: (pageCount: number) => readonly CodeStamp[]): Promise<void> {
  // Most files: only the objects a stamp needs are read (cos-stamp.ts); the rest through pdf-lib.
  if (await stampThroughCos(input, output, stamps)) return;
  const document = await loadPdf(input);
  let pageCount: number;
  try {
    pageCount = document.getPageCount();
  } catch (error) {
    throw new PdfContentError('damaged', 'the PDF has no readable catalog or page tree.', { cause: error });
  }
  const firstNew = document.context.largestObjectNumber + 1;
  const touched = await placeStamps(document, stamps(pageCount));
  if (!(await saveIncrementally(document, { path: input, bytes: await readFile(input) }, output, touched, firstNew))) await savePdf(document, output);
}

/** A new one-page document of `size` points ([width, height]) with the codes on its page. */
export async function newDocumentWithCodes(output: string, size: [number, number], stamps: readonly CodeStamp[]): Promise<void> {
  const document = await PDFDocument.create({ updateMetadata: false });
  document.addPage(size);
  await placeStamps(document, stamps);
  await savePdf(document, output);
}

/** Draws `stamps` into an open document (also used for a document made from scratch); returns the pages it drew on or added. */
export async function placeStamps(document: PDFDocument, given: readonly CodeStamp[]): Promise<PDFPage[]> {
  const stamps = given.map(fitText);
  const touched: PDFPage[] = [];
  const pages = document.getPages();
  const perPage = new Map<number, string[]>();
  const forms = new Map<CodeShape, PDFRef>();
  const formOf = async (shape: CodeShape) => {
    let form = forms.get(shape);
    if (!form) forms.set(shape, (form = await codeForm(document, shape)));
    return form;
  };
  for (const stamp of stamps) {
    if (stamp.newPage) continue;
    const form = await formOf(stamp.shape);
    for (const number of stamp.pages) {
      const page = pages[number - 1];
      if (!page) continue;
      const name = addResource(pageResources(page), 'XObject', 'QBc', form);
      const matrix = stampMatrix(pageFrame(page), stamp);
      const operators = perPage.get(number) ?? [];
      operators.push(`q ${matrix.map(num).join(' ')} cm /${name} Do Q`);
      perPage.set(number, operators);
    }
  }
  for (const [number, operators] of perPage) {
    // A page's few operators are not worth a deflate call each (500 pages: a third of the stamping time).
    const ref = document.context.register(document.context.stream(`${operators.join('\n')}\n`));
    addForeground(document, pages[number - 1]!, ref);
    touched.push(pages[number - 1]!);
  }
  // New pages last, so that the page numbers above are the document's own.
  for (const stamp of stamps) {
    if (!stamp.newPage) continue;
    const before = stamp.newPage === 'before' ? pages[(stamp.pages[0] ?? 1) - 1] : undefined;
    const index = before ? document.getPages().indexOf(before) : document.getPageCount();
    const page = document.insertPage(index, [stamp.shape.width, stamp.shape.height]);
    const name = addResource(pageResources(page), 'XObject', 'QBc', await formOf(stamp.shape));
    page.node.set(PDFName.of('Contents'), document.context.register(document.context.stream(`q /${name} Do Q\n`)));
    touched.push(page);
  }
  return touched;
}

async function codeForm(document: PDFDocument, shape: CodeShape): Promise<PDFRef> {
  if (shape.page) {
    // The page becomes a form XObject (pdf-lib writes it when the document is saved).
    const [embedded] = await document.embedPdf(shape.page, [0]);
    return embedded!.ref;
  }
  const context = document.context;
  return context.register(
    context.flateStream(formContent(shape), {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: [0, 0, Number(num(shape.width)), Number(num(shape.height))],
      Resources: shape.labels?.length ? { Font: { F1: TEXT_FONT } } : {},
    }),
  );
}
