import { PDFArray, PDFDict, PDFRawStream, PDFRef, PDFStream, type PDFContext, type PDFDocument, type PDFObject, type PDFPageLeaf } from '@cantoo/pdf-lib';
import { annotationRect, annotationsOf, removeAnnotations } from './annotations.js';
import { pageContent } from './content-redactor.js';
import { formatNumber } from './content-lexer.js';
import { transformedBounds } from './geometry.js';
import { matrixOf, IDENTITY } from '../matrix.js';
import { layerVisibility, rewriteMarkedContent, type MarkedContentPolicy } from './marked-content.js';
import { dictValue, freshKey, N, nameValue, numbersOf, numberValue, resolve } from '../pdf-objects.js';
import { decodeStream, deflate, flateStream, StreamDecodeError } from './stream-codec.js';

/**
 * `sanitize` (webPDF `Operation_Sanitize`): removes whole categories of content that can carry
 * information a reader does not see on the page. Each category is one function; `sanitize` runs the
 * chosen ones in an order where none undoes another (forms are flattened before annotations go, layers
 * before pages are rasterised by the caller).
 */
export interface SanitizeCategories {
  actions: boolean;
  annotations: boolean;
  attachments: boolean;
  forms: boolean;
  layers: boolean;
  metadata: boolean;
  outlines: boolean;
  tags: boolean;
}

export function sanitize(document: PDFDocument, categories: SanitizeCategories): void {
  if (categories.actions) removeActions(document);
  if (categories.attachments) removeAttachments(document);
  if (categories.forms) flattenForms(document);
  if (categories.annotations) removeAllAnnotations(document);
  if (categories.layers || categories.tags) {
    rewriteAllContent(document, {
      ...(categories.layers ? { visible: layerVisibility(document.context, document.catalog) } : {}),
      tags: categories.tags,
    });
  }
  if (categories.layers) removeLayers(document);
  if (categories.tags) removeTags(document);
  if (categories.outlines) removeOutlines(document);
  if (categories.metadata) removeMetadata(document);
}

/** Every dictionary of the document, including direct ones nested in indirect objects. */
function forEachDict(context: PDFContext, visit: (dict: PDFDict) => void): void {
  const seen = new Set<PDFObject>();
  const walk = (value: PDFObject, depth: number): void => {
    if (depth > 64 || seen.has(value)) return;
    if (value instanceof PDFStream) return walk(value.dict, depth);
    if (value instanceof PDFDict) {
      seen.add(value);
      visit(value);
      for (const item of value.values()) if (!(item instanceof PDFRef)) walk(item, depth + 1);
    } else if (value instanceof PDFArray) {
      seen.add(value);
      for (let i = 0; i < value.size(); i++) {
        const item = value.get(i);
        if (!(item instanceof PDFRef)) walk(item, depth + 1);
      }
    }
  };
  for (const [, object] of context.enumerateIndirectObjects()) walk(object, 0);
}

function leaves(document: PDFDocument): PDFPageLeaf[] {
  return document.getPages().map((page) => page.node);
}

/** actions: JavaScript, open actions, additional actions, and actions of links, widgets and bookmarks (plain go-to links stay, as destinations). */
function removeActions(document: PDFDocument): void {
  const context = document.context;
  const catalog = document.catalog;
  if (resolve(context, catalog.get(N('OpenAction'))) instanceof PDFDict) catalog.delete(N('OpenAction'));
  const names = dictValue(context, catalog.get(N('Names')));
  names?.delete(N('JavaScript'));
  const form = dictValue(context, catalog.get(N('AcroForm')));
  form?.delete(N('CO'));
  const keepGoTo = (dict: PDFDict): void => {
    const action = dictValue(context, dict.get(N('A')));
    if (!action) return;
    const destination = nameValue(context, action.get(N('S'))) === 'GoTo' ? action.get(N('D')) : undefined;
    dict.delete(N('A'));
    if (destination && !dict.has(N('Dest'))) dict.set(N('Dest'), destination);
  };
  for (const leaf of leaves(document)) for (const annotation of annotationsOf(context, leaf)) keepGoTo(annotation.dict);
  forOutlineItems(context, catalog, keepGoTo);
  forEachDict(context, (dict) => {
    dict.delete(N('AA'));
  });
}

