/**
 * The content streams and what they use (ISO 32000-1 7.8 content streams and resources, Annex A
 * operators). Page content streams (resources inherited through the page tree) and annotation
 * appearance streams are read operator by operator; every resource an operator names is looked up in
 * the resources in force — XObjects (`Do`), graphics states (`gs`), patterns (`scn`/`SCN`), Type 3
 * fonts (`Tf`), colour spaces, shadings, property lists — and the forms, tiling patterns, glyph
 * procedures and soft-mask groups reached are read the same way with their own resources.
 *
 * Yields, as it reads: Op_q_gsave (each `q`, with its nesting level in its content stream), Op_Undefined
 * (each operator ISO 32000-1 does not define), PDContentStream (each stream read, with the resource
 * names it could only find in its parent's resources). Collects for graphics.ts: the XObjects,
 * graphics states, inline images and groups used. A resource nobody uses is not a use: veraPDF checks
 * used objects (the corpus' 1b 6-2-5-t03-pass-a lists an undrawn PostScript XObject and is compliant).
 *
 * Bounded and cycle-safe: each stream is read once (with the resources it is first met with), at most
 * MAX_STREAMS streams; operands kept per operator are capped. A stream that cannot be decoded leaves
 * its uses unknown: `incomplete` says so.
 */
import type { ContentToken, CosDict, CosDocument, CosStream, CosValue } from '../../cos/index.js';
import type { ContentCache } from '../content-cache.js';
import { type LocatedObject, modelObject, valueObject } from '../cos/object.js';
import { actualTextMcids } from './actual-text.js';
import { type ColourUse, type SeparationFacts, colourSpaceObjects } from './colour.js';
import type { FontUse } from './fonts.js';
import { newShownCodes, recordShown } from './glyphs.js';
import type { PageRef } from './pages.js';
import { inheritedEntry, pathOf } from './pages.js';
import { boolOf, dictIn, intOf, nameOf } from './values.js';

export interface ContentUses {
  /** XObjects drawn (`Do`), annotation appearance streams, soft-mask groups, and the /SMask and /Mask images of images drawn. */
  readonly xobjects: Map<CosStream, string>;
  readonly extGStates: Map<CosDict, string>;
  /** Transparency group dictionaries of pages and of the forms read. */
  readonly groups: Map<CosDict, string>;
  readonly inlineImages: Array<{ dict: CosDict; path: string }>;
  /** Fonts selected by `Tf`, with the rendering modes text was shown in. */
  readonly fonts: Map<CosDict, FontUse>;
  readonly incomplete: string[];
}

const T = { q: ['Op_q_gsave'], undefinedOp: ['Op_Undefined'], contentStream: ['PDContentStream'] } as const;

/** The operators of ISO 32000-1 Annex A (BI/ID/EI are read as one inline-image token). PDF 1.4's set is the same. */
const OPERATORS = new Set(
  'b B b* B* BDC BMC BT BX c cm CS cs d d0 d1 Do DP EMC ET EX f F f* G g gs h i j J K k l m M MP n q Q re RG rg ri s S SC sc SCN scn sh T* Tc Td TD Tf TJ Tj TL Tm Tr Ts Tw Tz v w W W* y \' "'.split(
    ' ',
  ),
);

const MAX_STREAMS = 100_000;
/** Incompleteness notes kept per document (the rest are counted in one more). */
const MAX_NOTES = 20;

function note(uses: ContentUses, message: string): void {
  if (uses.incomplete.length < MAX_NOTES) uses.incomplete.push(message);
  else if (uses.incomplete.length === MAX_NOTES) uses.incomplete.push('and more parts of the content were not checked completely');
}
const MAX_OPERANDS = 64;

interface Job {
  readonly streams: CosValue[];
  /** The stream's own resources (a page's, inherited through the page tree, count as its own). */
  readonly own: CosDict | undefined;
  /** The resources of what invoked it: a stream without its own borrows from them (ISO 32000-1 7.8.3, deprecated). */
  readonly parent: CosDict | undefined;
  readonly path: string;
  /** A page's content: its resources come from the page tree, never borrowed. */
  readonly page?: boolean;
  /** A page's /Contents (the stream or the array), resolved: pages sharing it and their resources are read once. */
  readonly contents?: object;
  /** The graphics state the stream starts with (a form inherits its invoker's colours). */
  readonly start: ColourState;
  /** Read again only for the colours of a new starting state: no operator objects, no uses. */
  readonly colourOnly?: boolean;
  /** A page's resources that come from a page tree node, not the page itself (the corpus' 2b 6-2-2-t04-fail-f: veraPDF counts names found there as inherited). */
  readonly resourcesFromTree?: boolean;
  /** The page (1-based) whose content, or the first page whose content, reached this stream. */
  readonly pageNumber?: number;
  /** A page's MCIDs that a structure element's /ActualText covers (actual-text.ts). */
  readonly actualTextMcids?: ReadonlySet<number>;
}

