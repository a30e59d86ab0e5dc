import { PDFArray, PDFName, PDFNumber, type PDFDict, type PDFDocument, type PDFObject, type PDFPage, type PDFRef } from '@cantoo/pdf-lib';
import { formXObject } from './content.js';
import { invalid, unsupported } from './errors.js';
import { loadAppearance, type AppearanceSource, type LoadedAppearance } from './external-appearance.js';
import { fontFamily, standardFont, type FontCache } from './fonts.js';
import { boundsOf, boxOf, grow, toPoints, type Box, type PageGeometry, type PointSpec, type RectangleSpec } from './geometry.js';
import { literalString, numberOf, rgb, textOf } from './pdf-values.js';
import { lineContent, markupContent, redactOutline, redactOverlay, shapeContent, type MarkupType, type Point, type Quad, type StrokeStyle } from './shapes.js';
import { freeTextAppearance, noteIconAppearance, stampAppearance, type Justification } from './text-appearance.js';

/**
 * The eight annotation kinds of webPDF (reference §10.9.1) as PDF annotation dictionaries: for each
 * kind, where it is (from the options, or on edit from the annotation when the options give no
 * position), its kind-specific entries and its appearance stream.
 */

export interface CommonSpec {
  page?: number;
  color?: string;
  contents?: string;
  creator?: string;
  subject?: string;
  name?: string;
  intents?: string;
  opacity?: number;
  hidden?: boolean;
  invisible?: boolean;
  locked?: boolean;
  printable?: boolean;
  rotatable?: boolean;
  viewable?: boolean;
  writable?: boolean;
  zoomable?: boolean;
}

export interface BorderSpec {
  borderStyle?: 'solid' | 'dashed';
  borderWidth?: number;
  dashLength?: number;
  gapLength?: number;
}

export interface ShapeSpec extends CommonSpec {
  border?: BorderSpec;
  drawMode?: 'fill' | 'stroke' | 'fillAndStroke';
  interiorColor?: string;
  position?: { rectangle?: RectangleSpec };
}

export interface FreeTextSpec extends CommonSpec {
  font?: { name?: string; size?: number; bold?: boolean; italic?: boolean; color?: string };
  justification?: Justification;
  position?: { rectangle?: RectangleSpec };
}

export interface LineSpec extends CommonSpec {
  border?: BorderSpec;
  start?: PointSpec;
  end?: PointSpec;
}

export interface AreaSpec {
  pathElement?: RectangleSpec[];
  quadrilateral?: { point?: PointSpec[] }[];
}

export interface MarkupSpec extends CommonSpec {
  markupType?: MarkupType;
  position?: AreaSpec;
}

export interface RedactSpec extends CommonSpec {
  interiorColor?: string;
  position?: AreaSpec;
}

export type AppearanceGeneration = 'Always' | 'Never' | 'nonStandard';

export interface StampSpec extends CommonSpec {
  appearanceGeneration?: AppearanceGeneration;
  icon?: string;
  customIconName?: string;
  normalAppearance?: AppearanceSource;
  position?: { rectangle?: RectangleSpec };
}

export interface TextSpec extends CommonSpec {
  appearanceGeneration?: AppearanceGeneration;
  icon?: string;
  customIconName?: string;
  initialOpen?: boolean;
  normalAppearance?: AppearanceSource;
  position?: RectangleSpec;
}

export interface KindSpecs {
  circle: ShapeSpec;
  freetext: FreeTextSpec;
  line: LineSpec;
  markup: MarkupSpec;
  redact: RedactSpec;
  rubberstamp: StampSpec;
  square: ShapeSpec;
  text: TextSpec;
}

export type AnnotationKind = keyof KindSpecs;

export const ANNOTATION_KINDS: readonly AnnotationKind[] = ['circle', 'freetext', 'line', 'markup', 'redact', 'rubberstamp', 'square', 'text'];

/** The /Subtype values each kind stands for (edit selects by them). */
export const SUBTYPES: Record<AnnotationKind, readonly string[]> = {
  circle: ['Circle'],
  freetext: ['FreeText'],
  line: ['Line'],
  markup: ['Highlight', 'Underline', 'StrikeOut', 'Squiggly'],
  redact: ['Redact'],
  rubberstamp: ['Stamp'],
  square: ['Square'],
  text: ['Text'],
};

