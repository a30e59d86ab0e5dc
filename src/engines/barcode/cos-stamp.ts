import { appendFile, copyFile } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import { asDict } from '../pdf/qpdf-json.js';
import { type Box, frameOf } from '../pdf-edit/content/geometry.js';
import { num } from '../pdf-edit/content/units.js';
import { type CosDict, type CosDocument, type CosValue, dictOf } from '../pdfa-validator/cos/index.js';
import { cleanlyRead, cosToQpdfJson } from '../signature/cos-objects.js';
import { takeCleanly } from './clean-cos.js';
import { layOutUpdate, type NewObject } from '../signature/update-writer.js';
import { type CodeShape, formContent, formResources } from './encode.js';
import { type Entries, Raw, type Written, writeCos } from './cos-writer.js';
import { fitText } from './human-readable.js';
import { readTail } from './incremental-save.js';
import { stampMatrix } from './placement.js';
import type { CodeStamp } from './stamp.js';

/**
 * Stamping without building a document of the whole file: the bounded COS reader (the PDF/A
 * validator's, as the signature engine and CleanInputTool use it) reads only what a stamp needs — the
 * page tree, and of each stamped page its dictionary, inherited boxes and /Rotate, its resource and
 * /XObject dictionaries and its /Contents — and the result is the original bytes plus an incremental
 * update (ISO 32000-1 §7.5.6, `layOutUpdate`) holding the new objects and the dictionaries that
 * changed. pdf-lib's parse of every object of the file was the largest cost of a stamp (on 500 pages
 * more than qpdf copying the file).
 *
 * Written per update: one form XObject per code, the two one-operator streams that isolate each page's
 * graphics state (`q` / `Q`, as page-content.ts's addForeground), one operator stream per distinct
 * placement (pages of one size share it), each stamped page's dictionary, and each shared resource or
 * /XObject dictionary once (pages that share one get the same name in it).
 *
 * Only files the reader reads cleanly (clean-cos.ts: the files CleanInputTool hands over without
 * qpdf's repair), not encrypted and with an end that takes an update, and only codes drawn onto
 * existing pages, take this path; for any other `stampThroughCos` returns
 * false before writing anything and the caller uses pdf-lib (stamp.ts).
 */
export async function stampThroughCos(input: string, output: string, stamps: (pageCount: number) => readonly CodeStamp[]): Promise<boolean> {
  const clean = await takeCleanly(input);
  const tail = clean && readTail(clean.cos.bytes);
  if (!clean || !tail) return false;
  const { cos, pageRefs } = clean;
  const root = cos.trailer.entries.get('Root');
  if (root?.kind !== 'ref' || cos.trailer.entries.has('Encrypt')) return false;
  const list = stamps(pageRefs.length).map(fitText);
  if (list.some((stamp) => stamp.newPage || stamp.shape.page)) return false;

  const update = new UpdateObjects(cos);
  const perPage = new Map<number, string[]>();
  for (const stamp of list) {
    for (const number of stamp.pages) {
      const ref = pageRefs[number - 1];
      if (!ref) continue;
      const pageNum = Number(ref.slice(0, ref.indexOf(' ')));
      const name = update.addForm(pageNum, stamp.shape);
      if (!name) return false;
      const operators = perPage.get(pageNum) ?? [];
      operators.push(`q ${stampMatrix(update.frame(pageNum), stamp).map(num).join(' ')} cm ${name} Do Q`);
      perPage.set(pageNum, operators);
    }
  }
  for (const [pageNum, operators] of perPage) update.drawOver(pageNum, `${operators.join('\n')}\n`);
  // Resolving the pages' objects may have met what the first check could not see.
  if (!cleanlyRead(cos)) return false;

  const { update: bytesOut } = layOutUpdate(
    {
      size: cos.bytes.length,
      endsWithEol: tail.endsWithEol,
      startxref: tail.startxref,
      xrefKind: tail.kind,
      trailer: asDict(cosToQpdfJson(cos.lastTrailer ?? cos.trailer, update.defined)) ?? {},
      rootRef: `${root.num} ${root.gen} R`,
    },
    update.objects(),
    update.size,
  );
  await copyFile(input, output);
  await appendFile(output, bytesOut);
  return true;
}

