import { PDFDocument, PDFName, PDFString, StandardFonts, degrees } from '@cantoo/pdf-lib';
import { buildPdf, documentObjects, stream } from './hostile-pdf.js';

/**
 * A small, seeded byte-mutation loop over PDFs, for the toolbox's hostile-input tests: the same seed
 * gives the same mutants on every machine, so a crasher found once is found again (and kept as a
 * fixture under test/fixtures/pdf/hostile/).
 *
 * Most mutations keep the file's length, so the cross-reference offsets stay right and the damage
 * lands in the objects themselves (wrong types, broken numbers, strings where numbers were, lying
 * counts and lengths, references to the wrong object), which is where the in-process parsers trip;
 * a few cut or splice the file, which sends every tool into its repair path.
 */

/** mulberry32: a tiny, well-mixed 32-bit PRNG; returns floats in [0, 1). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (random: Random, below: number): number => Math.floor(random() * below);

/** Tokens that change what an object means when written over a few of its bytes. */
const TOKENS = [
  '0',
  '-1',
  '-5',
  '2147483647',
  '99999999999',
  '1.5e308',
  '-0.0',
  '/Rotate',
  '/Count',
  '/Kids',
  '/Parent',
  '/Type',
  '/Page',
  '/Pages',
  '/MediaBox',
  '/Contents',
  '/Resources',
  '/Length',
  '/Filter',
  '/FlateDecode',
  '/Annots',
  '/Outlines',
  '/First',
  '/Next',
  '/Dest',
  '/Font',
  '<FEFF>',
  '<>',
  '()',
  '(',
  ')',
  '[',
  ']',
  '<<',
  '>>',
  'null',
  'true',
  '1 0 R',
  '2 0 R',
  '3 0 R',
  '10 0 R',
  '999 0 R',
  'R',
  'obj',
  'endobj',
  'stream',
  'endstream',
  '%',
  '\\',
  '/',
  '#',
];

export interface Mutant {
  /** Position in the loop (stable for a seed). */
  index: number;
  /** Which seed document it came from. */
  seed: number;
  bytes: Buffer;
  /** What was done, for the failure message. */
  description: string;
}

/** One mutation of `input`: 1 to 4 edits. */
export function mutate(input: Buffer, random: Random): { bytes: Buffer; description: string } {
  let bytes = Buffer.from(input);
  const done: string[] = [];
  const edits = 1 + int(random, 4);
  for (let e = 0; e < edits; e++) {
    const at = int(random, bytes.length);
    const kind = random();
    if (kind < 0.35) {
      // Overwrite with a token (same length: the token is cut or padded with spaces).
      const token = pick(random, TOKENS);
      const span = Math.min(bytes.length - at, Math.max(token.length, 1 + int(random, 8)));
      bytes.write(token.padEnd(span, ' ').slice(0, span), at, 'latin1');
      done.push(`@${at} "${token}"/${span}`);
    } else if (kind < 0.55) {
      // A number in the file replaced by a hostile one of the same length where it fits.
      const text = bytes.toString('latin1');
      const numbers = [...text.matchAll(/(?<=[\s[/<])-?\d+(?:\.\d+)?(?=[\s\]>/])/g)];
      if (numbers.length === 0) continue;
      const match = pick(random, numbers);
      const replacement = pick(random, ['0', '-1', '9', '99999999', '-99999', '1e9', 'x']).padEnd(match[0].length, ' ').slice(0, Math.max(match[0].length, 1));
      bytes.write(replacement, match.index!, 'latin1');
      done.push(`number@${match.index} ${match[0]}→${replacement.trim()}`);
    } else if (kind < 0.8) {
      // Random bytes.
      const span = 1 + int(random, 4);
      for (let i = 0; i < span && at + i < bytes.length; i++) bytes[at + i] = int(random, 256);
      done.push(`flip@${at}/${span}`);
    } else if (kind < 0.9) {
      // Splice: a range copied over another place (changes the length).
      const from = int(random, bytes.length);
      const length = 1 + int(random, 64);
      bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(from, from + length), bytes.subarray(at)]);
      done.push(`splice@${at}<-${from}/${length}`);
    } else {
      // Truncation.
      bytes = bytes.subarray(0, Math.max(16, at));
      done.push(`cut@${at}`);
    }
  }
  return { bytes, description: done.join(' ') };
}

