import { type CosDict, type CosDocument, type CosValue, dictOf, openCosBytes } from '../../pdfa-validator/cos/index.js';
import { layOutUpdate, type NewObject } from '../../signature/update-writer.js';
import { pdfDate } from '../document/pdf-values.js';
import { cosDescription, type SourceDescription } from './cos-description.js';
import { type Description, INFO_TEXT_ENTRIES, mergedDescription, xmpPacket } from './metadata.js';

/**
 * The b-level fix-ups of Ghostscript's PDF/A output without pdf-lib: loading the whole output with
 * pdf-lib to change two objects cost ~20–90 ms per 100 pages (every object parsed, and pdf-lib's
 * change tracking), on the conversion's critical path after Ghostscript. Here the validator's COS
 * reader reads the cross-reference data and the handful of objects looked at, and the update is
 * laid out as the signature writer lays out its own (signature/update-writer.ts).
 *
 * It does what fixups.ts does on such a file, and only for files where that is little: the
 * information dictionary and the XMP packet are written again under their own object numbers (the
 * catalog keeps pointing at them, so it is not rewritten), the trailer keeps its /ID (one is written
 * when it has none). Anything more — encryption, an OutputIntent to add, actions or JavaScript that
 * may have to go, annotations whose flags may need fixing, a form, a broken file — returns undefined
 * and the caller takes the pdf-lib way, which handles all of it.
 */

export interface CosFixupOptions {
  part: 1 | 2 | 3;
  now: Date;
  /** The description the result takes (the input's, before Ghostscript); default: the file's own. */
  source?: SourceDescription;
}

/** Page-tree nodes looked at at most: beyond it the pdf-lib way decides. */
const MAX_PAGE_NODES = 100_000;

/** The update to append to `bytes` (the leading EOL included when the file lacks one), or undefined when this file needs the pdf-lib way. */
export function cosFixupUpdate(bytes: Buffer, options: CosFixupOptions): { bytes: Buffer; changes: string[] } | undefined {
  const doc = openCosBytes(bytes);
  if (doc.reconstructed || doc.limitsHit.size > 0) return undefined;
  const newest = doc.xrefSections[0];
  if (newest === undefined || newest.offset !== doc.eof.startxref) return undefined;
  const trailer = doc.trailer.entries;
  const root = trailer.get('Root');
  const catalog = doc.catalog;
  if (root?.kind !== 'ref' || catalog === null || !isNull(doc, trailer.get('Encrypt'))) return undefined;
  const metadataRef = catalog.entries.get('Metadata');
  if (metadataRef?.kind !== 'ref' || doc.resolve(metadataRef)?.kind !== 'stream') return undefined;
  if (!hasPdfaOutputIntent(doc, catalog) || !nothingToRemove(doc, catalog)) return undefined;
  const size = doc.resolve(trailer.get('Size'));
  if (size?.kind !== 'int' || size.value <= 0) return undefined;

  const own = cosDescription(doc);
  const description = mergedDescription(own, options.source ?? own, options.now);
  const changes: string[] = [];
  const id = doc.resolve(trailer.get('ID'));
  const firstId = id?.kind === 'array' ? doc.resolve(id.items[0]) : undefined;
  if (firstId?.kind !== 'string') changes.push('trailer /ID added');

  let next = size.value;
  const infoRef = trailer.get('Info');
  const info = infoRef?.kind === 'ref' ? { num: infoRef.num, gen: infoRef.gen } : { num: next++, gen: 0 };
  const xmp = xmpPacket(description, options.part, 'B');
  const objects: NewObject[] = [
    { ...info, parts: [Buffer.from(`${info.num} ${info.gen} obj\n${infoDictionary(description)}\nendobj\n`, 'latin1')] },
    {
      num: metadataRef.num,
      gen: metadataRef.gen,
      parts: [
        Buffer.from(`${metadataRef.num} ${metadataRef.gen} obj\n<</Type /Metadata /Subtype /XML /Length ${xmp.length}>>\nstream\n`, 'latin1'),
        xmp,
        Buffer.from('\nendstream\nendobj\n', 'latin1'),
      ],
    },
  ].sort((a, b) => a.num - b.num);
  const last = bytes.at(-1);
  const { update } = layOutUpdate(
    {
      size: bytes.length,
      endsWithEol: last === 0x0a || last === 0x0d,
      startxref: newest.offset,
      xrefKind: newest.kind,
      trailer: { '/Info': `${info.num} ${info.gen} R`, ...(firstId?.kind === 'string' ? { '/ID': [`b:${firstId.bytes.toString('hex')}`] } : {}) },
      rootRef: `${root.num} ${root.gen} R`,
    },
    objects,
    next,
  );
  return { bytes: update, changes };
}

