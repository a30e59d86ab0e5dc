import { PDFArray, PDFDict, PDFNumber, PDFRawStream, type PDFContext, type PDFObject, type PDFRef, PDFStream } from '@cantoo/pdf-lib';
import { formatHexString, formatName, formatNumber, formatOp, parseContent, type CsOp, type CsValue } from './content-lexer.js';
import { fontInfo, MISSING_FONT, type FontInfo } from './fonts.js';
import { coveredShare, meetsRatio, overlapsAny, overlapsStrictly, transformedBounds, type Rect } from './geometry.js';
import { redactImage } from './image-redaction.js';
import { IDENTITY, invert, matrixOf, multiply, translate, type Matrix } from '../matrix.js';
import { clipPath, PathBuilder } from './path-clip.js';
import { dictValue, freshKey, N, nameValue, numbersOf, resolve } from '../pdf-objects.js';
import { decodeStream, deflate, StreamDecodeError } from './stream-codec.js';

/**
 * The content-stream editor behind `blacken`: it interprets a page's (or form's) operators far
 * enough to know where each glyph, image and path lands on the page (CTM, text matrices, text state,
 * fonts), and rewrites only what lies under the redaction areas:
 *
 * - glyphs covered by at least `collisionRatio` % are taken out of their Tj/TJ/'/" string and replaced
 *   by a TJ position adjustment of the same advance, so the text around them keeps its place and stays
 *   selectable; marked-content /ActualText, /Alt and /E around removed glyphs is dropped (it would
 *   otherwise still carry the words);
 * - images are edited pixel by pixel (image-redaction.ts), form XObjects are edited recursively on a
 *   copy for this placement, paths are cut geometrically (path-clip.ts).
 *
 * What it cannot do safely — text in a font whose codes or widths are unknown, inline images or
 * images in codecs it cannot edit under an area, undecodable streams — it reports as `fallback`, and
 * the page is rasterised instead.
 */

export interface RedactionSettings {
  areas: readonly Rect[];
  texts: boolean;
  images: boolean;
  paths: boolean;
  /** Percent of a glyph's box that must be covered for the glyph to be removed. */
  collisionRatio: number;
  /** Collects the images and forms replaced by redacted copies (or dropped), for resource pruning. */
  replaced: Set<PDFObject>;
}

export interface ContentResult {
  bytes: Uint8Array;
  changed: boolean;
  /** Why this content cannot be edited safely (the caller rasterises the page). */
  fallback?: string;
  /** A copy of the resources with the new XObjects, when any were added. */
  resources?: PDFDict;
}

interface GraphicsState {
  ctm: Matrix;
  font: FontInfo | undefined;
  fontSize: number;
  charSpacing: number;
  wordSpacing: number;
  /** Tz / 100 */
  hScale: number;
  leading: number;
  rise: number;
}

interface MarkedContent {
  chunk: number;
  op: CsOp;
  /** The inline property list carries replacement texts that removed glyphs would leave behind. */
  carriesText: boolean;
  touched: boolean;
}

const TEXT_KEYS = ['ActualText', 'Alt', 'E'];
const MAX_FORM_DEPTH = 12;

class Fallback extends Error {}

/** The text-state operators that set one number of the text state as given (ISO 32000-1 §9.3; Tz is a percentage). */
const TEXT_STATE_NUMBERS = { Tc: 'charSpacing', Tw: 'wordSpacing', TL: 'leading', Ts: 'rise' } as const;

export class ContentRedactor {
  private readonly chunks: Uint8Array[] = [];
  private changed = false;
  private gs: GraphicsState;
  private readonly stack: GraphicsState[] = [];
  private tm: Matrix = IDENTITY;
  private tlm: Matrix = IDENTITY;
  private path = new PathBuilder();
  private pathOps: CsOp[] = [];
  private clipOp: CsOp | undefined;
  private readonly marked: MarkedContent[] = [];
  private newResources: PDFDict | undefined;
  private readonly ownCategories = new Map<string, PDFDict>();
  private readonly touchedNames = new Set<string>();
  private readonly usedNames = new Set<string>();