const MARKUP_SUBTYPES: Record<MarkupType, string> = { highlight: 'Highlight', underline: 'Underline', strikeOut: 'StrikeOut', squiggly: 'Squiggly' };

/** webPDF's stamp icons → the standard stamp names of ISO 32000 (12.5.6.12). */
const STAMP_NAMES: Record<string, string> = {
  approved: 'Approved',
  experimental: 'Experimental',
  notApproved: 'NotApproved',
  asIs: 'AsIs',
  expired: 'Expired',
  notForPublicRelease: 'NotForPublicRelease',
  confidential: 'Confidential',
  final: 'Final',
  sold: 'Sold',
  departmental: 'Departmental',
  forComment: 'ForComment',
  topSecret: 'TopSecret',
  draft: 'Draft',
  forPublicRelease: 'ForPublicRelease',
};

/** webPDF's note icons → icon names; the first seven are the standard ones of ISO 32000 (12.5.6.4). */
const TEXT_ICON_NAMES: Record<string, string> = {
  comment: 'Comment',
  key: 'Key',
  note: 'Note',
  help: 'Help',
  newParagraph: 'NewParagraph',
  paragraph: 'Paragraph',
  insert: 'Insert',
  check: 'Check',
  checkmark: 'Checkmark',
  circle: 'Circle',
  cross: 'Cross',
  crossHair: 'CrossHairs',
  rightArrow: 'RightArrow',
  rightPointer: 'RightPointer',
  star: 'Star',
  upArrow: 'UpArrow',
  upLeftArrow: 'UpLeftArrow',
};
const STANDARD_TEXT_ICONS = new Set(['comment', 'key', 'note', 'help', 'newParagraph', 'paragraph', 'insert']);

export interface PageContext {
  document: PDFDocument;
  page: PDFPage;
  geometry: PageGeometry;
  fonts: FontCache;
}

/** An annotation laid out: what the editor writes into the dictionary. `undefined` entries are removed. */
export interface Built {
  subtype: string;
  rect: Box;
  entries: Record<string, PDFObject | undefined>;
  appearance?: PDFRef | undefined;
  /** Text notes: whether their pop-up is open. */
  popupOpen?: boolean;
}

type Builder<K extends AnnotationKind> = (spec: KindSpecs[K], page: PageContext, existing: PDFDict | undefined, field: string) => Promise<Built>;

/** One builder per kind; the compiler refuses a kind without one. */
const BUILDERS: { [K in AnnotationKind]: Builder<K> } = {
  circle: (spec, page, existing, field) => buildShape('circle', spec, page, existing, field),
  square: (spec, page, existing, field) => buildShape('square', spec, page, existing, field),
  freetext: buildFreeText,
  line: buildLine,
  markup: buildMarkup,
  redact: buildRedact,
  rubberstamp: buildStamp,
  text: buildText,
};

export async function buildKind<K extends AnnotationKind>(kind: K, spec: KindSpecs[K], page: PageContext, existing: PDFDict | undefined, field: string): Promise<Built> {
  const builder = Object.hasOwn(BUILDERS, kind) ? (BUILDERS[kind] as Builder<K>) : undefined;
  if (!builder) throw invalid(field, `unknown annotation kind ${String(kind)}.`);
  return builder(spec, page, existing, field);
}

export const opacityOf = (spec: CommonSpec): number => Math.max(0, Math.min(100, spec.opacity ?? 100)) / 100;

function border(spec: BorderSpec | undefined): StrokeStyle {
  return {
    width: Math.max(0, spec?.borderWidth ?? 1),
    style: spec?.borderStyle === 'dashed' ? 'dashed' : 'solid',
    dash: Math.max(1, spec?.dashLength ?? 3),
    gap: Math.max(1, spec?.gapLength ?? 3),
  };
}

function borderStyleDict(page: PageContext, style: StrokeStyle, width = style.width): PDFObject {
  return page.document.context.obj({
    Type: 'Border',
    W: width,
    S: style.style === 'dashed' ? 'D' : 'S',
    ...(style.style === 'dashed' ? { D: [style.dash, style.gap] } : {}),
  });
}

