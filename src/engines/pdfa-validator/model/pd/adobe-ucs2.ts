/**
 * CID → Unicode for the four Adobe CJK character collections (Adobe-GB1, -CNS1, -Japan1, -Korea1), from
 * Adobe's own `Adobe-<Ordering>-UCS2` CMaps (BSD-3-Clause, © Adobe) as Debian's poppler-data installs them
 * (Ghostscript links its copies there too). A Type 0 font over one of these collections needs no ToUnicode
 * CMap (ISO 19005-1 6.3.8, ISO 19005-2 6.2.11.7.2): its text is what these CMaps give its CIDs, which is also
 * how veraPDF decides `toUnicode` for such a glyph. Read once per collection on first use, bounded in bytes and
 * entries; undefined when the file is not on this machine (the glyph's Unicode is then unknown, not absent).
 */
import { increment, readCMapFile } from './cmap.js';

export const ADOBE_CJK_ORDERINGS: readonly string[] = ['GB1', 'CNS1', 'Japan1', 'Korea1'];

/** CIDs are 16-bit: a range reaching past 65,535 is cut there. */
const MAX_CID = 0xffff;

const loaded = new Map<string, ReadonlyMap<number, string> | undefined>();

export function adobeUcs2(ordering: string): ReadonlyMap<number, string> | undefined {
  if (!ADOBE_CJK_ORDERINGS.includes(ordering)) return undefined;
  if (!loaded.has(ordering)) loaded.set(ordering, readUcs2(ordering));
  return loaded.get(ordering);
}

function readUcs2(ordering: string): ReadonlyMap<number, string> | undefined {
  const name = `Adobe-${ordering}-UCS2`;
  for (const file of [`/usr/share/poppler/cMap/Adobe-${ordering}/${name}`, `/var/lib/ghostscript/CMap/${name}`]) {
    const parsed = readCMapFile(file);
    if (parsed === null) continue;
    const map = new Map<number, string>();
    for (const m of parsed.mappings) {
      for (let cid = m.lo; cid <= Math.min(m.hi, MAX_CID); cid++) {
        const text = m.texts !== undefined ? m.texts[cid - m.lo] : m.text !== undefined ? increment(m.text, cid - m.lo) : undefined;
        if (text !== undefined && text !== '') map.set(cid, text);
      }
    }
    if (map.size > 0) return map;
  }
  return undefined;
}