  constructor(
    private readonly context: PDFContext,
    private readonly settings: RedactionSettings,
    private readonly resources: PDFDict | undefined,
    ctm: Matrix,
    private readonly forms: ReadonlySet<PDFStream> = new Set(),
  ) {
    this.gs = { ctm, font: undefined, fontSize: 0, charSpacing: 0, wordSpacing: 0, hScale: 1, leading: 0, rise: 0 };
  }

  async run(bytes: Uint8Array): Promise<ContentResult> {
    try {
      return await this.interpret(bytes);
    } catch (error) {
      if (error instanceof Fallback) return { bytes, changed: false, fallback: error.message };
      throw error;
    }
  }

  private async interpret(bytes: Uint8Array): Promise<ContentResult> {
    const { ops, tail } = parseContent(bytes);
    let depth = 0;
    for (const op of ops) {
      const original = bytes.subarray(op.start, op.end);
      switch (op.op) {
        case 'q':
          this.stack.push({ ...this.gs });
          depth++;
          this.emit(original);
          break;
        case 'Q':
          if (depth === 0) {
            this.changed = true; // an unbalanced Q would pop the caller's state: dropped
            break;
          }
          depth--;
          this.gs = this.stack.pop() ?? this.gs;
          this.emit(original);
          break;
        case 'cm': {
          const m = matrixOf(nums(op.args));
          if (m) this.gs.ctm = multiply(m, this.gs.ctm);
          this.emit(original);
          break;
        }
        case 'BT':
          this.tm = IDENTITY;
          this.tlm = IDENTITY;
          this.emit(original);
          break;
        case 'Tf':
          this.gs.font = this.font(op.args[0]);
          this.gs.fontSize = num(op.args[1]);
          this.emit(original);
          break;
        case 'Tc':
        case 'Tw':
        case 'TL':
        case 'Ts':
          this.gs[TEXT_STATE_NUMBERS[op.op]] = num(op.args[0]);
          this.emit(original);
          break;
        case 'Tz':
          this.gs.hScale = num(op.args[0], 100) / 100;
          this.emit(original);
          break;
        case 'Td':
          this.moveLine(num(op.args[0]), num(op.args[1]));
          this.emit(original);
          break;
        case 'TD':
          this.gs.leading = -num(op.args[1]);
          this.moveLine(num(op.args[0]), num(op.args[1]));
          this.emit(original);
          break;
        case 'Tm': {
          const m = matrixOf(nums(op.args));
          if (m) this.tm = this.tlm = m;
          this.emit(original);
          break;
        }
        case 'T*':
          this.moveLine(0, -this.gs.leading);
          this.emit(original);
          break;
        case 'Tj':
        case 'TJ':
        case "'":
        case '"':
          this.showText(op, original);
          break;
        case 'gs':
          this.extGState(op.args[0]);
          this.emit(original);
          break;
        case 'Do':
          await this.drawXObject(op, original);
          break;
        case 'BI':
          if (this.settings.images && overlapsStrictly(transformedBounds(this.gs.ctm, 0, 0, 1, 1), this.settings.areas)) {
            throw new Fallback('an inline image under a redaction area');
          }
          this.emit(original);
          break;
        case 'm':
        case 'l':
        case 'c':
        case 'v':
        case 'y':
        case 'h':
        case 're':
          this.buildPath(op);
          break;
        case 'W':
        case 'W*':
          this.clipOp = op;
          break;
        case 'S':
        case 's':
        case 'f':
        case 'F':
        case 'f*':
        case 'B':
        case 'B*':
        case 'b':
        case 'b*':
        case 'n':
          this.paintPath(op, bytes);
          break;
        case 'BDC':
        case 'BMC':
          this.beginMarked(op, original);
          break;
        case 'EMC':
          this.endMarked();
          this.emit(original);
          break;
        default:
          this.emit(original);
      }
    }
    // Path operators without a painting operator at the end: kept as written.
    for (const op of this.pathOps) this.emit(bytes.subarray(op.start, op.end));
    if (this.clipOp) this.emit(bytes.subarray(this.clipOp.start, this.clipOp.end));
    this.emit(bytes.subarray(tail));
    while (this.marked.length > 0) this.endMarked();
    this.dropNamedProperties();
    if (depth > 0) this.emitText(`\n${'Q '.repeat(depth)}`);
    return {
      bytes: Buffer.concat(this.chunks),
      changed: this.changed,
      ...(this.newResources ? { resources: this.newResources } : {}),
    };
  }