/** The rectangle of a shape: from the options, or on edit the annotation's own. */
function placedRectangle(spec: RectangleSpec | undefined, page: PageContext, existing: PDFDict | undefined, field: string): Box {
  if (spec) {
    const rect = page.geometry.rectangle(spec);
    if (rect[2] - rect[0] <= 0 || rect[3] - rect[1] <= 0) throw invalid(field, 'width and height must be greater than 0.');
    return rect;
  }
  const current = existing ? boxOf(existing.lookup(PDFName.of('Rect'))) : undefined;
  if (current) return current;
  throw invalid(field, 'required: the rectangle the annotation covers.');
}

/** A rectangle whose missing size (0) is filled in with a default, in points. */
function sized(spec: RectangleSpec | undefined, width: number, height: number): RectangleSpec {
  const base = spec ?? {};
  const factor = toPoints(1, base.metrics);
  return {
    ...base,
    width: base.width && base.width > 0 ? base.width : width / factor,
    height: base.height && base.height > 0 ? base.height : height / factor,
  };
}

async function buildShape(kind: 'square' | 'circle', spec: ShapeSpec, page: PageContext, existing: PDFDict | undefined, field: string): Promise<Built> {
  const rect = placedRectangle(spec.position?.rectangle, page, existing, `${field}.position.rectangle`);
  const style = border(spec.border);
  const mode = spec.drawMode ?? 'fillAndStroke';
  const stroke = rgb(spec.color, '#4800FF');
  const fill = rgb(spec.interiorColor, '#000000');
  const content = shapeContent(kind, rect, mode, stroke, fill, style);
  const { context } = page.document;
  return {
    subtype: kind === 'square' ? 'Square' : 'Circle',
    rect,
    entries: {
      BS: borderStyleDict(page, style, mode === 'fill' ? 0 : style.width),
      IC: mode === 'stroke' ? undefined : context.obj(fill),
    },
    appearance: formXObject(context, rect, content, { opacity: opacityOf(spec) }),
  };
}

async function buildLine(spec: LineSpec, page: PageContext, existing: PDFDict | undefined, field: string): Promise<Built> {
  const current = existing ? existing.lookup(PDFName.of('L')) : undefined;
  const currentPoints = current instanceof PDFArray && current.size() === 4 ? current.asArray().map((v) => (v instanceof PDFNumber ? v.asNumber() : NaN)) : undefined;
  const fromCurrent = (i: number): Point | undefined => (currentPoints && currentPoints.every(Number.isFinite) ? [currentPoints[i]!, currentPoints[i + 1]!] : undefined);
  const start = spec.start ? page.geometry.point(spec.start) : fromCurrent(0);
  const end = spec.end ? page.geometry.point(spec.end) : fromCurrent(2);
  if (!start) throw invalid(`${field}.start`, 'required: where the line starts.');
  if (!end) throw invalid(`${field}.end`, 'required: where the line ends.');
  const style = border(spec.border);
  const rect = grow(boundsOf([start, end]), style.width / 2 + 1);
  const { context } = page.document;
  return {
    subtype: 'Line',
    rect,
    entries: {
      L: context.obj([...start, ...end]),
      BS: borderStyleDict(page, style),
      LE: context.obj(['None', 'None']),
    },
    appearance: formXObject(context, rect, lineContent(start, end, rgb(spec.color, '#4800FF'), style), { opacity: opacityOf(spec) }),
  };
}

