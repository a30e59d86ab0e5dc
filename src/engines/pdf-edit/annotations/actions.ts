import { PDFArray, PDFName, PDFRef, type PDFDict, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';
import { buildDestination, type DestinationSpec } from './destinations.js';
import { invalid, unsupported } from './errors.js';
import { arrayOf, dictOf, isPlainName, literalString, round, textOf, textString } from './pdf-values.js';
import { annotationsOf, requirePageNumber } from './selection.js';
import { TRANSITION_STYLE_NAMES } from '../content/transitions.js';

/**
 * `Operation_ActionEvent` as PDF action dictionaries (ISO 32000-1 12.6), several chained with
 * /Next. Refused, on purpose: JavaScript and launching applications (code execution on the reader's
 * machine: the server never writes either), 3D views and article threads (no support for those
 * structures), and URIs other than http, https, mailto, ftp and tel (javascript:, file:, data: …).
 */

interface AnnotationRef {
  index?: number;
  name?: string;
  page?: number;
}

interface FieldRef {
  name?: string;
}

interface FileSpecificationSpec {
  description?: string;
  resourceURL?: string;
  volatileFile?: boolean;
}

export interface ActionSpec {
  goTo?: { destination?: DestinationSpec };
  resolveURI?: { uri?: string };
  executeNamed?: { namedOperation?: string };
  hideAnnotation?: { annotation?: AnnotationRef[]; hide?: boolean };
  submitForm?: {
    url?: string;
    field?: FieldRef[];
    exclude?: boolean;
    includeNoValueFields?: boolean;
    exportFormat?: boolean;
    getMethod?: boolean;
    submitCoordinates?: boolean;
    xfdf?: boolean;
    includeAppendSaves?: boolean;
    includeAnnotations?: boolean;
    submitPDF?: boolean;
    canonicalFormat?: boolean;
    excludeNonUserAnnotations?: boolean;
    excludeFDFSourceOrTargetFile?: boolean;
    embedForm?: boolean;
  };
  resetForm?: { field?: FieldRef[]; exclude?: boolean };
  importSchema?: { file?: FileSpecificationSpec };
  setLayerState?: { layerState?: { referencedLayer?: { name?: string }[]; state?: 'ON' | 'OFF' | 'Toggle' }[]; preserveRadioButtonRelation?: boolean };
  setTransition?: {
    style?: string;
    direction?: string;
    duration?: number;
    effectDimensionHorizontal?: boolean;
    flyAreaOpaque?: boolean;
    flyScale?: number;
    motionInward?: boolean;
    scaling?: number;
  };
  playSound?: {
    sound?: string;
    encoding?: 'Raw' | 'Signed' | 'muLaw' | 'ALaw';
    samplingRate?: number;
    sampleSize?: number;
    soundChannels?: number;
    volume?: number;
    synchronous?: boolean;
    repeat?: boolean;
    mix?: boolean;
  };
  executeJavaScript?: unknown;
  launchApplication?: unknown;
  goTo3DView?: unknown;
  goToThread?: unknown;
}

const ACTION_KINDS = [
  'goTo',
  'resolveURI',
  'executeNamed',
  'hideAnnotation',
  'submitForm',
  'resetForm',
  'importSchema',
  'setLayerState',
  'setTransition',
  'playSound',
  'executeJavaScript',
  'launchApplication',
  'goTo3DView',
  'goToThread',
] as const;
type ActionKind = (typeof ACTION_KINDS)[number];

const REFUSED: Partial<Record<ActionKind, string>> = {
  executeJavaScript: "the server does not put JavaScript into documents (it would run on every reader's machine).",
  launchApplication: "actions that start programs on the reader's machine are not written, for safety.",
  goTo3DView: 'documents with 3D annotations are not supported.',
  goToThread: 'article threads are not supported.',
};

const URI_SCHEMES = new Set(['http:', 'https:', 'mailto:', 'ftp:', 'tel:']);

/** The first action of the list, the others chained to it with /Next; undefined for an empty list. */
export function buildActions(document: PDFDocument, actions: readonly ActionSpec[] | undefined, field: string): PDFRef | undefined {
  const dicts = (actions ?? []).map((action, index) => buildAction(document, action, `${field}[${index}]`));
  const { context } = document;
  for (let i = dicts.length - 2; i >= 0; i--) dicts[i]!.set(PDFName.of('Next'), context.register(dicts[i + 1]!));
  return dicts.length === 0 ? undefined : context.register(dicts[0]!);
}

function buildAction(document: PDFDocument, action: ActionSpec, field: string): PDFDict {
  const given = ACTION_KINDS.filter((kind) => action[kind] !== undefined && action[kind] !== null);
  if (given.length !== 1) throw invalid(field, `give exactly one action: ${ACTION_KINDS.join(', ')}${given.length > 1 ? ` (not ${given.join(' and ')})` : ''}.`);
  const kind = given[0]!;
  const here = `${field}.${kind}`;
  const refused = REFUSED[kind];
  if (refused) throw unsupported(here, refused);
  const { context } = document;
  switch (kind) {
    case 'goTo':
      return context.obj({ Type: 'Action', S: 'GoTo', D: buildDestination(document, action.goTo!.destination, `${here}.destination`) });
    case 'resolveURI':
      return context.obj({ Type: 'Action', S: 'URI', URI: literalString(checkedUri(action.resolveURI!.uri, `${here}.uri`, URI_SCHEMES)) });
    case 'executeNamed':
      return context.obj({ Type: 'Action', S: 'Named', N: PDFName.of(namedOperation(action.executeNamed!.namedOperation, `${here}.namedOperation`)) });
    case 'hideAnnotation':
      return hideAction(document, action.hideAnnotation!, here);
    case 'submitForm':
      return submitAction(document, action.submitForm!, here);
    case 'resetForm': {
      const spec = action.resetForm!;
      return context.obj({ Type: 'Action', S: 'ResetForm', ...fieldList(document, spec.field), Flags: spec.exclude ? 1 : 0 });
    }
    case 'importSchema':
      return context.obj({ Type: 'Action', S: 'ImportData', F: fileSpecification(document, action.importSchema!.file, `${here}.file`) });
    case 'setLayerState':
      return layerAction(document, action.setLayerState!, here);
    case 'setTransition':
      return transitionAction(document, action.setTransition!, here);
    case 'playSound':
      return soundAction(document, action.playSound!, here);
    default:
      throw unsupported(here, 'this action is not supported.');
  }
}

function checkedUri(value: string | undefined, field: string, schemes: Set<string>): string {
  const text = (value ?? '').trim();
  if (text === '') throw invalid(field, 'required: an absolute address such as https://example.com/.');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(field, `"${text}" is no absolute address.`);
  }
  if (!schemes.has(url.protocol)) {
    throw unsupported(`${field} scheme "${url.protocol.replace(/:$/, '')}"`, `only ${[...schemes].map((s) => s.replace(/:$/, '')).join(', ')} addresses are written into documents.`);
  }
  // URI actions hold 7-bit ASCII (ISO 32000-1 12.6.4.7): the parsed form is percent-encoded.
  return url.protocol === 'mailto:' || url.protocol === 'tel:' ? encodeURI(decodeURI(text)) : url.href;
}