/** Deepest page tree searched for inherited attributes (cosPageRefs refuses deeper trees anyway). */
const MAX_DEPTH = 64;

/** The objects of the update: dictionaries of the original rewritten (by number) and new streams. */
class UpdateObjects {
  /** The next free object number: above every number the cross-reference data defines (a declared /Size is not trusted). */
  private next: number;
  /** Dictionaries of the original read for changing, by number; written only when changed (`changed`). */
  private readonly rewritten = new Map<number, { gen: number; entries: Entries }>();
  private readonly changed = new Set<Entries>();
  private readonly created: NewObject[] = [];
  private readonly forms = new Map<CodeShape, Raw>();
  private readonly operatorStreams = new Map<string, Raw>();
  private isolation: { save: Raw; restore: Raw } | undefined;

  constructor(private readonly cos: CosDocument) {
    let largest = 0;
    for (const number of cos.xrefEntries.keys()) if (number > largest) largest = number;
    this.next = largest + 1;
  }

  readonly defined = (number: number): boolean => {
    const entry = this.cos.xrefEntries.get(number);
    return entry !== undefined && entry.type !== 0;
  };

  get size(): number {
    return this.next;
  }

  /** Every object of the update, by number. */
  objects(): NewObject[] {
    const written = [...this.rewritten].filter(([, { entries }]) => this.changed.has(entries));
    const text: NewObject[] = written.map(([number, { gen, entries }]) => ({
      num: number,
      gen,
      parts: [Buffer.from(`${number} ${gen} obj\n${writeCos(entries, this.defined)}\nendobj\n`, 'latin1')],
    }));
    return [...text, ...this.created].sort((a, b) => a.num - b.num);
  }

  /** The page as the placement sees it: its visible box (inherited CropBox / MediaBox) and /Rotate. */
  frame(pageNum: number) {
    const media = box(this.cos, this.inherited(pageNum, 'MediaBox')?.value) ?? [0, 0, 612, 792];
    const rotate = this.cos.resolve(this.inherited(pageNum, 'Rotate')?.value);
    return frameOf(media, box(this.cos, this.inherited(pageNum, 'CropBox')?.value), rotate?.kind === 'int' || rotate?.kind === 'real' ? rotate.value : 0);
  }

  /**
   * Makes the code's form XObject reachable from the page's resources (its own, or the inherited or
   * shared dictionary it uses: an added name harms no other page) and returns its name ("/QBc1");
   * undefined when a dictionary on the way is one this writer cannot rewrite.
   */
  addForm(pageNum: number, shape: CodeShape): string | undefined {
    const form = this.form(shape);
    const page = this.dict(pageNum);
    if (!page) return undefined;
    let resources: Entries | undefined;
    const own = page.get('Resources');
    if (own !== undefined && !(isCos(own) && own.kind === 'null')) resources = this.changeable(page, 'Resources');
    else {
      // Inherited: an indirect dictionary (possibly shared) is changed in place, a direct one copied onto the page.
      const found = this.inherited(pageNum, 'Resources')?.value;
      if (found?.kind === 'ref') resources = this.dict(found.num);
      else this.set(page, 'Resources', (resources = new Map(found?.kind === 'dict' ? found.entries : [])));
    }
    const xobjects = resources && this.changeable(resources, 'XObject');
    if (!xobjects) return undefined;
    for (const [key, value] of xobjects) if (value === form) return `/${key}`;
    let n = 1;
    while (xobjects.has(`QBc${n}`)) n++;
    this.set(xobjects, `QBc${n}`, form);
    return `/QBc${n}`;
  }

  /** Draws `operators` over the page's content, its own graphics state isolated first (q … Q). */
  drawOver(pageNum: number, operators: string): void {
    const page = this.dict(pageNum)!;
    let stream = this.operatorStreams.get(operators);
    if (!stream) this.operatorStreams.set(operators, (stream = this.stream(Buffer.from(operators, 'latin1'))));
    const entries = this.contentEntries(page.get('Contents'));
    if (entries.length === 0) {
      this.set(page, 'Contents', [stream]);
      return;
    }
    this.isolation ??= { save: this.stream(Buffer.from('q\n')), restore: this.stream(Buffer.from('\nQ\n')) };
    this.set(page, 'Contents', [this.isolation.save, ...entries, this.isolation.restore, stream]);
  }