/** The marked areas: rectangles and quadrilaterals from the options, or on edit the current /QuadPoints. */
function placedQuads(spec: AreaSpec | undefined, page: PageContext, existing: PDFDict | undefined, field: string): Quad[] {
  const quads: Quad[] = [];
  for (const [index, rectangle] of (spec?.pathElement ?? []).entries()) {
    const rect = page.geometry.rectangle(rectangle);
    if (rect[2] - rect[0] <= 0 || rect[3] - rect[1] <= 0) throw invalid(`${field}.pathElement[${index}]`, 'width and height must be greater than 0.');
    // The corners as the reader sees them, so text on a rotated page is marked along its lines.
    const w = rectangle.width ?? 0;
    const h = rectangle.height ?? 0;
    const x = rectangle.x ?? 0;
    const y = rectangle.y ?? 0;
    const user = (rectangle.coordinates ?? 'user') === 'user';
    const corner = (dx: number, dy: number) => page.geometry.point({ ...rectangle, x: x + dx, y: y + dy });
    quads.push(user ? [corner(0, 0), corner(w, 0), corner(0, h), corner(w, h)] : [corner(0, h), corner(w, h), corner(0, 0), corner(w, 0)]);
  }
  for (const [index, quadrilateral] of (spec?.quadrilateral ?? []).entries()) {
    const points = quadrilateral.point ?? [];
    if (points.length !== 4) throw invalid(`${field}.quadrilateral[${index}].point`, `four points are needed (top-left, top-right, bottom-left, bottom-right), not ${points.length}.`);
    quads.push(points.map((p) => page.geometry.point(p)) as Quad);
  }
  if (quads.length > 0) return quads;
  const current = existing?.lookup(PDFName.of('QuadPoints'));
  if (current instanceof PDFArray && current.size() >= 8 && current.size() % 8 === 0) {
    const values = current.asArray().map((v) => numberOf(v) ?? NaN);
    if (values.every(Number.isFinite)) {
      for (let i = 0; i < values.length; i += 8) {
        const v = values.slice(i, i + 8);
        quads.push([
          [v[0]!, v[1]!],
          [v[2]!, v[3]!],
          [v[4]!, v[5]!],
          [v[6]!, v[7]!],
        ]);
      }
      return quads;
    }
  }
  throw invalid(field, 'required: at least one pathElement or quadrilateral (the marked area).');
}

async function buildMarkup(spec: MarkupSpec, page: PageContext, existing: PDFDict | undefined, field: string): Promise<Built> {
  const quads = placedQuads(spec.position, page, existing, `${field}.position`);
  const type = spec.markupType ?? 'highlight';
  const rect = grow(boundsOf(quads.flat()), 1);
  const { context } = page.document;
  const content = markupContent(type, quads, rgb(spec.color, '#4800FF'));
  return {
    subtype: MARKUP_SUBTYPES[type],
    rect,
    entries: { QuadPoints: context.obj(quads.flat(2)) },
    appearance: formXObject(context, rect, content, { opacity: opacityOf(spec), ...(type === 'highlight' ? { blendMode: 'Multiply' as const } : {}) }),
  };
}

async function buildRedact(spec: RedactSpec, page: PageContext, existing: PDFDict | undefined, field: string): Promise<Built> {
  const quads = placedQuads(spec.position, page, existing, `${field}.position`);
  const rect = grow(boundsOf(quads.flat()), 1);
  const { context } = page.document;
  const fill = rgb(spec.interiorColor, '#000000');
  return {
    subtype: 'Redact',
    rect,
    entries: {
      QuadPoints: context.obj(quads.flat(2)),
      IC: context.obj(fill),
      RO: formXObject(context, rect, redactOverlay(quads, fill)),
    },
    appearance: formXObject(context, rect, redactOutline(quads, rgb(spec.color, '#4800FF')), { opacity: opacityOf(spec) }),
  };
}

function generates(mode: AppearanceGeneration | undefined, standardIcon: boolean): boolean {
  if (mode === 'Always') return true;
  if (mode === 'Never') return false;
  return !standardIcon;
}

/** A custom appearance's natural size, at most half the page. */
function naturalSize(appearance: LoadedAppearance | undefined, page: PageContext, fallback: [number, number]): [number, number] {
  if (!appearance) return fallback;
  const limit = Math.min(page.geometry.width / 2 / appearance.naturalWidth, page.geometry.height / 2 / appearance.naturalHeight, 1);
  return [appearance.naturalWidth * limit, appearance.naturalHeight * limit];
}

function iconName(icon: string, custom: string | undefined, known: Record<string, string>, field: string): string {
  if (icon === 'unnamed') {
    const name = (custom ?? '').trim();
    if (name === '') throw invalid(`${field}.customIconName`, 'required when icon is "unnamed".');
    return name;
  }
  const name = known[icon];
  if (!name) throw invalid(`${field}.icon`, `unknown icon "${icon}".`);
  return name;
}

/** "notForPublicRelease" → "NOT FOR PUBLIC RELEASE". */
function stampLabel(icon: string, name: string): string {
  if (icon === 'unnamed') return name;
  return icon.replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase();
}