const STANDARD_NAMED = ['NextPage', 'PrevPage', 'FirstPage', 'LastPage'];

function namedOperation(value: string | undefined, field: string): string {
  const text = (value ?? '').trim();
  if (text === '') throw invalid(field, `required: a viewer command such as ${STANDARD_NAMED.join(', ')}.`);
  const standard = STANDARD_NAMED.find((name) => name.toLowerCase() === text.toLowerCase());
  if (standard) return standard;
  if (!isPlainName(text)) throw invalid(field, `"${text}" is no command name.`);
  return text;
}

function hideAction(document: PDFDocument, spec: NonNullable<ActionSpec['hideAnnotation']>, field: string): PDFDict {
  const targets = (spec.annotation ?? []).map((selection, index) => annotationRef(document, selection, `${field}.annotation[${index}]`));
  if (targets.length === 0) throw invalid(`${field}.annotation`, 'required: the annotations to hide or show.');
  const { context } = document;
  return context.obj({ Type: 'Action', S: 'Hide', T: targets.length === 1 ? targets[0]! : context.obj(targets), H: spec.hide ?? true });
}

/** An annotation by name (/NM) or, when the name is empty, by its index in the page's list. */
function annotationRef(document: PDFDocument, selection: AnnotationRef, field: string): PDFRef {
  const pageNumber = requirePageNumber(selection.page, document.getPageCount(), `${field}.page`);
  const annotations = annotationsOf(document, pageNumber);
  const name = (selection.name ?? '').trim();
  const found = name !== '' ? annotations.find((a) => textOf(a.dict.lookup(PDFName.of('NM'))) === name) : annotations[selection.index ?? 0];
  if (!found)
    throw invalid(
      field,
      name !== '' ? `page ${pageNumber} has no annotation named "${name}".` : `page ${pageNumber} has no annotation with index ${selection.index ?? 0} (it has ${annotations.length}).`,
    );
  if (!found.ref) throw invalid(field, 'the annotation is stored inline in the page and cannot be referred to.');
  return found.ref;
}