function forOutlineItems(context: PDFContext, catalog: PDFDict, visit: (item: PDFDict) => void): void {
  const root = dictValue(context, catalog.get(N('Outlines')));
  const seen = new Set<PDFDict>();
  const walk = (first: PDFDict | undefined, depth: number): void => {
    for (let item = first; item && !seen.has(item) && depth < 64; item = dictValue(context, item.get(N('Next')))) {
      seen.add(item);
      visit(item);
      walk(dictValue(context, item.get(N('First'))), depth + 1);
    }
  };
  walk(dictValue(context, root?.get(N('First'))), 0);
}

const EMBEDDING_ANNOTATIONS = new Set(['FileAttachment', 'Sound', 'Movie', 'Screen', 'RichMedia', '3D']);

/** attachments: embedded files, associated files, portfolio collections, and annotations that embed media or files. */
function removeAttachments(document: PDFDocument): void {
  const context = document.context;
  const catalog = document.catalog;
  dictValue(context, catalog.get(N('Names')))?.delete(N('EmbeddedFiles'));
  catalog.delete(N('Collection'));
  forEachDict(context, (dict) => {
    dict.delete(N('AF'));
  });
  for (const leaf of leaves(document)) {
    removeAnnotations(context, leaf, catalog, (annotation) => EMBEDDING_ANNOTATIONS.has(annotation.subtype ?? ''));
  }
}

/**
 * forms: every visible widget's appearance is drawn into the page content (the filled-in values stay
 * visible as static content), then widgets, fields, XFA and the AcroForm go.
 */
function flattenForms(document: PDFDocument): void {
  const context = document.context;
  const catalog = document.catalog;
  for (const leaf of leaves(document)) {
    const widgets = annotationsOf(context, leaf).filter((a) => a.subtype === 'Widget');
    if (widgets.length === 0) continue;
    const drawing: string[] = [];
    let xobjects: PDFDict | undefined;
    for (const widget of widgets) {
      const flags = numberValue(context, widget.dict.get(N('F'))) ?? 0;
      if (flags & (2 | 32)) continue; // Hidden, NoView
      const appearance = normalAppearance(context, widget.dict);
      const rect = annotationRect(context, widget.dict);
      if (!appearance || !rect) continue;
      const stream = resolve(context, appearance) as PDFStream;
      const bbox = numbersOf(context, stream.dict.get(N('BBox')));
      if (!bbox || bbox.length !== 4 || !bbox.every(Number.isFinite)) continue;
      const matrix = matrixOf(numbersOf(context, stream.dict.get(N('Matrix'))) ?? [1, 0, 0, 1, 0, 0]) ?? IDENTITY;
      const box = transformedBounds(matrix, bbox[0]!, bbox[1]!, bbox[2]!, bbox[3]!);
      const width = box.x1 - box.x0;
      const height = box.y1 - box.y0;
      if (!(width > 0) || !(height > 0)) continue;
      stream.dict.set(N('Type'), N('XObject'));
      stream.dict.set(N('Subtype'), N('Form'));
      if (!xobjects) {
        const resources = leaf.Resources()?.clone(context) ?? context.obj({});
        xobjects = dictValue(context, resources.get(N('XObject')))?.clone(context) ?? context.obj({});
        resources.set(N('XObject'), xobjects);
        leaf.set(N('Resources'), resources);
      }
      const key = freshKey(xobjects, 'QrField');
      xobjects.set(N(key), appearance instanceof PDFRef ? appearance : context.register(stream));
      // §12.5.5: the appearance box, after its /Matrix, is fitted onto the annotation rectangle.
      const sx = (rect.x1 - rect.x0) / width;
      const sy = (rect.y1 - rect.y0) / height;
      const a = [sx, 0, 0, sy, rect.x0 - box.x0 * sx, rect.y0 - box.y0 * sy].map(formatNumber).join(' ');
      drawing.push(`q ${a} cm /${key} Do Q`);
    }
    if (drawing.length > 0) appendContent(context, leaf, drawing.join('\n'));
    removeAnnotations(context, leaf, catalog, (annotation) => annotation.subtype === 'Widget');
  }
  catalog.delete(N('AcroForm'));
  catalog.delete(N('NeedsRendering'));
}

/** /AP /N of an annotation: a stream, or the one its /AS state names. */
function normalAppearance(context: PDFContext, annotation: PDFDict): PDFObject | undefined {
  const ap = dictValue(context, annotation.get(N('AP')));
  const normal = ap?.get(N('N'));
  const resolved = resolve(context, normal);
  if (resolved instanceof PDFStream) return normal;
  if (resolved instanceof PDFDict) {
    const state = nameValue(context, annotation.get(N('AS')));
    const chosen = state ? resolved.get(N(state)) : undefined;
    return resolve(context, chosen) instanceof PDFStream ? chosen : undefined;
  }
  return undefined;
}

