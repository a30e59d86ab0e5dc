import { readdirSync } from 'node:fs';
import { readDataFileSync } from './read-data-file.js';

/**
 * The Adobe Glyph List (glyph name → Unicode code point) as Ghostscript ships it: the `/name 16#XXXX`
 * lines of Resource/Init/gs_agl.ps (4,200 names; Ghostscript is installed on every Quire machine, see
 * quire.sh). Read once, on first use, so that nothing pays for it until a glyph name needs a Unicode
 * value. An empty map when no Ghostscript is found: callers must then treat a name as unknown, not as
 * "has no Unicode value".
 */

/** gs_agl.ps is ~120 KB; a file far larger is not the glyph list and is not read. */
const MAX_FILE_BYTES = 1_048_576;
/** The list has 4,200 names; bounded so that a strange file cannot grow the map without limit. */
const MAX_ENTRIES = 20_000;

let agl: ReadonlyMap<string, number> | undefined;

export function adobeGlyphList(): ReadonlyMap<string, number> {
  agl ??= readGlyphList();
  return agl;
}

function readGlyphList(): Map<string, number> {
  const map = new Map<string, number>();
  for (const file of aglFiles()) {
    const text = readDataFileSync(file, MAX_FILE_BYTES)?.toString('latin1');
    if (text === undefined) continue;
    for (const line of text.split('\n')) {
      const entry = /^\/([A-Za-z0-9._]+) 16#([0-9A-Fa-f]{4,6})\s*$/.exec(line);
      if (entry) map.set(entry[1]!, Number.parseInt(entry[2]!, 16));
      if (map.size >= MAX_ENTRIES) break;
    }
    if (map.size > 0) break;
  }
  return map;
}

/** Where Ghostscript keeps it: an unversioned tree first, then the versioned ones, newest first. */
function aglFiles(): string[] {
  const share = '/usr/share/ghostscript';
  let versions: string[] = [];
  try {
    versions = readdirSync(share).sort().reverse();
  } catch {
    return [];
  }
  return [`${share}/Resource/Init/gs_agl.ps`, ...versions.map((v) => `${share}/${v}/Resource/Init/gs_agl.ps`)];
}