  private emit(bytes: Uint8Array): void {
    this.chunks.push(bytes);
  }

  private emitText(text: string): void {
    this.chunks.push(Buffer.from(text, 'latin1'));
  }

  private moveLine(tx: number, ty: number): void {
    this.tlm = multiply(translate(tx, ty), this.tlm);
    this.tm = this.tlm;
  }

  private font(name: CsValue | undefined): FontInfo {
    if (name?.t !== 'name') return MISSING_FONT;
    const fonts = dictValue(this.context, this.resources?.get(N('Font')));
    const font = dictValue(this.context, fonts?.get(N(name.v)));
    return font ? fontInfo(this.context, font) : MISSING_FONT;
  }

  /** `gs` with a /Font entry sets the font like Tf (§8.4.5). */
  private extGState(name: CsValue | undefined): void {
    if (name?.t !== 'name') return;
    const states = dictValue(this.context, this.resources?.get(N('ExtGState')));
    const state = dictValue(this.context, states?.get(N(name.v)));
    const entry = state ? resolve(this.context, state.get(N('Font'))) : undefined;
    if (entry instanceof PDFArray) {
      const font = dictValue(this.context, entry.get(0));
      const size = resolve(this.context, entry.get(1));
      this.gs.font = font ? fontInfo(this.context, font) : MISSING_FONT;
      if (size instanceof PDFNumber) this.gs.fontSize = size.asNumber();
    }
  }

  private showText(op: CsOp, original: Uint8Array): void {
    const gs = this.gs;
    let prefix = '';
    if (op.op === "'" || op.op === '"') {
      if (op.op === '"') {
        gs.wordSpacing = num(op.args[0]);
        gs.charSpacing = num(op.args[1]);
        prefix = `${formatNumber(gs.wordSpacing)} Tw ${formatNumber(gs.charSpacing)} Tc `;
      }
      this.moveLine(0, -gs.leading);
      prefix += 'T* ';
    }
    const operand = op.op === 'TJ' ? op.args[0] : op.args[op.args.length - 1];
    const items: (Uint8Array | number)[] = [];
    if (operand?.t === 'arr') {
      for (const item of operand.v) {
        if (item.t === 'str') items.push(item.v);
        else if (item.t === 'num') items.push(item.v);
      }
    } else if (operand?.t === 'str') items.push(operand.v);

    const font = gs.font ?? MISSING_FONT;
    const hasGlyphs = items.some((item) => typeof item !== 'number' && item.length > 0);
    if (font.unsupported && hasGlyphs) {
      if (this.settings.texts) throw new Fallback(`text in ${font.unsupported}`);
    }
    const out: (Uint8Array | number)[] = [];
    let removedAny = false;
    const scale = gs.fontSize * gs.hScale;
    for (const item of items) {
      if (typeof item === 'number') {
        this.tm = multiply(translate((-item / 1000) * gs.fontSize * gs.hScale, 0), this.tm);
        pushNumber(out, item);
        continue;
      }
      let run: number[] = [];
      const flush = (): void => {
        if (run.length > 0) out.push(Uint8Array.from(run));
        run = [];
      };
      for (const code of font.split(item)) {
        const w0 = font.width(code.code);
        const advance = (w0 * gs.fontSize + gs.charSpacing + (font.isWordSpace(code) ? gs.wordSpacing : 0)) * gs.hScale;
        let remove = false;
        if (this.settings.texts && !font.unsupported) {
          const trm = multiply(multiply([scale, 0, 0, gs.fontSize, 0, gs.rise], this.tm), gs.ctm);
          const box = transformedBounds(trm, 0, font.descent, w0, font.ascent);
          if (overlapsAny(box, this.settings.areas)) {
            const share = coveredShare(trm, 0, font.descent, w0, font.ascent, this.settings.areas);
            remove = meetsRatio(share, this.settings.collisionRatio, overlapsStrictly(box, this.settings.areas));
          }
        }
        if (remove) {
          removedAny = true;
          flush();
          // The same advance as a TJ adjustment (in thousandths of an em, against the writing direction).
          if (scale !== 0) pushNumber(out, (-advance * 1000) / scale);
        } else {
          for (let k = 0; k < code.length; k++) run.push(item[code.offset + k]!);
        }
        this.tm = multiply(translate(advance, 0), this.tm);
      }
      flush();
    }
    if (!removedAny) {
      this.emit(original);
      return;
    }
    this.changed = true;
    for (const entry of this.marked) if (entry.carriesText) entry.touched = true;
    const array = out.map((item) => (typeof item === 'number' ? formatNumber(item) : formatHexString(item))).join(' ');
    this.emitText(`\n${prefix}[${array}] TJ`);
  }