async function buildStamp(spec: StampSpec, page: PageContext, existing: PDFDict | undefined, field: string): Promise<Built> {
  const icon = spec.icon ?? 'draft';
  const name = iconName(icon, spec.customIconName, STAMP_NAMES, field);
  const custom = spec.normalAppearance ? await loadAppearance(page.document, spec.normalAppearance) : undefined;
  const [width, height] = naturalSize(custom, page, [200, 50]);
  const rectangle = spec.position?.rectangle;
  let rect =
    rectangle || !existing
      ? placedRectangle(sized(rectangle, width, height), page, undefined, `${field}.position.rectangle`)
      : placedRectangle(undefined, page, existing, `${field}.position.rectangle`);
  let appearance: PDFRef | undefined;
  if (custom) {
    ({ rect, ref: appearance } = await custom.draw(rect, opacityOf(spec)));
  } else if (generates(spec.appearanceGeneration, icon !== 'unnamed')) {
    appearance = await stampAppearance(page.document, page.fonts, rect, stampLabel(icon, name), rgb(spec.color, '#4800FF'), opacityOf(spec));
  }
  return { subtype: 'Stamp', rect, entries: { Name: PDFName.of(name) }, appearance };
}

async function buildText(spec: TextSpec, page: PageContext, existing: PDFDict | undefined, field: string): Promise<Built> {
  const icon = spec.icon ?? 'note';
  const name = iconName(icon, spec.customIconName, TEXT_ICON_NAMES, field);
  const custom = spec.normalAppearance ? await loadAppearance(page.document, spec.normalAppearance) : undefined;
  const [width, height] = naturalSize(custom, page, [20, 20]);
  let rect = spec.position || !existing ? placedRectangle(sized(spec.position, width, height), page, undefined, `${field}.position`) : placedRectangle(undefined, page, existing, `${field}.position`);
  let appearance: PDFRef | undefined;
  if (custom) {
    ({ rect, ref: appearance } = await custom.draw(rect, opacityOf(spec)));
  } else if (generates(spec.appearanceGeneration, STANDARD_TEXT_ICONS.has(icon))) {
    appearance = await noteIconAppearance(page.document, page.fonts, rect, icon, rgb(spec.color, '#4800FF'), opacityOf(spec));
  }
  const open = spec.initialOpen ?? true;
  return { subtype: 'Text', rect, entries: { Name: PDFName.of(name), Open: page.document.context.obj(open) }, appearance, popupOpen: open };
}

async function buildFreeText(spec: FreeTextSpec, page: PageContext, existing: PDFDict | undefined, field: string): Promise<Built> {
  const rect = placedRectangle(spec.position?.rectangle, page, existing, `${field}.position.rectangle`);
  const font = spec.font ?? {};
  const family = fontFamily(font.name);
  if (!family) {
    throw unsupported(
      `${field}.font.name "${font.name}"`,
      'free text is drawn with the standard PDF fonts: Helvetica (Arial, sans-serif), Times (Times New Roman, serif) or Courier (Courier New, monospace).',
    );
  }
  const size = Math.max(1, Math.min(1296, font.size ?? 24));
  const bold = font.bold ?? false;
  const italic = font.italic ?? false;
  const textColor = rgb(font.color, '#A0A0A0');
  const justification = spec.justification ?? 'leftJustified';
  const text = spec.contents || (existing ? textOf(existing.lookup(PDFName.of('Contents'))) : undefined) || '';
  const baseFont = standardFont(family, bold, italic);
  const cssColor = `#${textColor
    .map((c) =>
      Math.round(c * 255)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
  const align = justification === 'centered' ? 'center' : justification === 'rightJustified' ? 'right' : 'left';
  const { context } = page.document;
  return {
    subtype: 'FreeText',
    rect,
    entries: {
      DA: literalString(`/${baseFont} ${size} Tf ${textColor.join(' ')} rg`),
      DS: literalString(`font: ${bold ? 'bold ' : ''}${italic ? 'italic ' : ''}${size}pt ${family}; color: ${cssColor}; text-align: ${align}`),
      Q: context.obj(justification === 'centered' ? 1 : justification === 'rightJustified' ? 2 : 0),
    },
    appearance: await freeTextAppearance(page.document, page.fonts, {
      rect,
      text,
      family,
      bold,
      italic,
      size,
      textColor,
      frameColor: rgb(spec.color, '#4800FF'),
      justification,
      opacity: opacityOf(spec),
    }),
  };
}