/** Adds drawing after the page content, which is wrapped in q … Q (so its state cannot shift the addition). */
function appendContent(context: PDFContext, leaf: PDFPageLeaf, text: string): void {
  const existing = resolve(context, leaf.get(N('Contents')));
  const streams: PDFObject[] = [];
  if (existing instanceof PDFArray) for (let i = 0; i < existing.size(); i++) streams.push(existing.get(i));
  else if (existing) streams.push(leaf.get(N('Contents'))!);
  const before = context.register(flateStream(context, Buffer.from('q\n')));
  const after = context.register(flateStream(context, Buffer.from(`\nQ\n${text}\n`, 'latin1')));
  leaf.set(N('Contents'), context.obj([before, ...streams, after]));
}

/** annotations: all of them except form widgets (the `forms` category decides about those). */
function removeAllAnnotations(document: PDFDocument): void {
  const context = document.context;
  for (const leaf of leaves(document)) removeAnnotations(context, leaf, document.catalog, (annotation) => annotation.subtype !== 'Widget');
}

/** Page content and every form XObject / tiling pattern rewritten by the marked-content policy. */
function rewriteAllContent(document: PDFDocument, policy: MarkedContentPolicy): void {
  const context = document.context;
  for (const leaf of leaves(document)) {
    let content: Uint8Array;
    try {
      content = pageContent(context, leaf.get(N('Contents')));
    } catch (error) {
      if (error instanceof StreamDecodeError) continue;
      throw error;
    }
    const result = rewriteMarkedContent(context, content, leaf.Resources(), policy);
    if (result.changed) leaf.set(N('Contents'), context.register(flateStream(context, result.bytes)));
  }
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFStream)) continue;
    const isForm = nameValue(context, object.dict.get(N('Subtype'))) === 'Form';
    const isTiling = numberValue(context, object.dict.get(N('PatternType'))) === 1;
    if (!isForm && !isTiling) continue;
    let content: Uint8Array;
    try {
      content = decodeStream(object).data;
    } catch (error) {
      if (error instanceof StreamDecodeError) continue;
      throw error;
    }
    const result = rewriteMarkedContent(context, content, dictValue(context, object.dict.get(N('Resources'))), policy);
    if (!result.changed) continue;
    const dict = object.dict.clone(context);
    for (const key of ['Filter', 'DecodeParms', 'DL', 'Length']) dict.delete(N(key));
    dict.set(N('Filter'), N('FlateDecode'));
    context.assign(ref, PDFRawStream.of(dict, deflate(result.bytes)));
  }
}

/** layers: after the content rewrite, annotations of hidden layers go and no /OC or layer definition is left. */
function removeLayers(document: PDFDocument): void {
  const context = document.context;
  const visible = layerVisibility(context, document.catalog);
  for (const leaf of leaves(document)) {
    removeAnnotations(context, leaf, document.catalog, (annotation) => {
      const group = dictValue(context, annotation.dict.get(N('OC')));
      return group !== undefined && !visible(group);
    });
  }
  forEachDict(context, (dict) => {
    dict.delete(N('OC'));
    const properties = dictValue(context, dict.get(N('Properties')));
    if (properties && dict.has(N('Properties'))) {
      for (const [key, value] of properties.entries()) {
        const type = nameValue(context, dictValue(context, value)?.get(N('Type')));
        if (type === 'OCG' || type === 'OCMD') properties.delete(key);
      }
    }
  });
  document.catalog.delete(N('OCProperties'));
}

/** tags: the structure tree and every reference into it. */
function removeTags(document: PDFDocument): void {
  const catalog = document.catalog;
  catalog.delete(N('StructTreeRoot'));
  catalog.delete(N('MarkInfo'));
  forEachDict(document.context, (dict) => {
    dict.delete(N('StructParents'));
    dict.delete(N('StructParent'));
  });
}

function removeOutlines(document: PDFDocument): void {
  const catalog = document.catalog;
  catalog.delete(N('Outlines'));
  if (nameValue(document.context, catalog.get(N('PageMode'))) === 'UseOutlines') catalog.delete(N('PageMode'));
}

/** metadata: the document information dictionary, XMP streams everywhere, and applications' private data. */
function removeMetadata(document: PDFDocument): void {
  const context = document.context;
  context.trailerInfo.Info = undefined;
  forEachDict(context, (dict) => {
    for (const key of ['Metadata', 'PieceInfo', 'LastModified']) dict.delete(N(key));
  });
}