  private async drawXObject(op: CsOp, original: Uint8Array): Promise<void> {
    const name = op.args[0];
    const xobjects = dictValue(this.context, this.resources?.get(N('XObject')));
    const stream = name?.t === 'name' ? resolve(this.context, xobjects?.get(N(name.v))) : undefined;
    if (!(stream instanceof PDFStream)) {
      this.emit(original);
      return;
    }
    const xobject = stream;
    const subtype = nameValue(this.context, xobject.dict.get(N('Subtype')));
    if (subtype === 'Image') {
      if (!this.settings.images) {
        this.emit(original);
        return;
      }
      const outcome = await redactImage(this.context, xobject, this.gs.ctm, this.settings.areas);
      if (outcome.kind === 'unsupported') throw new Fallback(`${outcome.reason} under a redaction area`);
      if (outcome.kind === 'keep') this.emit(original);
      else {
        this.changed = true;
        this.settings.replaced.add(xobject);
        if (outcome.kind === 'replace') this.emitText(`\n${formatName(this.addXObject(outcome.ref))} Do`);
      }
      return;
    }
    if (subtype === 'Form') {
      const replaced = await this.redactForm(xobject);
      if (replaced) {
        this.changed = true;
        this.settings.replaced.add(xobject);
        this.emitText(`\n${formatName(this.addXObject(replaced))} Do`);
      } else this.emit(original);
      return;
    }
    this.emit(original);
  }

  /** Edits a form XObject drawn here; returns the edited copy, or undefined when it is untouched. */
  private async redactForm(form: PDFStream): Promise<PDFRef | undefined> {
    const matrix = matrixOf(numbersOf(this.context, form.dict.get(N('Matrix'))) ?? [1, 0, 0, 1, 0, 0]) ?? IDENTITY;
    const ctm = multiply(matrix, this.gs.ctm);
    const bbox = numbersOf(this.context, form.dict.get(N('BBox')));
    if (bbox && bbox.length === 4 && bbox.every(Number.isFinite)) {
      if (!overlapsStrictly(transformedBounds(ctm, bbox[0]!, bbox[1]!, bbox[2]!, bbox[3]!), this.settings.areas)) return undefined;
    }
    if (this.forms.has(form)) return undefined; // a form drawing itself: viewers stop there too
    if (this.forms.size >= MAX_FORM_DEPTH) throw new Fallback('form XObjects nested too deeply');
    let content: Uint8Array;
    try {
      content = decodeStream(form).data;
    } catch (error) {
      if (error instanceof StreamDecodeError) throw new Fallback(`a form XObject whose content cannot be decoded (${error.message})`);
      throw error;
    }
    const resources = dictValue(this.context, form.dict.get(N('Resources'))) ?? this.resources;
    const inner = new ContentRedactor(this.context, this.settings, resources, ctm, new Set([...this.forms, form]));
    const result = await inner.run(content);
    if (result.fallback) throw new Fallback(result.fallback);
    if (!result.changed) return undefined;
    const dict = form.dict.clone(this.context);
    for (const key of ['Filter', 'DecodeParms', 'DL', 'Length', 'Metadata', 'PieceInfo', 'LastModified']) dict.delete(N(key));
    if (result.resources) dict.set(N('Resources'), result.resources);
    else if (resources && !form.dict.has(N('Resources'))) dict.set(N('Resources'), resources);
    dict.set(N('Filter'), N('FlateDecode'));
    return this.context.register(PDFRawStream.of(dict, deflate(result.bytes)));
  }

