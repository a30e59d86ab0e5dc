/**
 * Structure-aware PDF mutations: counts, lengths and sizes that lie, cross-reference damage, reference
 * cycles (page tree, outlines, name trees, object streams, annotations), type confusion, deep nesting,
 * decompression bombs and hostile content-stream operators. Most of them are followed, sometimes, by
 * a rebuilt cross-reference table, so that the file opens without repair and the lie reaches the code
 * behind the parser.
 */
import { deflateSync } from 'node:zlib';
import { rebuildXref } from '../pdf-writer.js';
import type { Rng } from '../prng.js';
import { entriesOf, findObjects, xrefRows, type Entry, type PdfObjectSpan } from './pdf-syntax.js';
import { HOSTILE_NUMBERS, HUGE_COUNTS, replaceRange, type MutationResult, type Mutator } from './types.js';

/** Keys whose numbers are counts, lengths, sizes or offsets somebody may trust. */
const COUNTED_KEYS: [string, number][] = [
  ['/Count', 6],
  ['/Length', 4],
  ['/N', 3],
  ['/First', 3],
  ['/Size', 3],
  ['/W', 3],
  ['/Width', 3],
  ['/Height', 3],
  ['/Index', 2],
  ['/Prev', 2],
  ['/BitsPerComponent', 2],
  ['/Columns', 2],
  ['/Colors', 2],
  ['/Predictor', 1],
  ['/Rotate', 2],
  ['/MediaBox', 2],
  ['/CropBox', 1],
  ['/Rect', 1],
  ['/Length1', 1],
  ['/DL', 1],
  ['/MaxLen', 1],
  ['/Ff', 1],
  ['/St', 1],
  ['/Nums', 1],
  ['/Limits', 1],
  ['/QuadPoints', 1],
  ['/Widths', 1],
  ['/FirstChar', 1],
  ['/K', 1],
  ['/Rows', 1],
  ['/R', 1],
  ['/V', 1],
  ['/P', 1],
];

/** Keys whose references form trees or chains: pointing them back makes cycles. */
const LINK_KEYS = new Set([
  '/Parent',
  '/Kids',
  '/First',
  '/Last',
  '/Next',
  '/Prev',
  '/Extends',
  '/Dests',
  '/Names',
  '/Outlines',
  '/Pages',
  '/Popup',
  '/IRT',
  '/P',
  '/Annots',
  '/Contents',
  '/EmbeddedFiles',
  '/Root',
  '/Fields',
  '/StructTreeRoot',
  '/K',
  '/Pg',
]);

interface Parsed {
  text: string;
  objects: PdfObjectSpan[];
}

function parse(input: Buffer): Parsed | undefined {
  const text = input.toString('latin1');
  if (!text.includes('obj')) return undefined;
  const objects = findObjects(text);
  return objects.length ? { text, objects } : undefined;
}

function allEntries(parsed: Parsed, filter: (entry: Entry, object: PdfObjectSpan) => boolean): { entry: Entry; object: PdfObjectSpan }[] {
  const out: { entry: Entry; object: PdfObjectSpan }[] = [];
  for (const object of parsed.objects) {
    for (const entry of entriesOf(parsed.text, object)) if (filter(entry, object)) out.push({ entry, object });
  }
  return out;
}

/** Applies an edit, then (sometimes) rebuilds the cross-reference table so that the file is not "damaged". */
function finish(rng: Rng, bytes: Buffer, note: string, fixXref = true): MutationResult {
  if (fixXref && rng.chance(0.65)) {
    const rebuilt = rebuildXref(bytes);
    if (rebuilt) return { bytes: rebuilt, note: `${note} (xref rebuilt)` };
  }
  return { bytes, note };
}

function hostileNumber(rng: Rng, key: string): string {
  if (key === '/Count' || key === '/N' || key === '/Size' || key === '/Width' || key === '/Height' || key === '/Columns') {
    return rng.chance(0.6) ? rng.pick(HUGE_COUNTS) : rng.pick(HOSTILE_NUMBERS);
  }
  return rng.pick(HOSTILE_NUMBERS);
}

function objectNumbers(parsed: Parsed): number[] {
  return [...new Set(parsed.objects.filter((o) => o.num >= 0).map((o) => o.num))];
}

/** Bombs are the same bytes every time: compress each kind once. */
const bombs = new Map<string, Buffer>();
function flateBomb(megabytes: number, fill: number): Buffer {
  const key = `${megabytes}:${fill}`;
  let bomb = bombs.get(key);
  if (!bomb) {
    bomb = deflateSync(Buffer.alloc(megabytes * 1024 * 1024, fill), { level: 9 });
    bombs.set(key, bomb);
  }
  return bomb;
}