/** The part of the graphics state colour rules need (ISO 32000-1 8.4): colour spaces, text rendering mode, overprint. */
export interface ColourState {
  readonly fill: CosValue;
  readonly stroke: CosValue;
  readonly renderMode: number;
  readonly fillOverprint: boolean;
  readonly strokeOverprint: boolean;
  readonly opm: number;
  /** The text font (set by Tf; not part of a form's starting-state identity). */
  readonly font?: CosDict;
}

const DEVICE_GRAY: CosValue = { kind: 'name', value: 'DeviceGray' };
/** DeviceGray set by `G` (not the initial state's object: text in fill modes counts a stroke colour only when one was set). */
const SET_DEVICE_GRAY: CosValue = { kind: 'name', value: 'DeviceGray' };
/** The initial graphics state (ISO 32000-1 Table 52): DeviceGray, fill text, no overprint. */
export const INITIAL_COLOUR: ColourState = { fill: DEVICE_GRAY, stroke: DEVICE_GRAY, renderMode: 0, fillOverprint: false, strokeOverprint: false, opm: 0 };

/** Distinct starting states a form, pattern or glyph is read with at most (beyond, the first ones stand for all: incomplete). */
const MAX_STARTS = 8;

export function newContentUses(): ContentUses {
  return { xobjects: new Map(), extGStates: new Map(), groups: new Map(), inlineImages: [], fonts: new Map(), incomplete: [] };
}

