/**
 * A Type 1 font program (/FontFile: Adobe Type 1 Font Format; PFA or PFB-less binary as PDF embeds it) as the
 * glyph checks need it: /FontMatrix and /Encoding from the clear-text part, and from the eexec-encrypted part
 * (decrypted with r = 55665, the 4 random bytes skipped) the /CharStrings: each glyph name, and its width from
 * the charstring's first command (decrypted with r = 4330 and lenIV), `hsbw` (sbx wx) or `sbw` (sbx sby wx wy).
 * Bounded by the stream's own size; one decrypted copy of the private part is made.
 */
import { STANDARD_ENCODING } from '../font-data.js';
import { type FontProgram, MAX_GLYPHS, need } from './program.js';

export function readType1(data: Buffer, length1: number | null): FontProgram {
  const clearEnd = clearTextEnd(data, length1);
  const clear = data.toString('latin1', 0, clearEnd);
  need(/^%!(PS-AdobeFont|FontType1)/.test(clear), 'no Type 1 header');
  const matrix = /\/FontMatrix\s*\[\s*([-+.\deE]+)/.exec(clear);
  const scale = matrix === null ? 0.001 : Number.parseFloat(matrix[1] as string);
  need(Number.isFinite(scale) && scale !== 0, 'bad FontMatrix');
  const builtinEncoding = readEncoding(clear);

  const priv = eexecDecrypt(data.subarray(clearEnd));
  const text = priv.toString('latin1');
  const lenIVMatch = /\/lenIV\s+(\d+)/.exec(text);
  const lenIV = lenIVMatch === null ? 4 : Number(lenIVMatch[1]);
  const start = text.indexOf('/CharStrings');
  need(start >= 0, 'no CharStrings');
  const widths = new Map<string, number | null>();
  const entry = /\/([^\s/[\]{}()<>%]+)\s+(\d+)\s+(\S+)\s/y;
  let at = text.indexOf('begin', start);
  need(at >= 0, 'no CharStrings dictionary');
  at += 5;
  while (widths.size < MAX_GLYPHS) {
    while (at < text.length && /\s/.test(text[at] as string)) at++;
    entry.lastIndex = at;
    const m = entry.exec(text);
    if (m === null) break;
    const len = Number(m[2]);
    const from = entry.lastIndex;
    need(from + len <= priv.length, 'charstring past the end');
    widths.set(m[1] as string, charStringWidth(priv.subarray(from, from + len), lenIV));
    at = from + len;
    // Skip the closing operator (ND, |-, noaccess def…) up to the next glyph name or `end`.
    const next = text.indexOf('/', at);
    const stop = text.indexOf('end', at);
    if (next < 0 || (stop >= 0 && stop < next)) break;
    at = next;
  }
  need(widths.size > 0, 'no glyphs');
  const names = [...widths.keys()];
  const gids = new Map(names.map((n, i) => [n, i]));
  return {
    format: 'type1',
    numGlyphs: names.length,
    gidOfName: (name) => gids.get(name),
    widthOf: (gid) => {
      const w = widths.get(names[gid] ?? '');
      return w === undefined || w === null ? null : w * scale * 1000;
    },
    glyphNames: new Set(names),
    builtinEncoding,
  };
}

/** Where the clear text ends: /Length1 when it lands just after `eexec` and its EOL, else found. */
function clearTextEnd(data: Buffer, length1: number | null): number {
  const found = data.indexOf('eexec', 0, 'latin1');
  need(found >= 0, 'no eexec');
  let end = found + 5;
  while (end < data.length && (data[end] === 0x0d || data[end] === 0x0a || data[end] === 0x20 || data[end] === 0x09)) end++;
  if (length1 !== null && length1 > found && length1 <= end) return length1;
  return end;
}

/** The eexec section decrypted (ISO-agnostic: Type 1 Font Format 7.2), hexadecimal or binary, first 4 bytes dropped. */
function eexecDecrypt(section: Buffer): Buffer {
  const isHex = section.length >= 4 && [...section.subarray(0, 4)].every((b) => /[0-9a-fA-F]/.test(String.fromCharCode(b)));
  const cipher = isHex ? Buffer.from(section.toString('latin1').replace(/[^0-9a-fA-F]/g, ''), 'hex') : section;
  const out = decrypt(cipher, 55665);
  return out.subarray(Math.min(4, out.length));
}

function decrypt(cipher: Buffer, key: number): Buffer {
  const out = Buffer.allocUnsafe(cipher.length);
  let r = key;
  for (let i = 0; i < cipher.length; i++) {
    const c = cipher[i] as number;
    out[i] = c ^ (r >> 8);
    r = ((c + r) * 52845 + 22719) & 0xffff;
  }
  return out;
}

/** wx of the first command, `hsbw` (13) or `sbw` (12 7); null when the charstring starts otherwise. */
function charStringWidth(encrypted: Buffer, lenIV: number): number | null {
  const cs = lenIV < 0 ? encrypted : decrypt(encrypted, 4330).subarray(Math.min(lenIV, encrypted.length));
  const stack: number[] = [];
  for (let i = 0; i < cs.length && stack.length < 24; ) {
    const b = cs[i] as number;
    if (b >= 32) {
      if (b <= 246) {
        stack.push(b - 139);
        i++;
      } else if (b <= 250) {
        stack.push((b - 247) * 256 + (cs[i + 1] ?? 0) + 108);
        i += 2;
      } else if (b <= 254) {
        stack.push(-(b - 251) * 256 - (cs[i + 1] ?? 0) - 108);
        i += 2;
      } else {
        if (i + 5 > cs.length) return null;
        stack.push(cs.readInt32BE(i + 1));
        i += 5;
      }
      continue;
    }
    if (b === 13) return stack.length >= 2 ? (stack[1] as number) : null;
    if (b === 12 && cs[i + 1] === 7) return stack.length >= 4 ? (stack[2] as number) : null;
    if (b === 12 && cs[i + 1] === 12 && stack.length >= 2) {
      // div before hsbw (rare): fold the two operands.
      const d = stack.pop() as number;
      const n = stack.pop() as number;
      stack.push(d === 0 ? 0 : n / d);
      i += 2;
      continue;
    }
    return null;
  }
  return null;
}

/** /Encoding StandardEncoding, or the `dup code /name put` entries of its array. */
function readEncoding(clear: string): Map<number, string> {
  const out = new Map<number, string>();
  if (/\/Encoding\s+StandardEncoding\s+def/.test(clear)) {
    STANDARD_ENCODING.forEach((n, code) => n !== '' && out.set(code, n));
    return out;
  }
  const at = clear.indexOf('/Encoding');
  if (at < 0) return out;
  const re = /dup\s+(\d+)\s*\/([^\s/[\]{}()<>%]+)\s+put/g;
  re.lastIndex = at;
  for (let m = re.exec(clear); m !== null && out.size < 256; m = re.exec(clear)) {
    const code = Number(m[1]);
    if (code < 256) out.set(code, m[2] as string);
  }
  return out;
}
