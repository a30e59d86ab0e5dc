import { PDFArray, PDFName, PDFNull, type PDFDict, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';
import { invalid } from './errors.js';
import { PageGeometry, toPoints, type Metrics } from './geometry.js';
import { dictOf, round, textOf } from './pdf-values.js';
import { requirePageNumber } from './selection.js';

/**
 * `Operation_DestinationEvent` as an explicit destination array ([page /XYZ left top zoom], …) or a
 * named destination. Offsets are distances from the page's edges (of its visible box) in
 * `metrics` units, so the defaults (0) mean "the page's top/left"; they are in unrotated page space,
 * as PDF destinations are.
 */

interface PageOnly {
  page?: number;
}
interface WithMetrics extends PageOnly {
  metrics?: Metrics;
}

export interface DestinationSpec {
  zoomPage?: WithMetrics & { leftOffset?: number; topOffset?: number; zoom?: number };
  fitPage?: PageOnly;
  fitWidth?: WithMetrics & { topOffset?: number };
  fitHeight?: WithMetrics & { leftOffset?: number };
  fitRectangle?: WithMetrics & { leftOffset?: number; topOffset?: number; rightOffset?: number; bottomOffset?: number };
  fitBoundingBox?: PageOnly;
  fitBoundingBoxWidth?: WithMetrics & { topOffset?: number };
  goToNamed?: { name?: string };
}

const KINDS = ['zoomPage', 'fitPage', 'fitWidth', 'fitHeight', 'fitRectangle', 'fitBoundingBox', 'fitBoundingBoxWidth', 'goToNamed'] as const;

export function buildDestination(document: PDFDocument, spec: DestinationSpec | undefined, field: string): PDFObject {
  const given = KINDS.filter((kind) => spec?.[kind] !== undefined);
  if (given.length !== 1) throw invalid(field, `give exactly one of ${KINDS.join(', ')}${given.length > 1 ? ` (not ${given.join(' and ')})` : ''}.`);
  const kind = given[0]!;
  const { context } = document;
  if (kind === 'goToNamed') return namedDestination(document, spec!.goToNamed!.name ?? '', `${field}.goToNamed.name`);
  const options = spec![kind] as WithMetrics & Record<string, number | undefined>;
  const pageNumber = requirePageNumber(options.page, document.getPageCount(), `${field}.${kind}.page`);
  const page = document.getPage(pageNumber - 1);
  const box = new PageGeometry(page).box;
  const units = (key: string) => toPoints(options[key] as number | undefined, options.metrics ?? 'px');
  const left = round(box[0] + units('leftOffset'));
  const top = round(box[3] - units('topOffset'));
  const ref = page.ref;
  switch (kind) {
    case 'zoomPage': {
      const zoom = options.zoom ?? 100;
      return context.obj([ref, PDFName.of('XYZ'), left, top, zoom > 0 ? round(zoom / 100, 4) : PDFNull]);
    }
    case 'fitPage':
      return context.obj([ref, PDFName.of('Fit')]);
    case 'fitWidth':
      return context.obj([ref, PDFName.of('FitH'), top]);
    case 'fitHeight':
      return context.obj([ref, PDFName.of('FitV'), left]);
    case 'fitBoundingBox':
      return context.obj([ref, PDFName.of('FitB')]);
    case 'fitBoundingBoxWidth':
      return context.obj([ref, PDFName.of('FitBH'), top]);
    case 'fitRectangle': {
      const right = round(box[2] - units('rightOffset'));
      const bottom = round(box[1] + units('bottomOffset'));
      if (right <= left || top <= bottom) throw invalid(`${field}.fitRectangle`, 'the offsets leave no rectangle on the page.');
      return context.obj([ref, PDFName.of('FitR'), left, bottom, right, top]);
    }
  }
}

/**
 * A named destination that exists: in the catalog's /Dests dictionary (a name) or its /Names
 * /Dests tree (a string). A name that leads nowhere would make a dead bookmark.
 */
function namedDestination(document: PDFDocument, name: string, field: string): PDFObject {
  if (name.trim() === '') throw invalid(field, 'required: the name of a destination of the document.');
  const { context } = document;
  const catalog = document.catalog;
  const dests = dictOf(context, catalog.get(PDFName.of('Dests')));
  if (dests?.get(PDFName.of(name)) !== undefined) return PDFName.of(name);
  const names = dictOf(context, catalog.get(PDFName.of('Names')));
  const tree = dictOf(context, names?.get(PDFName.of('Dests')));
  // The tree's own key object, so the bytes match whatever encoding the key uses.
  const key = tree ? nameTreeKey(document, tree, name) : undefined;
  if (key) return key;
  throw invalid(field, `the document has no destination named "${name}".`);
}

function nameTreeKey(document: PDFDocument, root: PDFDict, key: string): PDFObject | undefined {
  const { context } = document;
  const seen = new Set<PDFDict>();
  const stack: PDFDict[] = [root];
  while (stack.length > 0 && seen.size < 100_000) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    const pairs = node.lookup(PDFName.of('Names'));
    if (pairs instanceof PDFArray) {
      for (let i = 0; i + 1 < pairs.size(); i += 2) if (textOf(pairs.lookup(i)) === key) return pairs.lookup(i);
    }
    const kids = node.lookup(PDFName.of('Kids'));
    if (kids instanceof PDFArray)
      for (const kid of kids.asArray()) {
        const dict = dictOf(context, kid);
        if (dict) stack.push(dict);
      }
  }
  return undefined;
}