/** `content`: the streams' tokens, read once for this walk and the COS walk after it (content-cache.ts). */
export function* contentObjects(doc: CosDocument, pages: readonly PageRef[], uses: ContentUses, separations: SeparationFacts, content: ContentCache): Generator<LocatedObject> {
  const jobs: Job[] = [];
  // Each stream is read once for its operators and uses, and again only for a new starting colour state.
  const starts = new Map<CosStream, Set<string>>();
  // The page whose content is being read: what it queues (forms, patterns, glyph procedures) is first used there.
  let currentPage: number | undefined;
  const covered = actualTextMcids(doc);
  const queue = (v: CosValue | undefined, own: CosDict | undefined, parent: CosDict | undefined, path: string, start: ColourState = INITIAL_COLOUR): void => {
    const s = doc.resolve(v);
    if (s?.kind !== 'stream') return;
    const key = stateKey(start);
    const known = starts.get(s);
    if (known === undefined) {
      starts.set(s, new Set([key]));
      jobs.push({ streams: [s], own, parent, path, start, ...(currentPage === undefined ? {} : { pageNumber: currentPage }) });
    } else if (!known.has(key)) {
      if (known.size >= MAX_STARTS) {
        if (known.size === MAX_STARTS) note(uses, `${path} is drawn with more than ${MAX_STARTS} colour states: the colours of the rest were not checked`);
        known.add(key);
        return;
      }
      known.add(key);
      jobs.push({ streams: [s], own, parent, path, start, colourOnly: true, ...(currentPage === undefined ? {} : { pageNumber: currentPage }) });
    }
  };
  const addGroup = (d: CosDict, path: string): void => {
    const v = d.entries.get('Group');
    const g = dictIn(doc, v);
    if (g !== undefined && !uses.groups.has(g)) uses.groups.set(g, pathOf(v, `${path}/Group`));
  };
  const addForm = (v: CosValue | undefined, parent: CosDict | undefined, path: string, start: ColourState = INITIAL_COLOUR): void => {
    const s = doc.resolve(v);
    if (s?.kind !== 'stream') return;
    const p = pathOf(v, path);
    if (!uses.xobjects.has(s)) uses.xobjects.set(s, p);
    addGroup(s.dict, p);
    queue(s, dictIn(doc, s.dict.entries.get('Resources')), parent, p, start);
  };

  for (const page of pages) {
    currentPage = page.number;
    addGroup(page.dict, page.path);
    const contents = doc.resolve(page.dict.entries.get('Contents'));
    const streams = contents?.kind === 'array' ? contents.items : contents === undefined ? [] : [page.dict.entries.get('Contents')!];
    const pageResources = dictIn(doc, inheritedEntry(doc, page.dict, 'Resources'));
    // A page's transparency group colour space is the blending space of everything on it: a use (the corpus' 2b 6-2-10 t01/t04/t06/t07 fail files).
    const group = dictIn(doc, page.dict.entries.get('Group'));
    if (group !== undefined && nameOf(doc, group, 'S') === 'Transparency' && group.entries.has('CS')) {
      yield* colourSpaceObjects(doc, group.entries.get('CS'), pageResources, { overprint: false, opm: 0 }, separations, `${page.path}/Group/CS`);
    }
    jobs.push({
      streams,
      own: pageResources,
      parent: undefined,
      path: `${page.path}/Contents`,
      page: true,
      pageNumber: page.number,
      ...(covered.has(page.dict) ? { actualTextMcids: covered.get(page.dict) } : {}),
      ...(pageResources !== undefined && !page.dict.entries.has('Resources') ? { resourcesFromTree: true } : {}),
      start: INITIAL_COLOUR,
      ...(contents === undefined ? {} : { contents }),
    });
    const annots = doc.resolve(page.dict.entries.get('Annots'));
    for (const [i, a] of (annots?.kind === 'array' ? annots.items : []).entries()) {
      const ap = dictIn(doc, dictIn(doc, a)?.entries.get('AP'));
      const annotPath = pathOf(a, `${page.path}/Annots[${i}]`);
      for (const [k, item] of ap?.entries ?? []) {
        const v = doc.resolve(item);
        if (v?.kind === 'stream') addForm(item, undefined, `${annotPath}/AP/${k}`);
        else if (v?.kind === 'dict') for (const [state, s] of v.entries) addForm(s, undefined, `${annotPath}/AP/${k}/${state}`);
      }
    }
  }

  // A stream read again (shared by pages, or drawn in a new colour state) is decoded and parsed once while the cache has room.
  let streamsRead = 0;
  const pageReads = new Map<object, Set<CosDict | undefined>>();
  for (let next = 0; next < jobs.length; next++) {
    const job = jobs[next]!;
    currentPage = job.pageNumber;
    if (job.page === true && job.contents !== undefined) {
      // Content shared by pages with the same resources reads the same: once is enough.
      let withResources = pageReads.get(job.contents);
      if (withResources === undefined) {
        withResources = new Set();
        pageReads.set(job.contents, withResources);
      }
      if (withResources.has(job.own)) continue;
      withResources.add(job.own);
    }
    const reader = new StreamReader(doc, job, uses, addForm, queue, separations);
    let any = false;
    // A page's /Contents array is one content stream in pieces (ISO 32000-1 7.8.2): the q nesting runs on across them.
    for (const [si, sv] of job.streams.entries()) {
      const stream = doc.resolve(sv);
      if (stream?.kind !== 'stream') continue;
      if (++streamsRead > MAX_STREAMS) {
        note(uses, `more than ${MAX_STREAMS} content streams: the rest were not read`);
        return;
      }
      any = true;
      const path = job.streams.length > 1 ? `${job.path}[${si}]` : pathOf(sv, job.path);
      const read = content.read(stream);
      if (!read.ok) {
        if (!job.colourOnly) note(uses, `the content stream ${path} could not be decoded (${read.reason}): what it uses was not checked`);
        continue;
      }
      yield* reader.read(read.tokens, `${path} (content)`);
    }
    if (any && job.colourOnly !== true) yield modelObject(T.contentStream, job.path, { inheritedResourceNames: [...reader.inherited].join('&') }, job.pageNumber);
  }
}

class StreamReader {
  /** Names found only in the parent's resources (PDF/A-2 6.2.2: a content stream needs its own). */
  readonly inherited = new Set<string>();
  private depth = 0;
  private state: ColourState;
  private readonly saved: ColourState[] = [];
  /** Open marked-content sequences: whether each has an /ActualText (glyphs' actualTextPresent). */
  private readonly marked: boolean[] = [];
  /** Colour uses already reported from this stream (one object per colour space and overprint state). */
  private readonly reported = new Set<string>();
  /** The last colour use newUse was asked about. */
  private last: { cs: CosValue | undefined | null; overprint: boolean; opm: number } = { cs: null, overprint: false, opm: -1 };