  /** Changes an entry; the object holding `dict` is then written (a direct dictionary's holder was marked when it was copied in). */
  private set(dict: Entries, key: string, value: Written): void {
    dict.set(key, value);
    this.changed.add(dict);
  }

  /** The entries of /Contents: a stream reference, or the items of a (direct or indirect) array; nulls and dangling references left out. */
  private contentEntries(contents: Written | undefined): Written[] {
    if (!contents || !isCos(contents)) return [];
    const target = this.cos.resolve(contents);
    if (contents.kind === 'ref' && target?.kind === 'stream') return [contents];
    if (target?.kind !== 'array') return [];
    return target.items.filter((item) => item.kind === 'ref' && this.defined(item.num));
  }

  /**
   * The dictionary at `key` of `parent`, ready to change: one already being changed, a direct one
   * copied into `parent`, an indirect one rewritten as a whole (`dict`), a missing one created;
   * undefined when it is something else (a stream, a dangling reference, another type).
   */
  private changeable(parent: Entries, key: string): Entries | undefined {
    const value = parent.get(key);
    if (value instanceof Map) return value;
    if (value === undefined || (isCos(value) && value.kind === 'null')) {
      const created: Entries = new Map();
      this.set(parent, key, created);
      return created;
    }
    if (!isCos(value)) return undefined;
    if (value.kind === 'ref') return this.dict(value.num);
    if (value.kind !== 'dict') return undefined;
    const copy: Entries = new Map(value.entries);
    this.set(parent, key, copy);
    return copy;
  }

  /** A rewritable copy of object `number` (one per number: later changes go into the same copy); undefined unless it is a dictionary. */
  private dict(number: number): Entries | undefined {
    const known = this.rewritten.get(number);
    if (known) return known.entries;
    const object = this.cos.getObject(number);
    if (object?.value.kind !== 'dict') return undefined;
    const entries: Entries = new Map(object.value.entries);
    this.rewritten.set(number, { gen: object.gen, entries });
    return entries;
  }

  /** An attribute of the page or of its nearest ancestor that has it (ISO 32000-1 §7.7.3.4), and how many levels up. */
  private inherited(pageNum: number, key: string): { value: CosValue; depth: number } | undefined {
    let node: CosDict | null | undefined = dictOf(this.cos.getObject(pageNum)?.value);
    for (let depth = 0; node && depth < MAX_DEPTH; depth++) {
      const value = node.entries.get(key);
      if (value !== undefined && value.kind !== 'null') return { value, depth };
      node = dictOf(this.cos.resolve(node.entries.get('Parent')));
    }
    return undefined;
  }

  /** The code's form XObject (one per code, shared by every page it goes on). */
  private form(shape: CodeShape): Raw {
    let ref = this.forms.get(shape);
    if (!ref) {
      const data = deflateSync(formContent(shape));
      const head = `/Type /XObject /Subtype /Form /BBox [0 0 ${num(shape.width)} ${num(shape.height)}] /Resources ${formResources(shape)} /Filter /FlateDecode`;
      this.forms.set(shape, (ref = this.stream(data, head)));
    }
    return ref;
  }

  /** A new stream object; returns its reference. */
  private stream(data: Buffer, entries = ''): Raw {
    const number = this.next++;
    this.created.push({
      num: number,
      gen: 0,
      parts: [Buffer.from(`${number} 0 obj\n<<${entries} /Length ${data.length}>>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream\nendobj\n', 'latin1')],
    });
    return new Raw(`${number} 0 R`);
  }
}

function isCos(value: Written): value is CosValue {
  return !(value instanceof Raw) && !(value instanceof Map) && !Array.isArray(value);
}

/** A rectangle (four numbers, any corner order) as [llx lly urx ury]; undefined if absent or malformed. */
function box(cos: CosDocument, value: CosValue | undefined): Box | undefined {
  const array = cos.resolve(value);
  if (array?.kind !== 'array' || array.items.length !== 4) return undefined;
  const values: number[] = [];
  for (const item of array.items) {
    const resolved = cos.resolve(item);
    if (resolved?.kind !== 'int' && resolved?.kind !== 'real') return undefined;
    values.push(resolved.value);
  }
  const [x1, y1, x2, y2] = values as [number, number, number, number];
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}
