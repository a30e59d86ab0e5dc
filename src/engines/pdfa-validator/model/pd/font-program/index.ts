/**
 * The embedded font program of a font descriptor, read once per stream: /FontFile (Type 1), /FontFile2
 * (TrueType), /FontFile3 (/Type1C, /CIDFontType0C: bare CFF; /OpenType: an sfnt, with a 'CFF ' table or not).
 * `absent`: no program is embedded; `unreadable`: one is, but it could not be decoded or read (a reader's error,
 * a limit): every fact it would give is unknown and the rules that need it are not-checked.
 */
import type { CosDict, CosDocument, CosStream } from '../../../cos/index.js';
import { intOf, nameOf, streamOf } from '../values.js';
import { readCff } from './cff.js';
import { type FontProgram, FontProgramError } from './program.js';
import { readTrueType } from './truetype.js';
import { readType1 } from './type1.js';

export type { FontProgram } from './program.js';

export type ProgramRead = { kind: 'absent' } | { kind: 'unreadable'; reason: string } | { kind: 'read'; program: FontProgram };

/** Font programs larger than this are not read (the largest CJK fonts are ~20 MB). */
const MAX_PROGRAM_BYTES = 32 * 1024 * 1024;

const cache = new WeakMap<CosStream, ProgramRead>();

export function fontProgramOf(doc: CosDocument, descriptor: CosDict | undefined): ProgramRead {
  for (const key of ['FontFile', 'FontFile2', 'FontFile3'] as const) {
    const stream = streamOf(doc, descriptor?.entries.get(key));
    if (stream === undefined) continue;
    let read = cache.get(stream);
    if (read === undefined) {
      read = readProgram(doc, stream, key);
      cache.set(stream, read);
    }
    return read;
  }
  return { kind: 'absent' };
}

function readProgram(doc: CosDocument, stream: CosStream, key: 'FontFile' | 'FontFile2' | 'FontFile3'): ProgramRead {
  const decoded = doc.decodeStream(stream);
  if (!decoded.ok) return { kind: 'unreadable', reason: `the font program could not be decoded (${decoded.reason})` };
  const data = decoded.data;
  if (data.length > MAX_PROGRAM_BYTES) return { kind: 'unreadable', reason: `the font program is larger than ${MAX_PROGRAM_BYTES} bytes` };
  try {
    if (key === 'FontFile') return { kind: 'read', program: readType1(data, intOf(doc, stream.dict, 'Length1')) };
    if (key === 'FontFile2') return { kind: 'read', program: readTrueType(data) };
    const subtype = nameOf(doc, stream.dict, 'Subtype');
    if (subtype === 'OpenType') return { kind: 'read', program: readOpenType(data) };
    return { kind: 'read', program: readCff(data) };
  } catch (error) {
    // Any reader failure (ours, or a RangeError of a Buffer read the checks missed) leaves the facts unknown.
    const reason = error instanceof FontProgramError ? error.message : `unreadable (${(error as Error).name})`;
    return { kind: 'unreadable', reason: `the font program could not be read: ${reason}` };
  }
}

/** An OpenType program: its 'CFF ' table's outlines and names with the sfnt's cmap, or a TrueType-flavoured one. */
function readOpenType(data: Buffer): FontProgram {
  const sfnt = readTrueType(data);
  const numTables = data.readUInt16BE(4);
  for (let i = 0; i < numTables; i++) {
    const at = 12 + i * 16;
    if (at + 16 > data.length || data.toString('latin1', at, at + 4) !== 'CFF ') continue;
    const offset = data.readUInt32BE(at + 8);
    const length = data.readUInt32BE(at + 12);
    if (offset + length > data.length) break;
    const cff = readCff(data.subarray(offset, offset + length));
    return { ...cff, widthOf: (gid) => sfnt.widthOf(gid) ?? cff.widthOf(gid), ...(sfnt.cmapLookup === undefined ? {} : { cmapLookup: sfnt.cmapLookup }) };
  }
  return sfnt;
}