  /** Adds an XObject under a fresh name to a copy of the resources (shared dictionaries stay as they are). */
  private addXObject(ref: PDFRef): string {
    const xobjects = this.ownCategory('XObject');
    const key = freshKey(xobjects, 'QrRedacted');
    xobjects.set(N(key), ref);
    return key;
  }

  /** A resource category (XObject, Properties) of our own copy of the resources, made on first use. */
  private ownCategory(category: string): PDFDict {
    this.newResources ??= this.resources ? this.resources.clone(this.context) : this.context.obj({});
    let own = this.ownCategories.get(category);
    if (!own) {
      const existing = dictValue(this.context, this.newResources.get(N(category)));
      own = existing ? existing.clone(this.context) : this.context.obj({});
      this.newResources.set(N(category), own);
      this.ownCategories.set(category, own);
    }
    return own;
  }

  /** Named property lists whose replacement text covered removed glyphs leave the resources, unless still used. */
  private dropNamedProperties(): void {
    const doomed = [...this.touchedNames].filter((name) => !this.usedNames.has(name));
    if (doomed.length === 0) return;
    const properties = this.ownCategory('Properties');
    for (const name of doomed) properties.delete(N(name));
  }

  private buildPath(op: CsOp): void {
    const a = nums(op.args);
    const p = this.path;
    this.pathOps.push(op);
    switch (op.op) {
      case 'm':
        p.moveTo(a[0] ?? 0, a[1] ?? 0);
        break;
      case 'l':
        p.lineTo(a[0] ?? 0, a[1] ?? 0);
        break;
      case 'c':
        p.curveTo([a[0] ?? 0, a[1] ?? 0], [a[2] ?? 0, a[3] ?? 0], [a[4] ?? 0, a[5] ?? 0]);
        break;
      case 'v':
        p.curveFromCurrent([a[0] ?? 0, a[1] ?? 0], [a[2] ?? 0, a[3] ?? 0]);
        break;
      case 'y':
        // `y`: the second control point is the end point.
        p.curveTo([a[0] ?? 0, a[1] ?? 0], [a[2] ?? 0, a[3] ?? 0], [a[2] ?? 0, a[3] ?? 0]);
        break;
      case 'h':
        p.close();
        break;
      case 're':
        p.rect(a[0] ?? 0, a[1] ?? 0, a[2] ?? 0, a[3] ?? 0);
        break;
    }
  }

  private paintPath(op: CsOp, bytes: Uint8Array): void {
    const pathOps = this.pathOps;
    const clipOp = this.clipOp;
    const builder = this.path;
    this.pathOps = [];
    this.clipOp = undefined;
    this.path = new PathBuilder();
    const verbatim = (): void => {
      for (const p of pathOps) this.emit(bytes.subarray(p.start, p.end));
      if (clipOp) this.emit(bytes.subarray(clipOp.start, clipOp.end));
      this.emit(bytes.subarray(op.start, op.end));
    };
    const fill = ['f', 'F', 'f*', 'B', 'B*', 'b', 'b*'].includes(op.op);
    const stroke = ['S', 's', 'B', 'B*', 'b', 'b*'].includes(op.op);
    const inverse = invert(this.gs.ctm);
    if (!this.settings.paths || (!fill && !stroke) || !inverse || builder.subpaths.length === 0) {
      verbatim();
      return;
    }
    if (['s', 'b', 'b*'].includes(op.op)) for (const s of builder.subpaths) s.closed = true;
    const filled = fill ? clipPath(builder.subpaths, this.gs.ctm, inverse, this.settings.areas, 'fill') : undefined;
    const stroked = stroke ? clipPath(builder.subpaths, this.gs.ctm, inverse, this.settings.areas, 'stroke') : undefined;
    if (!filled && !stroked) {
      verbatim();
      return;
    }
    this.changed = true;
    const originalPath = Buffer.concat(pathOps.map((p) => bytes.subarray(p.start, p.end))).toString('latin1');
    const parts: string[] = [];
    if (clipOp) parts.push(`${originalPath}\n${clipOp.op} n`);
    const evenOdd = op.op.endsWith('*');
    if (fill) {
      const text = filled ? filled.text : originalPath;
      if (text.trim()) parts.push(`${text}\n${evenOdd ? 'f*' : 'f'}`);
    }
    if (stroke) {
      const text = stroked ? stroked.text : originalPath;
      if (text.trim()) parts.push(`${text}\n${['s', 'b', 'b*'].includes(op.op) && !stroked ? 's' : 'S'}`);
    }
    this.emitText(`\n${parts.join('\n')}`);
  }