function fieldList(document: PDFDocument, fields: readonly FieldRef[] | undefined): { Fields?: PDFArray } {
  const names = (fields ?? []).map((f) => (f.name ?? '').trim()).filter((name) => name !== '');
  return names.length === 0 ? {} : { Fields: document.context.obj(names.map((name) => textString(name))) };
}

function submitAction(document: PDFDocument, spec: NonNullable<ActionSpec['submitForm']>, field: string): PDFDict {
  const url = checkedUri(spec.url, `${field}.url`, new Set(['http:', 'https:', 'mailto:']));
  // ISO 32000-1 Table 237: the submit-form flags, bit 1 first.
  const bits: [boolean | undefined, number][] = [
    [spec.exclude, 1],
    [spec.includeNoValueFields, 2],
    [spec.exportFormat, 3],
    [spec.getMethod, 4],
    [spec.submitCoordinates, 5],
    [spec.xfdf, 6],
    [spec.includeAppendSaves, 7],
    [spec.includeAnnotations, 8],
    [spec.submitPDF, 9],
    [spec.canonicalFormat, 10],
    [spec.excludeNonUserAnnotations, 11],
    [spec.excludeFDFSourceOrTargetFile, 12],
    [spec.embedForm, 14],
  ];
  const flags = bits.reduce((sum, [on, bit]) => (on ? sum | (1 << (bit - 1)) : sum), 0);
  const { context } = document;
  return context.obj({
    Type: 'Action',
    S: 'SubmitForm',
    F: context.obj({ FS: 'URL', F: literalString(url) }),
    ...fieldList(document, spec.field),
    Flags: flags,
  });
}

function fileSpecification(document: PDFDocument, spec: FileSpecificationSpec | undefined, field: string): PDFObject {
  const target = (spec?.resourceURL ?? '').trim();
  if (target === '') throw invalid(`${field}.resourceURL`, 'required: the file the action refers to.');
  const { context } = document;
  const isUrl = /^[a-z][a-z0-9+.-]*:/i.test(target);
  if (isUrl) checkedUri(target, `${field}.resourceURL`, new Set(['http:', 'https:', 'ftp:']));
  return context.obj({
    Type: 'Filespec',
    ...(isUrl ? { FS: 'URL' } : {}),
    F: literalString(isUrl ? new URL(target).href : target),
    UF: textString(target),
    ...(spec?.description ? { Desc: textString(spec.description) } : {}),
    ...(spec?.volatileFile ? { V: true } : {}),
  });
}