  constructor(
    private readonly doc: CosDocument,
    private readonly job: Job,
    private readonly uses: ContentUses,
    private readonly addForm: (v: CosValue | undefined, parent: CosDict | undefined, path: string, start?: ColourState) => void,
    private readonly queue: (v: CosValue | undefined, own: CosDict | undefined, parent: CosDict | undefined, path: string, start?: ColourState) => void,
    private readonly separations: SeparationFacts,
  ) {
    this.state = job.start;
  }

  /** The resources in force for what this stream invokes: its own, else the borrowed ones. */
  private get resources(): CosDict | undefined {
    return this.job.own ?? this.job.parent;
  }

  private resource(category: string, name: string, path: string): { value: CosValue | undefined; path: string } {
    const own = dictIn(this.doc, this.job.own?.entries.get(category))?.entries.get(name);
    if (own !== undefined) {
      if (this.job.resourcesFromTree === true) this.inherited.add(name);
      return { value: own, path: pathOf(own, `${path}/${category}/${name}`) };
    }
    const parent = dictIn(this.doc, this.job.parent?.entries.get(category))?.entries.get(name);
    // A form, pattern, glyph or appearance without /Resources that names a resource has none explicitly associated, found elsewhere or not.
    if (parent !== undefined || (this.job.own === undefined && this.job.page !== true)) this.inherited.add(name);
    return { value: parent, path: pathOf(parent, `${path}/${category}/${name}`) };
  }

  /** A colour space set by name (`cs`/`CS`): a device space or Pattern as it is, any other name looked up now (in the resources of the stream that set it). */
  private colourSpace(name: string, path: string): CosValue {
    if (DEVICE_SPACES.has(name)) return { kind: 'name', value: name };
    return this.doc.resolve(this.resource('ColorSpace', name, path).value) ?? COS_NULL_VALUE;
  }

  /**
   * Painting with `cs` now: the colour use when it is new for this stream (its colour space objects are due), else
   * undefined. Checked before any generator or path is made: text is painted at every Tj, in the same colours mostly.
   */
  private newUse(cs: CosValue | undefined, stroke: boolean): ColourUse | undefined {
    const overprint = stroke ? this.state.strokeOverprint : this.state.fillOverprint;
    const opm = this.state.opm;
    // The same colour space object and overprint state as the last paint: its key was met then (reported, or the set full).
    if (cs === this.last.cs && overprint === this.last.overprint && opm === this.last.opm) return undefined;
    this.last = { cs, overprint, opm };
    const key = `${csId(cs)} ${overprint} ${opm}`;
    if (this.reported.has(key) || this.reported.size > 1000) return undefined;
    this.reported.add(key);
    return { overprint, opm };
  }

  /** Something is painted with `cs`: its colour space objects, once per colour space and overprint state. */
  private *paint(cs: CosValue | undefined, stroke: boolean, path: string): Generator<LocatedObject> {
    const use = this.newUse(cs, stroke);
    if (use !== undefined) yield* colourSpaceObjects(this.doc, cs, this.resources, use, this.separations, path);
  }

  /** As paint, for operator `at` of the stream at `path`: undefined when nothing is due (no generator, no path string). */
  private paintAt(stroke: boolean, path: string, at: number): Generator<LocatedObject> | undefined {
    const cs = stroke ? this.state.stroke : this.state.fill;
    const use = this.newUse(cs, stroke);
    return use === undefined ? undefined : colourSpaceObjects(this.doc, cs, this.resources, use, this.separations, `${path}[${at}]`);
  }