  private beginMarked(op: CsOp, original: Uint8Array): void {
    const props = op.op === 'BDC' ? op.args[1] : undefined;
    const named = props?.t === 'name' ? this.namedProperties(props.v) : undefined;
    const carriesText = (props?.t === 'dict' && TEXT_KEYS.some((key) => props.v.has(key))) || (named !== undefined && TEXT_KEYS.some((key) => named.has(N(key))));
    this.marked.push({ chunk: this.chunks.length, op, carriesText, touched: false });
    this.emit(original);
  }

  /** Ends a marked-content sequence; a property list whose glyphs were removed loses its replacement texts. */
  private endMarked(): void {
    const entry = this.marked.pop();
    if (!entry) return;
    const props = entry.op.args[1];
    if (props?.t === 'name') (entry.touched ? this.touchedNames : this.usedNames).add(props.v);
    if (!entry.touched) return;
    const tag = entry.op.args[0];
    if (tag?.t !== 'name') return;
    let kept: Map<string, CsValue>;
    if (props?.t === 'dict') kept = new Map([...props.v].filter(([key]) => !TEXT_KEYS.includes(key)));
    else {
      // A named property list (shared through /Properties): written inline instead, keeping only its MCID.
      const mcid = this.namedProperties(props?.t === 'name' ? props.v : '')?.get(N('MCID'));
      kept = new Map(mcid instanceof PDFNumber ? [['MCID', { t: 'num', v: mcid.asNumber() }]] : []);
    }
    this.chunks[entry.chunk] = Buffer.from(formatOp([tag, { t: 'dict', v: kept }], 'BDC'), 'latin1');
  }

  private namedProperties(name: string): PDFDict | undefined {
    const properties = dictValue(this.context, this.resources?.get(N('Properties')));
    return dictValue(this.context, properties?.get(N(name)));
  }
}

function num(value: CsValue | undefined, fallback = 0): number {
  return value?.t === 'num' && Number.isFinite(value.v) ? value.v : fallback;
}

function nums(values: readonly CsValue[]): number[] {
  return values.map((v) => num(v, Number.NaN));
}

function pushNumber(out: (Uint8Array | number)[], value: number): void {
  const last = out[out.length - 1];
  if (typeof last === 'number') out[out.length - 1] = last + value;
  else out.push(value);
}

/** Concatenated, decoded content streams of a page (`Contents` is one stream or an array). */
export function pageContent(context: PDFContext, contents: unknown): Uint8Array {
  const resolved = resolve(context, contents as never);
  const streams: PDFStream[] = [];
  // Only streams: a damaged /Contents may name a dictionary (which has a `dict` too, but no data).
  if (resolved instanceof PDFArray) {
    for (let i = 0; i < resolved.size(); i++) {
      const item = resolve(context, resolved.get(i));
      if (item instanceof PDFStream) streams.push(item);
    }
  } else if (resolved instanceof PDFStream) streams.push(resolved);
  const parts: Uint8Array[] = [];
  for (const stream of streams) {
    parts.push(decodeStream(stream).data, Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}
