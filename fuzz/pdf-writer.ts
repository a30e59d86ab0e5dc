/**
 * Writes PDFs with a classic cross-reference table from object bodies, and rebuilds the table of a
 * (mutated) file so that a structural mutation reaches the code behind the parser instead of only
 * its repair path. Used by the seed writer and by the PDF mutators.
 */

export interface PdfObject {
  num: number;
  /** The object's body between "N 0 obj" and "endobj" (may hold binary stream data). */
  body: string | Buffer;
}

const latin1 = (text: string) => Buffer.from(text, 'latin1');

/** A stream object body: the dictionary entries (without << >>) and the data; /Length is added. */
export function streamBody(dictEntries: string, data: Buffer | string): Buffer {
  const bytes = typeof data === 'string' ? latin1(data) : data;
  return Buffer.concat([latin1(`<< ${dictEntries} /Length ${bytes.length} >>\nstream\n`), bytes, latin1('\nendstream')]);
}

/** A complete PDF: header, objects in order, xref table, trailer (/Size, /Root, extra entries). */
export function buildPdf(objects: PdfObject[], options: { root: number; trailerExtra?: string; version?: string }): Buffer {
  const parts: Buffer[] = [latin1(`%PDF-${options.version ?? '1.7'}\n%\xe2\xe3\xcf\xd3\n`)];
  let offset = parts[0]!.length;
  const offsets = new Map<number, number>();
  for (const object of objects) {
    offsets.set(object.num, offset);
    const body = typeof object.body === 'string' ? latin1(object.body) : object.body;
    const chunk = Buffer.concat([latin1(`${object.num} 0 obj\n`), body, latin1('\nendobj\n')]);
    parts.push(chunk);
    offset += chunk.length;
  }
  const size = Math.max(0, ...objects.map((o) => o.num)) + 1;
  parts.push(xrefSection(offsets, size, offset, `/Root ${options.root} 0 R${options.trailerExtra ? ` ${options.trailerExtra}` : ''}`));
  return Buffer.concat(parts);
}

function xrefSection(offsets: Map<number, number>, size: number, startxref: number, trailerEntries: string): Buffer {
  let table = `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let n = 1; n < size; n++) {
    const at = offsets.get(n);
    table += at === undefined ? '0000000000 65535 f \n' : `${String(at).padStart(10, '0')} 00000 n \n`;
  }
  return latin1(`${table}trailer\n<< /Size ${size} ${trailerEntries} >>\nstartxref\n${startxref}\n%%EOF\n`);
}

/**
 * Appends a fresh classic xref table and trailer that point at every "N G obj" found in the file
 * (the last definition of a number wins, as in an incremental update). Returns undefined for files
 * whose objects live in object streams (their offsets cannot be listed in a classic table) or that
 * have no /Root to carry over.
 */
export function rebuildXref(pdf: Buffer): Buffer | undefined {
  const text = pdf.toString('latin1');
  if (/\/Type\s*\/ObjStm/.test(text)) return undefined;
  const root = /\/Root\s+(\d+)\s+(\d+)\s+R/.exec(text);
  if (!root) return undefined;
  const offsets = new Map<number, number>();
  const pattern = /(?:^|[\r\n\s])(\d{1,7})\s+(\d{1,5})\s+obj\b/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const start = match.index + (match[0].length - match[0].trimStart().length);
    offsets.set(Number(match[1]), start);
  }
  if (offsets.size === 0) return undefined;
  const size = Math.max(...offsets.keys()) + 1;
  const info = /\/Info\s+(\d+)\s+(\d+)\s+R/.exec(text);
  const body = pdf.at(-1) === 0x0a ? pdf : Buffer.concat([pdf, latin1('\n')]);
  const trailer = `/Root ${root[1]} ${root[2]} R${info ? ` /Info ${info[1]} ${info[2]} R` : ''}`;
  return Buffer.concat([body, xrefSection(offsets, size, body.length, trailer)]);
}