const deepArray = (depth: number, balanced: boolean) => '['.repeat(depth) + (balanced ? ']'.repeat(depth) : '');
const deepDict = (depth: number, balanced: boolean) => '<</A '.repeat(depth) + '1' + (balanced ? ' >>'.repeat(depth) : '');

export const pdfMutators: Mutator[] = [
  {
    name: 'pdf.number',
    kinds: ['pdf'],
    weight: 8,
    apply(input, { rng }) {
      const parsed = parse(input);
      if (!parsed) return undefined;
      const keys = COUNTED_KEYS.filter(([key]) => parsed.text.includes(key));
      if (!keys.length) return undefined;
      const key = rng.weighted(keys);
      const found = allEntries(parsed, (e) => e.key === key && (e.kind === 'number' || e.kind === 'array' || e.kind === 'ref'));
      if (!found.length) return undefined;
      const { entry } = rng.pick(found);
      const value = hostileNumber(rng, key);
      let bytes: Buffer;
      if (entry.kind === 'array') {
        // Replace one number inside the array (a /W column, a /MediaBox corner, an /Index count).
        const inner = parsed.text.slice(entry.valueStart, entry.valueEnd);
        const numbers = [...inner.matchAll(/[+-]?\d+\.?\d*/g)];
        if (!numbers.length) return undefined;
        const pick = rng.pick(numbers);
        const at = entry.valueStart + pick.index!;
        bytes = replaceRange(input, at, at + pick[0].length, value);
      } else {
        bytes = replaceRange(input, entry.valueStart, entry.valueEnd, value);
      }
      return finish(rng, bytes, `${key} → ${value}`, key !== '/Length' || rng.chance(0.5));
    },
  },
  {
    name: 'pdf.cycle',
    kinds: ['pdf'],
    weight: 6,
    apply(input, { rng }) {
      const parsed = parse(input);
      if (!parsed) return undefined;
      const found = allEntries(parsed, (e, o) => o.num >= 0 && LINK_KEYS.has(e.key) && e.refs.length > 0);
      if (!found.length) return undefined;
      const { entry, object } = rng.pick(found);
      // Self, the parent (the first ref of the object's /Parent), or the first object of the file.
      const parent = entriesOf(parsed.text, object).find((e) => e.key === '/Parent' && e.refs.length)?.refs[0];
      const target = rng.pick([object.num, object.num, parent ?? object.num, parsed.objects[0]!.num >= 0 ? parsed.objects[0]!.num : object.num]);
      const value = entry.kind === 'array' ? rng.pick([`[${target} 0 R]`, `[${entry.refs.map(() => `${target} 0 R`).join(' ')}]`, `[${entry.refs.join(' 0 R ')} 0 R ${target} 0 R]`]) : `${target} 0 R`;
      return finish(rng, replaceRange(input, entry.valueStart, entry.valueEnd, value), `obj ${object.num} ${entry.key} → ${value}`);
    },
  },
  {
    name: 'pdf.link',
    kinds: ['pdf'],
    weight: 3,
    apply(input, { rng }) {
      // Adds a link a well-formed file lacks: /Extends on an object stream, /Parent or /Kids on a
      // page, /Next on the last outline item, /Prev in a trailer pointing at its own section.
      const parsed = parse(input);
      if (!parsed) return undefined;
      const object = rng.pick(parsed.objects);
      const entries = entriesOf(parsed.text, object);
      const dictStart = entries[0]?.dictStart ?? parsed.text.indexOf('<<', object.bodyStart);
      if (dictStart < 0 || dictStart > object.bodyEnd) return undefined;
      const self = object.num >= 0 ? object.num : (objectNumbers(parsed)[0] ?? 1);
      const startxref = /startxref\s+(\d+)/.exec(parsed.text.slice(object.bodyStart))?.[1] ?? '0';
      const added =
        object.num < 0
          ? rng.pick([`/Prev ${startxref}`, `/XRefStm ${startxref}`, `/Root ${self} 0 R`, `/Size ${rng.pick(HUGE_COUNTS)}`])
          : rng.pick([
              `/Extends ${self} 0 R`,
              `/Parent ${self} 0 R`,
              `/Kids [${self} 0 R]`,
              `/Next ${self} 0 R`,
              `/First ${self} 0 R`,
              `/Count ${rng.pick(HUGE_COUNTS)}`,
              `/Names [(a) ${self} 0 R]`,
              `/Annots [${self} 0 R]`,
            ]);
      const at = dictStart + 2;
      return finish(rng, replaceRange(input, at, at, ` ${added} `), `obj ${object.num} + ${added}`);
    },
  },
  {
    name: 'pdf.retarget',
    kinds: ['pdf'],
    weight: 3,
    apply(input, { rng }) {
      const parsed = parse(input);
      if (!parsed) return undefined;
      const found = allEntries(parsed, (e) => e.kind === 'ref');
      if (!found.length) return undefined;
      const { entry, object } = rng.pick(found);
      const numbers = objectNumbers(parsed);
      const value = rng.pick([`${rng.pick(numbers)} 0 R`, `${rng.pick(numbers)} 0 R`, '999999 0 R', '2147483647 0 R', '0 0 R', `${rng.pick(numbers)} 65535 R`, '-1 0 R']);
      return finish(rng, replaceRange(input, entry.valueStart, entry.valueEnd, value), `obj ${object.num} ${entry.key} → ${value}`);
    },
  },
  {
    name: 'pdf.type',
    kinds: ['pdf'],
    weight: 4,
    apply(input, { rng }) {
      const parsed = parse(input);
      if (!parsed) return undefined;
      const found = allEntries(parsed, () => true);
      if (!found.length) return undefined;
      const { entry, object } = rng.pick(found);
      const value = rng.pick(['<FFFE00>', '(text)', '/Name', '[]', '<<>>', 'null', 'true', '[1 2 3]', '<< /Type /Page >>', '-0', '1e999', '()', '[null]']);
      return finish(rng, replaceRange(input, entry.valueStart, entry.valueEnd, value), `obj ${object.num} ${entry.key} (${entry.kind}) → ${value}`);
    },
  },
  {
    name: 'pdf.nest',
    kinds: ['pdf'],
    weight: 3,
    apply(input, { rng }) {
      const parsed = parse(input);
      if (!parsed) return undefined;
      const found = allEntries(parsed, (e, o) => o.num >= 0 && e.depth === 0);
      if (!found.length) return undefined;
      const { entry, object } = rng.pick(found);
      const depth = rng.pick([100, 1000, 10_000, 100_000]);
      const balanced = rng.chance(0.7);
      const value = rng.chance(0.6) ? deepArray(depth, balanced) : deepDict(depth, balanced);
      const replace = rng.chance(0.5);
      const bytes = replace ? replaceRange(input, entry.valueStart, entry.valueEnd, value) : replaceRange(input, entry.dictStart + 2, entry.dictStart + 2, ` /Fz ${value} `);
      return finish(rng, bytes, `obj ${object.num} ${replace ? entry.key : '/Fz'} nested ${depth} deep${balanced ? '' : ', unbalanced'}`);
    },
  },
  {
    name: 'pdf.xref',
    kinds: ['pdf'],
    weight: 3,
    apply(input, { rng }) {
      const text = input.toString('latin1');
      const rows = xrefRows(text);
      const startxref = /startxref\s+(\d+)/g;
      const points = [...text.matchAll(startxref)];
      const choice = rng.int(0, 3);
      if (choice <= 1 && rows.length) {
        let out = input;
        const count = rng.int(1, Math.min(4, rows.length));
        for (let k = 0; k < count; k++) {
          const row = rng.pick(rows);
          const value = rng.pick([0, 1, input.length, input.length + 1000, 9_999_999_999, rng.int(0, input.length)]);
          out = replaceRange(out, row.start, row.end, String(value).padStart(10, '0').slice(-10));
        }
        return { bytes: out, note: `${count} xref offsets corrupted` };
      }
      if (choice === 2 && points.length) {
        const m = rng.pick(points);
        const numberAt = m.index! + m[0].length - m[1]!.length;
        const value = rng.pick(['0', '-1', String(input.length), '99999999999', String(rng.int(0, input.length)), String(Number(m[1]) + rng.int(-20, 20))]);
        return { bytes: replaceRange(input, numberAt, numberAt + m[1]!.length, value), note: `startxref ${m[1]} → ${value}` };
      }
      if (points.length) {
        const m = rng.pick(points);
        return { bytes: replaceRange(input, m.index!, m.index! + m[0].length, ''), note: 'startxref removed' };
      }
      return undefined;
    },
  },
  {
    name: 'pdf.object',
    kinds: ['pdf'],
    weight: 2,
    apply(input, { rng }) {
      const parsed = parse(input);
      if (!parsed) return undefined;
      const objects = parsed.objects.filter((o) => o.num >= 0);
      if (!objects.length) return undefined;
      const object = rng.pick(objects);
      const end = parsed.text.indexOf('endobj', object.bodyEnd);
      const stop = end < 0 ? object.bodyEnd : end + 6;
      if (rng.chance(0.5)) return finish(rng, replaceRange(input, object.start, stop, ''), `obj ${object.num} removed`);
      // A second definition of the same number with another object's body.
      const other = rng.pick(objects);
      const body = parsed.text.slice(other.bodyStart, other.bodyEnd);
      return finish(rng, replaceRange(input, stop, stop, `\n${object.num} 0 obj${body}endobj\n`), `obj ${object.num} redefined as obj ${other.num}`);
    },
  },
  {
    name: 'pdf.kids',
    kinds: ['pdf'],
    weight: 2,
    apply(input, { rng }) {
      // A page tree whose /Kids repeat one page many times: honest or lying /Count.
      const parsed = parse(input);
      if (!parsed) return undefined;
      const found = allEntries(parsed, (e) => e.key === '/Kids' && e.refs.length > 0);
      if (!found.length) return undefined;
      const { entry, object } = rng.pick(found);
      const times = rng.pick([1000, 10_000, 100_000]);
      const kid = entry.refs[0]!;
      let bytes = replaceRange(input, entry.valueStart, entry.valueEnd, `[${`${kid} 0 R `.repeat(times)}]`);
      const count = entriesOf(parsed.text, object).find((e) => e.key === '/Count');
      if (count && count.valueStart < entry.valueStart) {
        bytes = replaceRange(bytes, count.valueStart, count.valueEnd, rng.chance(0.5) ? String(times) : rng.pick(HUGE_COUNTS));
      }
      return finish(rng, bytes, `obj ${object.num} /Kids ×${times} of ${kid}`);
    },
  },
  {
    name: 'pdf.stream',
    kinds: ['pdf'],
    weight: 3,
    apply(input, { rng }) {
      const parsed = parse(input);
      if (!parsed) return undefined;
      const streams = parsed.objects.filter((o) => o.stream);
      if (!streams.length) return undefined;
      const object = rng.pick(streams);
      const { dataStart, dataEnd } = object.stream!;
      const choice = rng.int(0, 2);
      if (choice === 0) {
        // A decompression bomb: a few hundred KB that inflate to 64–256 MB.
        const megabytes = rng.pick([64, 128, 256]);
        const bomb = flateBomb(megabytes, rng.chance(0.5) ? 0x20 : 0);
        const dictEnd = parsed.text.lastIndexOf('>>', dataStart);
        const dictStart = parsed.text.lastIndexOf('<<', dictEnd);
        if (dictStart < object.bodyStart) return undefined;
        const dict = parsed.text
          .slice(dictStart + 2, dictEnd)
          .replace(/\/Length\s+\d+(\s+\d+\s+R)?/, '')
          .replace(/\/Filter\s*(\/\w+|\[[^\]]*\])/, '')
          .replace(/\/DecodeParms\s*<<[^>]*>>/, '');
        const head = `<<${dict} /Filter /FlateDecode /Length ${bomb.length} >>\nstream\n`;
        const bytes = Buffer.concat([input.subarray(0, dictStart), Buffer.from(head, 'latin1'), bomb, input.subarray(dataEnd)]);
        return finish(rng, bytes, `obj ${object.num} stream → flate bomb of ${megabytes} MB`);
      }
      if (choice === 1) {
        // Content operators that make renderers and content parsers work: deep nesting, save-state
        // floods, huge matrices, inline images with lying sizes.
        const hostile = rng.pick([
          `q ${'q '.repeat(100_000)}`,
          `[${'['.repeat(50_000)}(x)${']'.repeat(50_000)}] TJ`,
          '1e38 0 0 1e38 0 0 cm 0 0 1 1 re f',
          'BI /W 100000 /H 100000 /BPC 8 /CS /RGB ID \x00\x00\x00 EI',
          'BI /W 4 /H 4 /BPC 8 /CS /G /F /Fl ID \x78\x9c\x03\x00 EI',
          `BT /F1 ${rng.pick(HOSTILE_NUMBERS)} Tf 0 0 Td (${'A'.repeat(10_000)}) Tj ET`,
          `/Im1 Do /Im1 Do ${'/Im1 Do '.repeat(10_000)}`,
          `0 0 m ${'1 1 l '.repeat(100_000)} S`,
          '/Fm0 Do',
          'BT /F1 24 Tf 72 700 Td <' + 'ff'.repeat(4096) + '> Tj ET',
        ]);
        const at = rng.chance(0.5) ? dataStart : dataEnd;
        const inserted = Buffer.from(`\n${hostile}\n`, 'latin1');
        let bytes = replaceRange(input, at, at, inserted);
        // Usually keep /Length true, so that the operators are read rather than the stream repaired.
        const length = entriesOf(parsed.text, object).find((e) => e.key === '/Length' && e.kind === 'number' && e.depth === 0);
        const keepLength = length && rng.chance(0.8);
        if (keepLength) bytes = replaceRange(bytes, length.valueStart, length.valueEnd, String(dataEnd - dataStart + inserted.length));
        return finish(rng, bytes, `obj ${object.num} content + ${hostile.slice(0, 40)}${keepLength ? '' : ' (/Length not updated)'}`);
      }
      // Garbage data of the same length (filters and decoders see noise).
      const garbage = rng.bytes(dataEnd - dataStart);
      return { bytes: replaceRange(input, dataStart, dataEnd, garbage), note: `obj ${object.num} stream data randomised` };
    },
  },
];