  *read(tokens: Iterable<ContentToken>, path: string): Generator<LocatedObject> {
    const doc = this.doc;
    const uses = this.uses;
    const quiet = this.job.colourOnly === true;
    let operands: CosValue[] = [];
    let i = 0;
    for (const token of tokens) {
      const at = i++;
      if (token.kind === 'operand') {
        if (operands.length < MAX_OPERANDS) operands.push(token.value);
        continue;
      }
      if (token.kind === 'inlineImage') {
        if (!quiet) uses.inlineImages.push({ dict: token.dict, path: `${path}[${at}] (inline image)` });
        const d = token.dict;
        const isMask = boolOf(doc, d, 'IM') === true || boolOf(doc, d, 'ImageMask') === true;
        const csValue = d.entries.get('CS') ?? d.entries.get('ColorSpace');
        if (isMask) yield* this.paint(this.state.fill, false, `${path}[${at}] (inline image mask)`);
        else if (csValue !== undefined) {
          const cs = csValue.kind === 'name' && !INLINE_SPACES.has(csValue.value) ? this.colourSpace(csValue.value, path) : csValue;
          yield* this.paint(cs, false, `${path}[${at}] (inline image)`);
        }
        operands = [];
        continue;
      }
      const op = token.name;
      const firstOperand = operands[0];
      const last = operands[operands.length - 1];
      const lastName = last?.kind === 'name' ? last.value : undefined;
      const first = firstOperand?.kind === 'name' ? firstOperand.value : undefined;
      if (operands.length > 0) operands = [];
      // The operator's path (`${path}[${at}]`) is made only where it is used: most operators need none.
      if (!OPERATORS.has(op)) {
        if (!quiet) yield modelObject(T.undefinedOp, `${path}[${at}] (operator ${op.length > 20 ? `${op.slice(0, 20)}…` : op})`, {}, this.job.pageNumber);
        continue;
      }
      switch (op) {
        case 'q':
          this.depth++;
          if (this.saved.length < 10_000) this.saved.push(this.state);
          if (!quiet) yield valueObject(T.q, `${path}[${at}]`, 'nestingLevel', this.depth, this.job.pageNumber);
          break;
        case 'Q':
          if (this.depth > 0) this.depth--;
          this.state = this.saved.pop() ?? this.state;
          break;
        case 'g':
          this.state = { ...this.state, fill: DEVICE_GRAY };
          break;
        case 'G':
          this.state = { ...this.state, stroke: SET_DEVICE_GRAY };
          break;
        case 'rg':
          this.state = { ...this.state, fill: DEVICE_RGB };
          break;
        case 'RG':
          this.state = { ...this.state, stroke: DEVICE_RGB };
          break;
        case 'k':
          this.state = { ...this.state, fill: DEVICE_CMYK };
          break;
        case 'K':
          this.state = { ...this.state, stroke: DEVICE_CMYK };
          break;
        case 'cs':
          if (lastName !== undefined) this.state = { ...this.state, fill: this.colourSpace(lastName, `${path}[${at}]`) };
          break;
        case 'CS':
          if (lastName !== undefined) this.state = { ...this.state, stroke: this.colourSpace(lastName, `${path}[${at}]`) };
          break;
        case 'Tr': {
          const mode = last?.kind === 'int' ? last.value : null;
          if (mode !== null) this.state = { ...this.state, renderMode: mode };
          break;
        }
        case 'f':
        case 'F':
        case 'f*': {
          const fill = this.paintAt(false, path, at);
          if (fill !== undefined) yield* fill;
          break;
        }
        case 'S':
        case 's': {
          const stroke = this.paintAt(true, path, at);
          if (stroke !== undefined) yield* stroke;
          break;
        }
        case 'b':
        case 'b*':
        case 'B':
        case 'B*': {
          const fill = this.paintAt(false, path, at);
          if (fill !== undefined) yield* fill;
          const stroke = this.paintAt(true, path, at);
          if (stroke !== undefined) yield* stroke;
          break;
        }
        case 'Tj':
        case 'TJ':
        case "'":
        case '"': {
          const mode = this.state.renderMode;
          const font = this.state.font === undefined ? undefined : this.uses.fonts.get(this.state.font);
          if (font !== undefined && font.modes.size < 16) font.modes.add(mode);
          if (font !== undefined && this.state.font !== undefined) this.show(this.state.font, font, op === 'TJ' ? firstOperand : last, mode);
          // Text rendering modes (ISO 32000-1 Table 106): 3 and 7 paint nothing. In every other mode the fill colour space
          // counts as used, even in the stroke-only modes: the corpus' 1b 6-2-3-3-t01-fail-v and 2b 6-2-4-3-t01-fail-t show
          // text in mode 1 whose DeviceRGB fill colour makes the file fail. The stroke colour space counts where text is stroked
          // (1, 2, 5, 6), and below.
          const fill = mode !== 3 && mode !== 7 ? this.paintAt(false, path, at) : undefined;
          if (fill !== undefined) yield* fill;
          // In the fill modes the stroke colour still counts once the content has set one (the corpus' 1b 6-2-3-3-t01-fail-u and
          // 2b 6-2-4-3-t01-fail-s: DeviceRGB set by RG, text in mode 0); the initial DeviceGray does not (pass files without an
          // output intent show text in mode 0 with it). An explicit `G` is another object than the initial state's.
          const strokes = mode === 1 || mode === 2 || mode === 5 || mode === 6 || (mode !== 3 && mode !== 7 && this.state.stroke !== DEVICE_GRAY);
          const stroke = strokes ? this.paintAt(true, path, at) : undefined;
          if (stroke !== undefined) yield* stroke;
          break;
        }
        case 'sh':
          if (lastName !== undefined) {
            const r = this.resource('Shading', lastName, `${path}[${at}]`);
            yield* this.paint(dictIn(doc, r.value)?.entries.get('ColorSpace'), false, `${path}[${at}] (shading)`);
          }
          break;
        case 'Do':
          if (lastName !== undefined) yield* this.draw(lastName, `${path}[${at}]`);
          break;
        case 'gs':
          if (lastName !== undefined) this.setGraphicsState(lastName, `${path}[${at}]`);
          break;
        case 'scn':
        case 'SCN':
          if (lastName !== undefined) yield* this.pattern(lastName, `${path}[${at}]`);
          break;
        case 'Tf':
          if (first !== undefined) this.font(first, `${path}[${at}]`);
          break;
        case 'BDC':
        case 'DP': {
          const props = last?.kind === 'dict' ? last : lastName !== undefined ? dictIn(doc, this.resource('Properties', lastName, `${path}[${at}]`).value) : undefined;
          const mcid = props?.entries.get('MCID');
          const structural = mcid?.kind === 'int' && this.job.actualTextMcids?.has(mcid.value) === true;
          if (op === 'BDC' && this.marked.length < 10_000) this.marked.push(props?.entries.has('ActualText') === true || structural);
          break;
        }
        case 'BMC':
          if (this.marked.length < 10_000) this.marked.push(false);
          break;
        case 'EMC':
          this.marked.pop();
          break;
        default:
          break;
      }
    }
  }