function layerAction(document: PDFDocument, spec: NonNullable<ActionSpec['setLayerState']>, field: string): PDFDict {
  const { context } = document;
  const properties = dictOf(context, document.catalog.get(PDFName.of('OCProperties')));
  const groups = arrayOf(context, properties?.get(PDFName.of('OCGs')))?.asArray() ?? [];
  const byName = new Map<string, PDFObject>();
  for (const group of groups) {
    const name = textOf(dictOf(context, group)?.lookup(PDFName.of('Name')));
    if (name !== undefined && !byName.has(name)) byName.set(name, group);
  }
  const state: PDFObject[] = [];
  for (const [index, layerState] of (spec.layerState ?? []).entries()) {
    state.push(PDFName.of(layerState.state ?? 'ON'));
    for (const [j, layer] of (layerState.referencedLayer ?? []).entries()) {
      const name = layer.name ?? '';
      const group = byName.get(name);
      if (!group) {
        const known = [...byName.keys()];
        throw invalid(
          `${field}.layerState[${index}].referencedLayer[${j}].name`,
          `the document has no layer "${name}"${known.length > 0 ? ` (it has: ${known.slice(0, 10).join(', ')})` : ' (it has no layers)'}.`,
        );
      }
      state.push(group);
    }
  }
  if (state.length === 0) throw invalid(`${field}.layerState`, 'required: at least one state with its layers.');
  return context.obj({ Type: 'Action', S: 'SetOCGState', State: context.obj(state), PreserveRB: spec.preserveRadioButtonRelation ?? true });
}

const TRANSITION_STYLES: Record<string, string> = TRANSITION_STYLE_NAMES;
const DIRECTIONS: Record<string, number | 'None'> = { leftToRight: 0, bottomToTop: 90, rightToLeft: 180, topToBottom: 270, topLeftToBottomRight: 315, none: 'None' };

function transitionAction(document: PDFDocument, spec: NonNullable<ActionSpec['setTransition']>, field: string): PDFDict {
  if ((spec.scaling ?? 100) !== 100) throw unsupported(`${field}.scaling`, "a PDF transition has no such value (flyScale sets the fly transition's scale).");
  const style = TRANSITION_STYLES[spec.style ?? 'none'];
  if (!style) throw invalid(`${field}.style`, `unknown style "${spec.style}".`);
  const direction = DIRECTIONS[spec.direction ?? 'leftToRight'];
  if (direction === undefined) throw invalid(`${field}.direction`, `unknown direction "${spec.direction}".`);
  const { context } = document;
  const transition = context.obj({
    Type: 'Trans',
    S: style,
    D: Math.max(0, spec.duration ?? 1),
    Dm: (spec.effectDimensionHorizontal ?? true) ? 'H' : 'V',
    M: (spec.motionInward ?? true) ? 'I' : 'O',
    Di: direction === 'None' ? PDFName.of('None') : direction,
    SS: round((spec.flyScale ?? 100) / 100, 4),
    B: spec.flyAreaOpaque ?? false,
  });
  return context.obj({ Type: 'Action', S: 'Trans', Trans: transition });
}

const SOUND_ENCODINGS: Record<string, string> = { Raw: 'Raw', Signed: 'Signed', muLaw: 'muLaw', ALaw: 'ALaw' };

function soundAction(document: PDFDocument, spec: NonNullable<ActionSpec['playSound']>, field: string): PDFDict {
  const base64 = (spec.sound ?? '').replace(/\s+/g, '');
  if (base64 === '' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(base64)) throw invalid(`${field}.sound`, 'required: the samples, Base64-encoded.');
  const samples = Buffer.from(base64, 'base64');
  const encoding = SOUND_ENCODINGS[spec.encoding ?? 'Raw'];
  if (!encoding) throw invalid(`${field}.encoding`, `unknown encoding "${spec.encoding}".`);
  const { context } = document;
  const sound = context.register(
    context.flateStream(samples, {
      Type: 'Sound',
      R: Math.max(1, spec.samplingRate ?? 8000),
      C: Math.max(1, spec.soundChannels ?? 1),
      B: Math.max(1, spec.sampleSize ?? 8),
      E: encoding,
    }),
  );
  return context.obj({
    Type: 'Action',
    S: 'Sound',
    Sound: sound,
    Volume: round(Math.max(-100, Math.min(100, spec.volume ?? 100)) / 100, 2),
    Synchronous: spec.synchronous ?? false,
    Repeat: spec.repeat ?? false,
    Mix: spec.mix ?? false,
  });
}
