/**
 * A ToUnicode CMap (ISO 32000-1 §9.10.3): character code → the Unicode text it stands for, with a
 * codespace of one-byte codes (simple fonts) or two-byte codes (Type0 fonts with Identity-H). Used by
 * the fonts we embed (content/type0-font.ts) and by the PDF/A fix-ups that add a missing map
 * (pdfa/to-unicode.ts).
 */
export function toUnicodeCMap(codes: ReadonlyMap<number, string>, codeBytes: 1 | 2): string {
  const entries = [...codes].filter(([, text]) => text !== '').sort((a, b) => a[0] - b[0]);
  const hex = (n: number, digits: number) => n.toString(16).padStart(digits, '0').toUpperCase();
  // UTF-16BE, surrogate pairs for code points beyond the BMP.
  const utf16 = (text: string) =>
    [...text]
      .map((c) => c.codePointAt(0)!)
      .map((cp) => (cp > 0xffff ? hex(0xd800 + ((cp - 0x10000) >> 10), 4) + hex(0xdc00 + ((cp - 0x10000) & 0x3ff), 4) : hex(cp, 4)))
      .join('');
  const lines: string[] = [];
  // At most 100 mappings per bfchar block (§9.10.3 and the CMap specification).
  for (let i = 0; i < entries.length; i += 100) {
    const chunk = entries.slice(i, i + 100);
    lines.push(`${chunk.length} beginbfchar`, ...chunk.map(([code, text]) => `<${hex(code, codeBytes * 2)}> <${utf16(text)}>`), 'endbfchar');
  }
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    codeBytes === 1 ? '<00> <FF>' : '<0000> <FFFF>',
    'endcodespacerange',
    ...lines,
    'endcmap',
    'CMapName currentdict /CMapResource defineresource pop',
    'end',
    'end',
  ].join('\n');
}
