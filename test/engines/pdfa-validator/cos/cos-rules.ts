/**
 * The profiles' Cos* rules that need nothing beyond the COS layer, written out by hand from the
 * <test> expressions of PDFA-1B.xml / PDFA-2B.xml, so the corpus tests can ask "which of these fail?"
 * without the expression evaluator (built separately). Keyed by the rule ids of the profiles.
 */
import path from 'node:path';
import { readdirSync, statSync } from 'node:fs';
import {
  type CosDocument,
  type CosStream,
  type CosValue,
  cosDocumentProperties,
  cosIndirectProperties,
  cosNameProperties,
  cosStreamProperties,
  cosStringProperties,
  cosTrailerProperties,
  cosXRefProperties,
  contentTokens,
} from '../../../../src/engines/pdfa-validator/cos/index.js';

export const CORPUS = '/work/shared/pdfa/corpus';

export interface CorpusFile {
  readonly file: string;
  readonly name: string;
  /** e.g. '6-1-3' from 'veraPDF test suite 6-1-3-t01-fail-a.pdf'. */
  readonly clause: string;
  readonly pass: boolean;
}

export function corpusFiles(dir: string): CorpusFile[] {
  const out: CorpusFile[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d).sort()) {
      const p = path.join(d, entry);
      if (statSync(p).isDirectory()) walk(p);
      else if (entry.endsWith('.pdf')) {
        const m = /(?:^|suite )([\d-]+?)-t\d+-(pass|fail)/.exec(entry);
        if (m) out.push({ file: p, name: entry, clause: m[1] as string, pass: m[2] === 'pass' });
      }
    }
  };
  walk(dir);
  return out;
}

/** Calls `visit` on every value inside `v` (arrays, dictionaries, stream dictionaries), iteratively. */
export function eachValue(v: CosValue, visit: (v: CosValue) => void): void {
  const stack: CosValue[] = [v];
  while (stack.length > 0) {
    const x = stack.pop() as CosValue;
    visit(x);
    if (x.kind === 'array') stack.push(...x.items);
    else if (x.kind === 'dict') stack.push(...x.entries.values());
    else if (x.kind === 'stream') stack.push(x.dict);
  }
}

/** Ids of the failed Cos rules of part 1 (1b) or 2 (2b). Dictionary keys are names too (CosName). */
export function failedCosRules(doc: CosDocument, part: 1 | 2): Set<string> {
  const failed = new Set<string>();
  const d = cosDocumentProperties(doc);
  const fail = (id: string, ok: boolean): void => {
    if (!ok) failed.add(id);
  };
  fail('6.1.2-1', d.headerOffset === 0 && (part === 1 ? /%PDF-\d\.\d/ : /^%PDF-1\.[0-7]$/).test(d.header ?? 'null'));
  fail('6.1.2-2', d.headerByte1 > 127 && d.headerByte2 > 127 && d.headerByte3 > 127 && d.headerByte4 > 127);
  if (part === 1) {
    fail('6.1.3-1', d.isLinearized ? d.firstPageID !== null : d.lastID !== null);
    fail('6.1.3-4', !d.isLinearized || d.lastID === null || d.firstPageID === d.lastID);
  } else {
    fail('6.1.3-1', d.lastID !== null && d.lastID.length > 0);
  }
  fail('6.1.3-2', !cosTrailerProperties(doc).isEncrypted);
  fail('6.1.3-3', d.postEOFDataSize === 0);
  for (const s of doc.xrefSections) {
    const x = cosXRefProperties(s);
    if (part === 1) fail('6.1.4-1', x.subsectionHeaderSpaceSeparated);
    fail('6.1.4-2', x.xrefEOLMarkersComplyPDFA);
    // PDDocument containsXRefStream == false (part 1): a raw fact, checked here too.
    if (part === 1) fail('6.1.4-3', s.kind === 'table');
  }
  fail(part === 1 ? '6.1.12-7' : '6.1.13-7', d.nrIndirects <= 8388607);
  const lim = part === 1 ? '6.1.12' : '6.1.13';
  const check = (v: CosValue): void => {
    switch (v.kind) {
      case 'stream': {
        const s = cosStreamProperties(v);
        fail(part === 1 ? '6.1.7-1' : '6.1.7.1-1', s.Length === s.realLength);
        fail(part === 1 ? '6.1.7-2' : '6.1.7.1-2', s.streamKeywordCRLFCompliant && s.endstreamKeywordEOLCompliant);
        fail(part === 1 ? '6.1.7-3' : '6.1.7.1-3', s.F === null && s.FFilter === null && s.FDecodeParms === null);
        break;
      }
      case 'string': {
        const s = cosStringProperties(v);
        fail('6.1.6-1', !s.isHex || s.hexCount % 2 === 0);
        fail('6.1.6-2', !s.isHex || s.containsOnlyHex);
        fail(`${lim}-3`, s.value.length < (part === 1 ? 65536 : 32768));
        break;
      }
      case 'int':
        fail(`${lim}-1`, v.value <= 2147483647 && v.value >= -2147483648);
        break;
      case 'real':
        if (part === 1) fail('6.1.12-2', v.value >= -32767 && v.value <= 32767);
        else {
          fail('6.1.13-2', v.value >= -3.403e38 && v.value <= 3.403e38);
          fail('6.1.13-5', v.value === 0 || v.value <= -1.175e-38 || v.value >= 1.175e-38);
        }
        break;
      case 'name':
        fail(`${lim}-4`, cosNameProperties(v).internalRepresentation.length <= 127);
        break;
      case 'array':
        if (part === 1) fail('6.1.12-5', v.items.length <= 8191);
        break;
      case 'dict':
        if (part === 1) fail('6.1.12-6', v.entries.size <= 4095);
        for (const k of v.entries.keys()) if (k.length > 127) failed.add(`${lim}-4`);
        break;
      default:
        break;
    }
  };
  for (const o of doc.indirectObjects()) {
    fail(part === 1 ? '6.1.8-1' : '6.1.9-1', cosIndirectProperties(o).spacingCompliesPDFA);
    eachValue(o.value, check);
  }
  // Operands in content streams are COS objects too (the hex-string tests put theirs there).
  for (const stream of contentStreams(doc)) {
    const decoded = doc.decodeStream(stream);
    if (!decoded.ok) continue;
    for (const t of contentTokens(decoded.data, doc.env)) if (t.kind === 'operand') eachValue(t.value, check);
  }
  return failed;
}

/** Page /Contents streams and form XObjects: enough of the PD layer to reach content operands. */
function contentStreams(doc: CosDocument): CosStream[] {
  const out: CosStream[] = [];
  for (const o of doc.indirectObjects()) {
    const v = o.value;
    if (v.kind === 'stream') {
      const st = v.dict.entries.get('Subtype');
      if (st?.kind === 'name' && st.value === 'Form') out.push(v);
    } else if (v.kind === 'dict') {
      const t = v.entries.get('Type');
      if (t?.kind !== 'name' || t.value !== 'Page') continue;
      const c = doc.resolve(v.entries.get('Contents'));
      const items = c?.kind === 'array' ? c.items.map((i) => doc.resolve(i)) : [c];
      for (const i of items) if (i?.kind === 'stream') out.push(i);
    }
  }
  return out;
}
