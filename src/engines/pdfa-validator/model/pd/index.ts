/**
 * The PD layer of the validator's document model: veraPDF's PD* objects (the document, pages,
 * annotations, actions, output intents, graphics states, XObjects, groups, ICC profiles…) with their
 * property names, computed from their meaning in ISO 19005-1/2/3 and ISO 32000-1 (README.md here has
 * the table). Nothing is ported from veraPDF (GPL/MPL).
 *
 * Output intents come first: the profile variable gOutputCS is computed over ICCOutputProfile and read
 * by the rules of later objects (annotations, device colour spaces).
 */
import type { CosDocument } from '../../cos/index.js';
import type { ContentCache } from '../content-cache.js';
import type { LocatedObject } from '../cos/object.js';
import { ActionCollector } from './actions.js';
import { type AnnotationWalk, annotationObjects } from './annotations.js';
import { documentObjects, formFields, outputIntentObjects } from './document.js';
import { contentObjects, newContentUses } from './content.js';
import { fontObjects } from './fonts.js';
import { embeddedFileObjects, findColourArrays, graphicsObjects } from './graphics.js';
import { pageObject } from './page.js';
import { pageTree } from './pages.js';
import { signatureObjects } from './signature.js';
import { type StructureWalk, structureObjects } from './structure.js';

/**
 * The PD types every object of which pdObjects yields, with every property any rule of the eight
 * profiles reads on them. A type the profiles have rules on but that is not here stays not-checked.
 */
export const PD_TYPES: readonly string[] = [
  'PDDocument',
  'PDAcroForm',
  'PDFormField',
  'OutputIntents',
  'PDOutputIntent',
  'ICCOutputProfile',
  'ICCInputProfile',
  'ICCProfile',
  'PDOCConfig',
  'PDPerms',
  'PDSigRef',
  'PDPage',
  'PDAnnot',
  'PDWidgetAnnot',
  'PDAction',
  'PDNamedAction',
  'PDExtGState',
  'PDHalftone',
  'PDXObject',
  'PDXImage',
  'PDMaskImage',
  'PDXForm',
  'PDGroup',
  'Op_q_gsave',
  'Op_Undefined',
  'PDContentStream',
  'PDDeviceGray',
  'PDDeviceRGB',
  'PDDeviceCMYK',
  'PDICCBasedCMYK',
  'PDSeparation',
  'PDDeviceN',
  'PDFont',
  'PDSimpleFont',
  'PDTrueTypeFont',
  'PDType0Font',
  'PDType1Font',
  'PDCIDFont',
  'Glyph',
  'PDCMap',
  'PDReferencedCMap',
  'CMapFile',
  'TrueTypeFontProgram',
  'JPEG2000',
  'EmbeddedFile',
  'SENonStandard',
  'PDSignature',
  'PKCSDataObject',
];

export interface PdWalkState {
  /** Why some PD objects may be missing (a bound reached, a content stream not decoded): the document is not seen whole. */
  incomplete: string[];
}

/** `content`: the content streams' tokens, kept for the COS walk that follows (content-cache.ts). */
export function* pdObjects(doc: CosDocument, state: PdWalkState, part: 1 | 2 | 3, content: ContentCache): Generator<LocatedObject> {
  yield* outputIntentObjects(doc);
  const fields = formFields(doc);
  if (!fields.complete) state.incomplete.push('the form field tree was cut at its bound');
  yield* documentObjects(doc, fields);
  yield* signatureObjects(doc, fields);

  const tree = pageTree(doc);
  if (!tree.complete) state.incomplete.push('the page tree was cut at its bound');
  const actions = new ActionCollector(doc);
  const catalog = doc.catalog ?? undefined;
  actions.add(catalog?.entries.get('OpenAction'), 'OpenAction');
  actions.addAdditional(catalog?.entries.get('AA'), 'catalog');
  actions.addOutlines();
  for (const f of fields.fields) actions.addAdditional(f.dict.entries.get('AA'), f.path);
  for (const page of tree.pages) {
    actions.addAdditional(page.dict.entries.get('AA'), page.path);
    yield pageObject(doc, page);
  }
  const annotations: AnnotationWalk = { complete: true };
  yield* annotationObjects(doc, tree.pages, actions, annotations);
  if (!annotations.complete) state.incomplete.push('a page has more annotations than the bound');
  yield* actions.objects();
  if (!actions.complete) state.incomplete.push('the actions were cut at their bound');

  const colourArrays = findColourArrays(doc);
  const consistent = new Map<string, boolean>();
  for (const [name, pairs] of colourArrays.separations) consistent.set(name, pairs.size <= 1);
  const uses = newContentUses();
  yield* contentObjects(doc, tree.pages, uses, { consistent }, content);
  state.incomplete.push(...uses.incomplete);
  yield* graphicsObjects(doc, uses, colourArrays.iccBased);
  yield* fontObjects(doc, uses.fonts);
  yield* embeddedFileObjects(doc, colourArrays.embeddedFiles);
  const structure: StructureWalk = { complete: true };
  yield* structureObjects(doc, part, structure);
  if (!structure.complete) state.incomplete.push('the structure tree was cut at its bound');
}