  private setGraphicsState(name: string, path: string): void {
    const doc = this.doc;
    const r = this.resource('ExtGState', name, path);
    const gs = dictIn(doc, r.value);
    if (gs === undefined) return;
    if (!this.uses.extGStates.has(gs)) this.uses.extGStates.set(gs, r.path);
    const smask = dictIn(doc, gs.entries.get('SMask'));
    if (smask !== undefined) this.addForm(smask.entries.get('G'), this.resources, `${r.path}/SMask/G`);
    // OP sets both overprint flags unless op sets the non-stroking one (ISO 32000-1 Table 58).
    const OP = boolOf(doc, gs, 'OP');
    const op = boolOf(doc, gs, 'op');
    const opm = intOf(doc, gs, 'OPM');
    this.state = {
      ...this.state,
      strokeOverprint: OP ?? this.state.strokeOverprint,
      fillOverprint: op ?? OP ?? this.state.fillOverprint,
      opm: opm ?? this.state.opm,
    };
  }

  private *pattern(name: string, path: string): Generator<LocatedObject> {
    const doc = this.doc;
    const r = this.resource('Pattern', name, path);
    const p = doc.resolve(r.value);
    if (p?.kind === 'stream') {
      // A tiling pattern's cell is painted with the graphics state of the pattern's context, not the invoker's (ISO 32000-1 8.7.3.1).
      this.queue(p, dictIn(doc, p.dict.entries.get('Resources')), this.resources, r.path);
    } else if (p?.kind === 'dict') {
      const gsValue = p.entries.get('ExtGState');
      const gs = dictIn(doc, gsValue);
      if (gs !== undefined && !this.uses.extGStates.has(gs)) this.uses.extGStates.set(gs, pathOf(gsValue, `${r.path}/ExtGState`));
      yield* this.paint(dictIn(doc, p.entries.get('Shading'))?.entries.get('ColorSpace'), false, `${r.path} (shading)`);
    }
  }