/** `count` mutants of the seeds, round robin, from `seed`. */
export function* mutants(seeds: readonly Buffer[], seed: number, count: number): Generator<Mutant> {
  const random = prng(seed);
  for (let index = 0; index < count; index++) {
    const which = index % seeds.length;
    const { bytes, description } = mutate(seeds[which]!, random);
    yield { index, seed: which, bytes, description };
  }
}

/**
 * Seed documents written without object streams or compression (pdf-lib's and the hand-built ones),
 * so that the mutations hit dictionaries, arrays, numbers and strings rather than deflate data: two
 * pages with text, a rotation, an inherited media box, a link and a redaction annotation, an outline
 * and a text field; and the pdf-lib one again with object streams, for the cross-reference stream paths.
 */
export async function seedDocuments(): Promise<Buffer[]> {
  // Fixed dates and no generated metadata: the same bytes on every run, so a seed finds the same mutants.
  const document = await PDFDocument.create({ updateMetadata: false });
  document.setCreationDate(new Date('2025-01-01T00:00:00Z'));
  document.setModificationDate(new Date('2025-01-01T00:00:00Z'));
  const font = await document.embedFont(StandardFonts.Helvetica);
  const first = document.addPage([595, 842]);
  first.drawText('SEED-1', { x: 50, y: 700, size: 24, font });
  const second = document.addPage([842, 595]);
  second.drawText('SEED-2', { x: 50, y: 500, size: 24, font });
  second.setRotation(degrees(90));
  const context = document.context;
  const link = context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, 700, 150, 724], Border: [0, 0, 0], A: { S: 'URI', URI: PDFString.of('https://example.org/') } });
  // A redaction mark over part of the text, so that redact has work to do.
  const redaction = context.obj({ Type: 'Annot', Subtype: 'Redact', Rect: [45, 695, 90, 730], IC: [0, 0, 0] });
  first.node.set(PDFName.of('Annots'), context.obj([context.register(link), context.register(redaction)]));
  const outlines = context.nextRef();
  const item = context.register(context.obj({ Title: PDFString.of('Chapter'), Parent: outlines, Dest: [first.ref, 'Fit'] }));
  context.assign(outlines, context.obj({ Type: 'Outlines', First: item, Last: item, Count: 1 }));
  document.catalog.set(PDFName.of('Outlines'), outlines);
  document.getForm().createTextField('name').addToPage(first, { x: 50, y: 600, font });
  const withPdfLib = Buffer.from(await document.save({ useObjectStreams: false }));

  // Hand-built: an intermediate node carrying the media box and rotation the pages inherit.
  const objects = documentObjects({ pages: 2, pagesDictionary: '<</Type/Pages/Kids[4 0 R]/Count 2>>' });
  objects[4] = '<</Type/Pages/Parent 2 0 R/Kids[10 0 R 12 0 R]/Count 2/MediaBox[0 0 500 700]/Rotate 180>>';
  objects[10] = '<</Type/Page/Parent 4 0 R/Contents 11 0 R/Resources<</Font<</F1 3 0 R>>>>>>';
  objects[12] = '<</Type/Page/Parent 4 0 R/Contents[13 0 R 5 0 R]/Resources<</Font<</F1 3 0 R>>>>/CropBox[10 10 400 600]>>';
  objects[5] = stream('', 'q 1 0 0 RG 10 10 100 100 re S Q');
  // The same pdf-lib document with object streams and a cross-reference stream, as pdf-lib writes by default.
  const compact = Buffer.from(await document.save());
  return [withPdfLib, buildPdf(objects), compact];
}
