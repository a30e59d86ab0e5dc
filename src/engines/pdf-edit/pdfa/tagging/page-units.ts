import { PDFStream, type PDFContext, type PDFDict } from '@cantoo/pdf-lib';
import { apply, IDENTITY, matrixOf, multiply, translate, type Matrix } from '../../matrix.js';
import { dictValue, N, nameValue, numbersOf, resolve } from '../../pdf-objects.js';
import { parseContent, type CsOp, type CsValue } from '../../redaction/content-lexer.js';
import { boundsOf, transformedBounds, type Rect } from '../../redaction/geometry.js';
import { decodeStream } from '../../redaction/stream-codec.js';
import { AutoTagError } from './errors.js';
import { fontText, type FontText } from './font-text.js';
import { splitWideTJ } from './split-runs.js';

/**
 * One page's content stream cut into the units the tagger marks (ISO 32000-1 §14.6, §14.8.2.2):
 *
 * - `text`: one text-showing operation (Tj, TJ, ', "), with where it starts on the page, its size
 *   and its text, read with the text state (CTM, Tm, Tf, Tc, Tw, Tz, TL, Ts) as the redactor reads it;
 * - `image`: an image XObject or an inline image, with its box;
 * - `form`: a form XObject, with what it shows (text, images, or only paths);
 * - `artifact`: a painted path (construction through painting operator, never split) or a shading;
 * - `neutral`: state operators, and paths that only clip: they paint nothing and need no mark;
 * - `barrier`: q/Q, BT/ET, BX/EX and the input's own marked content: a mark never spans one, so
 *   every sequence the tagger writes is balanced against them.
 *
 * Units inside the input's own /Artifact sequences are neutral: already marked.
 */

export interface TextRun {
  x: number;
  y: number;
  /** Where the run ends along the baseline (its advance applied). */
  endX: number;
  /** Effective size in points (font size × the vertical scale of Tm × CTM). */
  size: number;
  text: string;
  /** Shown in a bold face. */
  bold: boolean;
}

export type Unit =
  | { kind: 'text'; first: number; last: number; run: TextRun }
  | { kind: 'image'; first: number; last: number; box: Rect }
  | { kind: 'form'; first: number; last: number; box: Rect; shows: 'text' | 'image' | 'paths' }
  | { kind: 'artifact'; first: number; last: number /** A painted path's extent (its points, not its stroke width). */; box?: Rect }
  | { kind: 'neutral' | 'barrier'; first: number; last: number };

export interface PageUnits {
  bytes: Uint8Array;
  ops: CsOp[];
  units: Unit[];
}

export interface UnitLimits {
  /** Decoded bytes of one page's content at most. */
  maxContentBytes: number;
  /** Operations of one page at most. */
  maxOperations: number;
}