  /** The codes of a shown string (`Tj ' "`: the string; `TJ`: the array's strings), for the Glyph objects. */
  private show(fontDict: CosDict, font: FontUse, operand: CosValue | undefined, mode: number): void {
    font.shown ??= newShownCodes(this.doc, fontDict);
    const strings = operand?.kind === 'array' ? operand.items : operand === undefined ? [] : [operand];
    const inActualText = this.marked.includes(true);
    for (const s of strings) if (s.kind === 'string') recordShown(font.shown, s.bytes, mode, inActualText, this.job.pageNumber);
  }

  private font(name: string, path: string): void {
    const doc = this.doc;
    const r = this.resource('Font', name, path);
    const font = dictIn(doc, r.value);
    if (font === undefined) return;
    this.state = { ...this.state, font };
    if (this.job.colourOnly !== true && !this.uses.fonts.has(font))
      this.uses.fonts.set(font, { path: r.path, modes: new Set(), ...(this.job.pageNumber === undefined ? {} : { page: this.job.pageNumber }) });
    if (nameOf(doc, font, 'Subtype') !== 'Type3') return;
    const procs = dictIn(doc, font.entries.get('CharProcs'));
    // Glyph procedures without the font's /Resources borrow the page's (ISO 32000-1 9.6.5, deprecated); they paint with the text's colours.
    const fontResources = dictIn(doc, font.entries.get('Resources'));
    for (const [k, proc] of procs?.entries ?? []) this.queue(proc, fontResources, this.resources, `${r.path}/CharProcs/${k}`, this.state);
  }

  private *draw(name: string, path: string): Generator<LocatedObject> {
    const doc = this.doc;
    const r = this.resource('XObject', name, path);
    const x = doc.resolve(r.value);
    if (x?.kind !== 'stream') return;
    const subtype = nameOf(doc, x.dict, 'Subtype');
    if (subtype === 'Form') {
      this.addForm(r.value, this.resources, r.path, this.state);
      const group = dictIn(doc, x.dict.entries.get('Group'));
      if (group !== undefined && group.entries.has('CS')) yield* this.paint(group.entries.get('CS'), false, `${r.path}/Group/CS`);
      return;
    }
    if (!this.uses.xobjects.has(x)) this.uses.xobjects.set(x, r.path);
    if (subtype !== 'Image') return;
    // An image mask is painted with the fill colour (ISO 32000-1 8.9.6.2); other images with their own colour space.
    if (boolOf(doc, x.dict, 'ImageMask') === true) yield* this.paint(this.state.fill, false, r.path);
    else yield* this.paint(x.dict.entries.get('ColorSpace'), false, r.path);
    // An image's soft mask and explicit mask are images too (ISO 32000-1 11.6.5.3, 8.9.6.3).
    for (const key of ['SMask', 'Mask']) {
      const m = x.dict.entries.get(key);
      const ms = doc.resolve(m);
      if (ms?.kind === 'stream' && !this.uses.xobjects.has(ms)) this.uses.xobjects.set(ms, pathOf(m, `${r.path}/${key}`));
    }
  }
}

const DEVICE_RGB: CosValue = { kind: 'name', value: 'DeviceRGB' };
const DEVICE_CMYK: CosValue = { kind: 'name', value: 'DeviceCMYK' };
const COS_NULL_VALUE: CosValue = { kind: 'null' };
/** Inline-image colour space names that are not resources (ISO 32000-1 Table 94). */
const INLINE_SPACES = new Set(['DeviceGray', 'DeviceRGB', 'DeviceCMYK', 'G', 'RGB', 'CMYK', 'Indexed', 'I']);

const ids = new WeakMap<object, number>();
let nextId = 0;
/** A colour space's identity for de-duplication: a name by its value, anything else by object identity. */
function csId(v: CosValue | undefined): string {
  if (v === undefined) return 'none';
  if (v.kind === 'name') return `/${v.value}`;
  let id = ids.get(v);
  if (id === undefined) {
    id = nextId++;
    ids.set(v, id);
  }
  return `#${id}`;
}

function stateKey(s: ColourState): string {
  return `${csId(s.fill)} ${csId(s.stroke)} ${s.renderMode} ${s.fillOverprint} ${s.strokeOverprint} ${s.opm}`;
}

/** Colour space names that are not resources (ISO 32000-1 8.6.3, 8.6.6.2). */
const DEVICE_SPACES = new Set(['DeviceGray', 'DeviceRGB', 'DeviceCMYK', 'Pattern']);
