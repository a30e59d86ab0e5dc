import type { PdfStructureTool } from '../contracts.js';
import type { QpdfCall } from '../pdf/qpdf.js';
import { isRef, ObjectFetcher, type QDict, type QValue } from '../pdf/qpdf-json.js';
import { type CosDocument, type CosValue, dictOf } from '../pdfa-validator/cos/index.js';

/**
 * The signature engine's in-process object reader: the PDF/A validator's bounded COS reader
 * (engines/pdfa-validator/cos: hostile-input limits, no declared count trusted) behind the same
 * `ObjectFetcher` the qpdf path fills, with the values in qpdf's JSON v2 notation, so the update
 * writer cannot tell the two apart. It spares a small file the qpdf process that describing it
 * would cost (a fork of the whole server, the largest single cost of a signature).
 *
 * It only serves files the COS reader read cleanly: `cleanlyRead` says whether anything was
 * repaired, reconstructed or cut off by a limit; then the caller falls back to qpdf, whose warnings
 * decide whether the file is damaged.
 */

/** A name in PDF syntax: regular characters as they are, the rest `#xx` (ISO 32000-1 §7.3.5), as qpdf writes it. */
function nameText(value: string): string {
  return `/${value.replace(/[^\x21-\x7e]|[#()<>[\]{}/%]/g, (c) => `#${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}`;
}

/**
 * A COS value in qpdf's JSON v2 notation (engines/pdf/qpdf-json.ts). Strings become "b:hex" (the
 * bytes exactly; `asText` decodes them), so an object rewritten by the update keeps them byte for byte.
 * A stream becomes its dictionary, as the fetcher keeps it. As in qpdf, a reference to an object the
 * cross-reference data does not define is null, and a dictionary drops a null entry (so a dangling
 * trailer /Info is not carried into the update).
 */
export function cosToQpdfJson(value: CosValue, defined: (num: number) => boolean): QValue {
  switch (value.kind) {
    case 'null':
      return null;
    case 'bool':
    case 'int':
    case 'real':
      return value.value;
    case 'name':
      return nameText(value.value);
    case 'string':
      return `b:${value.bytes.toString('hex')}`;
    case 'ref':
      return defined(value.num) ? `${value.num} ${value.gen} R` : null;
    case 'array':
      return value.items.map((item) => cosToQpdfJson(item, defined));
    case 'dict':
    case 'stream': {
      const out: QDict = {};
      for (const [key, item] of (value.kind === 'dict' ? value : value.dict).entries) {
        const converted = cosToQpdfJson(item, defined);
        if (converted !== null) out[nameText(key)] = converted;
      }
      return out;
    }
  }
}

/** An `ObjectFetcher` whose objects come from a COS document in memory: it never starts qpdf. */
export class CosObjectFetcher extends ObjectFetcher {
  constructor(
    private readonly doc: CosDocument,
    qpdf: PdfStructureTool,
    file: string,
    call: QpdfCall,
  ) {
    super(qpdf, file, call);
    this.pdfVersion = doc.header.version ?? undefined;
  }

  private readonly defined = (num: number): boolean => {
    const entry = this.doc.xrefEntries.get(num);
    return entry !== undefined && entry.type !== 0;
  };

  override async fetch(refs: Iterable<string>): Promise<void> {
    const objects: QDict = {};
    for (const ref of refs) {
      if (this.has(ref)) continue;
      // The newest section's trailer, as qpdf reads it (not the keys of all sections merged).
      if (ref === 'trailer') objects.trailer = { value: cosToQpdfJson(this.doc.lastTrailer ?? this.doc.trailer, this.defined) };
      else if (isRef(ref)) {
        const object = this.doc.getObject(Number(ref.slice(0, ref.indexOf(' '))));
        objects[ref] = { value: object ? cosToQpdfJson(object.value, this.defined) : null };
      }
    }
    this.absorb(objects, false);
  }
}

/** Whether the COS reader read what was asked of it without repairing anything or reaching a limit. */
export function cleanlyRead(doc: CosDocument): boolean {
  return doc.header.headerOffset === 0 && doc.header.version !== null && !doc.reconstructed && doc.limitsHit.size === 0 && doc.problems.length === 0;
}

/** More pages than this, or a deeper tree, is left to qpdf. */
const MAX_PAGES = 100_000;
const MAX_TREE_DEPTH = 64;

/**
 * The page references of a well-formed page tree, in order (ISO 32000-1 §7.7.3); undefined for any
 * irregularity qpdf would repair or warn about (a kid that is not a reference, a node visited twice,
 * a node that is neither /Pages nor /Page, a tree too deep or too large): the caller then asks qpdf.
 */
export function cosPageRefs(doc: CosDocument): string[] | undefined {
  const root = doc.catalog?.entries.get('Pages');
  if (root?.kind !== 'ref') return undefined;
  const pages: string[] = [];
  const seen = new Set<number>();
  // qpdf repairs a root that has a parent (it is then not the root): leave such a tree to it.
  if (dictOf(doc.resolve(root))?.entries.has('Parent')) return undefined;
  const walk = (ref: CosValue, depth: number): boolean => {
    if (ref.kind !== 'ref' || seen.has(ref.num) || depth > MAX_TREE_DEPTH || pages.length >= MAX_PAGES) return false;
    seen.add(ref.num);
    const node = doc.resolve(ref);
    if (node?.kind !== 'dict') return false;
    const type = node.entries.get('Type');
    const typeName = type?.kind === 'name' ? type.value : undefined;
    if (typeName === 'Page') {
      pages.push(`${ref.num} ${ref.gen} R`);
      return true;
    }
    if (typeName !== 'Pages') return false;
    const kids = doc.resolve(node.entries.get('Kids'));
    if (kids?.kind !== 'array') return false;
    return kids.items.every((kid) => walk(kid, depth + 1));
  };
  return walk(root, 0) ? pages : undefined;
}