const PATH_CONSTRUCTION = new Set(['m', 'l', 'c', 'v', 'y', 'h', 're']);
const PATH_PAINTING = new Set(['S', 's', 'f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'n']);
const CLIPPING = new Set(['W', 'W*']);
const BARRIERS = new Set(['q', 'Q', 'BT', 'ET', 'BX', 'EX']);
const TEXT_SHOWING = new Set(['Tj', 'TJ', "'", '"']);
const MAX_FORM_DEPTH = 12;

/** The text-state numbers set by their operator as given: character and word spacing, leading, rise (§9.3). */
type TextNumbers = Record<'Tc' | 'Tw' | 'TL' | 'Ts', number>;

interface TextState {
  ctm: Matrix;
  font: FontText | undefined;
  fontSize: number;
  /** Tz / 100 */
  hScale: number;
  numbers: TextNumbers;
}

/** The units of a page whose decoded content is `bytes`, in stream order. */
export function pageUnits(context: PDFContext, bytes: Uint8Array, resources: PDFDict | undefined, limits: UnitLimits): PageUnits {
  if (bytes.length > limits.maxContentBytes) throw new AutoTagError('tooLarge', `its content is ${bytes.length} bytes, more than the ${limits.maxContentBytes} the auto-tagger reads per page`);
  let ops: CsOp[];
  try {
    ops = parseContent(bytes).ops;
  } catch (error) {
    throw new AutoTagError('unsupported', `its content cannot be read (${(error as Error).message})`);
  }
  // A row of table cells written as one TJ becomes one TJ per cell (split-runs.ts): marks hold whole operations.
  const split = splitWideTJ(bytes, ops);
  if (split) {
    bytes = split;
    ops = parseContent(bytes).ops;
  }
  if (ops.length > limits.maxOperations) throw new AutoTagError('tooLarge', `its content has ${ops.length} operations, more than the ${limits.maxOperations} the auto-tagger reads per page`);
  return { bytes, ops, units: new UnitReader(context, resources).read(ops) };
}

class UnitReader {
  private gs: TextState = { ctm: IDENTITY, font: undefined, fontSize: 0, hScale: 1, numbers: { Tc: 0, Tw: 0, TL: 0, Ts: 0 } };
  private readonly stack: TextState[] = [];
  private tm: Matrix = IDENTITY;
  private tlm: Matrix = IDENTITY;
  private readonly units: Unit[] = [];
  /** The input's open marked-content sequences: true for an /Artifact one. */
  private readonly marked: boolean[] = [];
  private pathStart = -1;
  private pathBox: Rect | undefined;

  constructor(
    private readonly context: PDFContext,
    private readonly resources: PDFDict | undefined,
  ) {}

  read(ops: readonly CsOp[]): Unit[] {
    for (let i = 0; i < ops.length; i++) this.step(ops[i]!, i);
    if (this.pathStart >= 0) this.add({ kind: 'neutral', first: this.pathStart, last: ops.length - 1 }); // a path never painted
    return this.units;
  }

  private add(unit: Unit): void {
    // Inside the input's own artifact everything is marked already.
    if (this.marked.includes(true) && unit.kind !== 'barrier') this.units.push({ kind: 'neutral', first: unit.first, last: unit.last });
    else this.units.push(unit);
  }

  private step(op: CsOp, i: number): void {
    const name = op.op;
    if (this.pathStart >= 0 || PATH_CONSTRUCTION.has(name)) {
      if (this.pathStart < 0) {
        this.pathStart = i;
        this.pathBox = undefined;
      }
      if (PATH_CONSTRUCTION.has(name)) this.extendPath(name, numbers(op.args));
      if (PATH_PAINTING.has(name)) {
        const clipsOnly = name === 'n';
        if (clipsOnly) this.add({ kind: 'neutral', first: this.pathStart, last: i });
        else this.add({ kind: 'artifact', first: this.pathStart, last: i, ...(this.pathBox ? { box: this.pathBox } : {}) });
        this.pathStart = -1;
      } else if (!PATH_CONSTRUCTION.has(name) && !CLIPPING.has(name)) {
        // Anything else ends a malformed path: it stays as written, unmarked.
        this.add({ kind: 'neutral', first: this.pathStart, last: i - 1 });
        this.pathStart = -1;
        this.step(op, i);
      }
      return;
    }
    if (PATH_PAINTING.has(name)) return this.add({ kind: 'neutral', first: i, last: i }); // paints an empty path
    if (TEXT_SHOWING.has(name)) return this.add({ kind: 'text', first: i, last: i, run: this.showText(op) });
    switch (name) {
      case 'q':
        this.stack.push({ ...this.gs, numbers: { ...this.gs.numbers } });
        break;
      case 'Q':
        this.gs = this.stack.pop() ?? this.gs;
        break;
      case 'BT':
        this.tm = this.tlm = IDENTITY;
        break;
      case 'BDC':
      case 'BMC':
        this.marked.push(op.args[0]?.t === 'name' && op.args[0].v === 'Artifact');
        if (op.op === 'BDC' && hasMcid(op.args[1])) throw new AutoTagError('unsupported', 'its content carries marked-content identifiers (MCID) of a structure tree the document does not have');
        this.units.push({ kind: 'barrier', first: i, last: i });
        return;
      case 'EMC':
        this.marked.pop();
        this.units.push({ kind: 'barrier', first: i, last: i });
        return;
      case 'cm': {
        const m = matrixOf(numbers(op.args));
        if (m) this.gs.ctm = multiply(m, this.gs.ctm);
        break;
      }
      case 'Tf':
        this.gs.font = this.font(op.args[0]);
        this.gs.fontSize = num(op.args[1]);
        break;
      case 'Tc':
      case 'Tw':
      case 'TL':
      case 'Ts':
        this.gs.numbers[name] = num(op.args[0]);
        break;
      case 'Tz':
        this.gs.hScale = num(op.args[0], 100) / 100;
        break;
      case 'Td':
        this.moveLine(num(op.args[0]), num(op.args[1]));
        break;
      case 'TD':
        this.gs.numbers.TL = -num(op.args[1]);
        this.moveLine(num(op.args[0]), num(op.args[1]));
        break;
      case 'Tm': {
        const m = matrixOf(numbers(op.args));
        if (m) this.tm = this.tlm = m;
        break;
      }
      case 'T*':
        this.moveLine(0, -this.gs.numbers.TL);
        break;
      case 'Do':
        return this.add(this.xObject(op, i));
      case 'BI':
        return this.add({ kind: 'image', first: i, last: i, box: transformedBounds(this.gs.ctm, 0, 0, 1, 1) });
      case 'sh':
        return this.add({ kind: 'artifact', first: i, last: i });
    }
    this.add({ kind: BARRIERS.has(name) ? 'barrier' : 'neutral', first: i, last: i });
  }

  /**
   * The path's extent on the page: its points (a rectangle's corners) through the CTM. An operand
   * that is no number (NaN here) gives no point: boundsOf skips what is not finite.
   */
  private extendPath(name: string, args: number[]): void {
    const [x, y, w, h] = args;
    const local = name === 're' && args.length === 4 ? [[x!, y!] as const, [x! + w!, y! + h!] as const] : args.length >= 2 ? [[args[args.length - 2]!, args[args.length - 1]!] as const] : [];
    const points = local.map(([px, py]) => apply(this.gs.ctm, px, py));
    const was = this.pathBox;
    if (was) points.push([was.x0, was.y0], [was.x1, was.y1]);
    this.pathBox = boundsOf(points);
  }

  private moveLine(tx: number, ty: number): void {
    this.tlm = multiply(translate(tx, ty), this.tlm);
    this.tm = this.tlm;
  }

  private font(name: CsValue | undefined): FontText | undefined {
    if (name?.t !== 'name') return undefined;
    const fonts = dictValue(this.context, this.resources?.get(N('Font')));
    const font = dictValue(this.context, fonts?.get(N(name.v)));
    return font ? fontText(this.context, font) : undefined;
  }

  /** Where the text starts, its size and text; the text matrix advanced past it (§9.4.4). */
  private showText(op: CsOp): TextRun {
    const gs = this.gs;
    if (op.op === "'" || op.op === '"') {
      if (op.op === '"') {
        gs.numbers.Tw = num(op.args[0]);
        gs.numbers.Tc = num(op.args[1]);
      }
      this.moveLine(0, -gs.numbers.TL);
    }
    const startAt = (): Matrix => multiply(multiply([gs.fontSize * gs.hScale, 0, 0, gs.fontSize, 0, gs.numbers.Ts], this.tm), gs.ctm);
    // The run starts where its first string shows: a TJ's leading move (a table cell's, split-runs.ts) is not part of it.
    let start: Matrix | undefined;
    const size = Math.abs(gs.fontSize) * Math.hypot(...scaleOf(multiply(this.tm, gs.ctm)));
    const operand = op.op === 'TJ' ? op.args[0] : op.args[op.args.length - 1];
    const items = operand?.t === 'arr' ? operand.v : operand ? [operand] : [];
    let text = '';
    for (const item of items) {
      if (item.t === 'num') {
        // A large negative adjustment is a word space the writer did not encode as one.
        if (item.v < -200 && text !== '' && !text.endsWith(' ')) text += ' ';
        this.tm = multiply(translate((-item.v / 1000) * gs.fontSize * gs.hScale, 0), this.tm);
        continue;
      }
      if (item.t !== 'str') continue;
      start ??= startAt();
      const font = gs.font;
      if (!font) {
        text += Buffer.from(item.v).toString('latin1');
        this.tm = multiply(translate(item.v.length * 0.5 * gs.fontSize * gs.hScale, 0), this.tm);
        continue;
      }
      const codes = font.info.split(item.v);
      text += font.text(codes);
      let advance = 0;
      for (const code of codes) {
        const w0 = font.info.unsupported ? 0.5 : font.info.width(code.code);
        advance += (w0 * gs.fontSize + gs.numbers.Tc + (font.info.isWordSpace(code) ? gs.numbers.Tw : 0)) * gs.hScale;
      }
      this.tm = multiply(translate(advance, 0), this.tm);
    }
    start ??= startAt();
    const end = multiply(this.tm, gs.ctm);
    return { x: start[4], y: start[5], endX: end[4], size: Number.isFinite(size) ? size : 0, text, bold: gs.font?.bold ?? false };
  }

  private xObject(op: CsOp, i: number): Unit {
    const name = op.args[0];
    const xobjects = dictValue(this.context, this.resources?.get(N('XObject')));
    const target = name?.t === 'name' ? resolve(this.context, xobjects?.get(N(name.v))) : undefined;
    const box = transformedBounds(this.gs.ctm, 0, 0, 1, 1);
    if (!(target instanceof PDFStream)) return { kind: 'neutral', first: i, last: i }; // draws nothing
    const subtype = nameValue(this.context, target.dict.get(N('Subtype')));
    if (subtype === 'Image') return { kind: 'image', first: i, last: i, box };
    if (subtype !== 'Form') return { kind: 'neutral', first: i, last: i };
    const matrix = matrixOf(numbersOf(this.context, target.dict.get(N('Matrix'))) ?? []) ?? IDENTITY;
    const bbox = numbersOf(this.context, target.dict.get(N('BBox'))) ?? [];
    const formBox = bbox.length === 4 && bbox.every(Number.isFinite) ? transformedBounds(multiply(matrix, this.gs.ctm), bbox[0]!, bbox[1]!, bbox[2]!, bbox[3]!) : box;
    return { kind: 'form', first: i, last: i, box: formBox, shows: formShows(this.context, target, 0, new Set()) };
  }
}

/** What a form XObject shows, looking into the forms it draws (bounded in depth, each form once). */
function formShows(context: PDFContext, form: PDFStream, depth: number, seen: Set<PDFStream>): 'text' | 'image' | 'paths' {
  if (depth > MAX_FORM_DEPTH || seen.has(form)) return 'paths';
  seen.add(form);
  let ops: CsOp[];
  try {
    ops = parseContent(decodeStream(form).data).ops;
  } catch {
    return 'paths';
  }
  const resources = dictValue(context, form.dict.get(N('Resources')));
  const xobjects = dictValue(context, resources?.get(N('XObject')));
  let shows: 'text' | 'image' | 'paths' = 'paths';
  for (const op of ops) {
    if (TEXT_SHOWING.has(op.op)) return 'text';
    if (op.op === 'BI') shows = 'image';
    if (op.op === 'Do' && op.args[0]?.t === 'name') {
      const target = resolve(context, xobjects?.get(N(op.args[0].v)));
      if (!(target instanceof PDFStream)) continue;
      const subtype = nameValue(context, target.dict.get(N('Subtype')));
      if (subtype === 'Image') shows = 'image';
      else if (subtype === 'Form') {
        const inner = formShows(context, target, depth + 1, seen);
        if (inner === 'text') return 'text';
        if (inner === 'image') shows = 'image';
      }
    }
  }
  return shows;
}

function hasMcid(properties: CsValue | undefined): boolean {
  return properties?.t === 'dict' && properties.v.has('MCID');
}

function scaleOf(m: Matrix): [number, number] {
  return [m[2], m[3]];
}

function num(value: CsValue | undefined, fallback = 0): number {
  return value?.t === 'num' && Number.isFinite(value.v) ? value.v : fallback;
}

function numbers(values: readonly CsValue[]): number[] {
  return values.map((v) => num(v, Number.NaN));
}