/** The information dictionary with exactly the entries the XMP packet mirrors. */
function infoDictionary(d: Description): string {
  const entries: string[] = [];
  for (const [key, field] of INFO_TEXT_ENTRIES) {
    const value = d[field];
    if (value !== undefined) entries.push(`/${key} ${textString(value)}`);
  }
  entries.push(`/CreationDate (${pdfDate(d.created)})`, `/ModDate (${pdfDate(d.modified)})`);
  return `<<${entries.join(' ')}>>`;
}

/** A PDF text string, as text-string.ts makes it for pdf-lib: printable ASCII as a literal, anything else UTF-16BE with its BOM, in hex. */
function textString(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return `(${value.replace(/[\\()]/g, (c) => `\\${c}`)})`;
  const utf16 = Buffer.from(value, 'utf16le');
  utf16.swap16();
  return `<FEFF${utf16.toString('hex').toUpperCase()}>`;
}

/** An sRGB OutputIntent of PDF/A (S /GTS_PDFA1 with a destination profile) is there: Ghostscript writes ours from the prefix file. */
function hasPdfaOutputIntent(doc: CosDocument, catalog: CosDict): boolean {
  const intents = doc.resolve(catalog.entries.get('OutputIntents'));
  if (intents?.kind !== 'array') return false;
  return intents.items.some((item) => {
    const intent = dictOf(doc.resolve(item));
    const s = doc.resolve(intent?.entries.get('S'));
    return s?.kind === 'name' && s.value === 'GTS_PDFA1' && !isNull(doc, intent?.entries.get('DestOutputProfile'));
  });
}

/**
 * None of what fixups.ts removes or changes is there: no additional actions, open action, JavaScript
 * or form in the catalog, no additional actions or annotations on any page-tree node.
 */
function nothingToRemove(doc: CosDocument, catalog: CosDict): boolean {
  for (const key of ['AA', 'OpenAction', 'AcroForm']) if (!isNull(doc, catalog.entries.get(key))) return false;
  const names = dictOf(doc.resolve(catalog.entries.get('Names')));
  if (names && !isNull(doc, names.entries.get('JavaScript'))) return false;
  const stack: CosValue[] = [catalog.entries.get('Pages') ?? { kind: 'null' }];
  const seen = new Set<number>();
  let nodes = 0;
  while (stack.length > 0) {
    const value = stack.pop()!;
    if (value.kind === 'ref') {
      if (seen.has(value.num)) continue;
      seen.add(value.num);
    }
    const node = dictOf(doc.resolve(value));
    if (!node) continue;
    if (++nodes > MAX_PAGE_NODES) return false;
    if (!isNull(doc, node.entries.get('AA')) || !isNull(doc, node.entries.get('Annots'))) return false;
    const kids = doc.resolve(node.entries.get('Kids'));
    if (kids?.kind === 'array') stack.push(...kids.items);
  }
  return nodes > 0;
}

function isNull(doc: CosDocument, value: CosValue | undefined): boolean {
  const resolved = doc.resolve(value);
  return resolved === undefined || resolved.kind === 'null';
}
