/**
 * A tiny writer of classic PDF files for the hostile-input tests: object bodies in, a file with a
 * correct xref table out (checked by qpdf in the tests), so each test breaks exactly one thing.
 */
export interface BuiltPdf {
  readonly bytes: Buffer;
  /** Offset of each object (index = object number). */
  readonly offsets: number[];
  readonly xrefOffset: number;
}

/** `bodies[i]` is object i+1 (text between `obj` and `endobj`, or a Buffer). Object 1 should be the catalog. */
export function buildPdf(bodies: Array<string | Buffer>, trailerExtra = ''): BuiltPdf {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let size = parts[0]?.length ?? 0;
  const offsets: number[] = [0];
  bodies.forEach((body, i) => {
    offsets.push(size);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(chunk);
    size += chunk.length;
  });
  const xrefOffset = size;
  let xref = `xref\n0 ${bodies.length + 1}\n0000000000 65535 f\r\n`;
  for (let i = 1; i <= bodies.length; i++) xref += `${String(offsets[i]).padStart(10, '0')} 00000 n\r\n`;
  xref += `trailer\n<< /Size ${bodies.length + 1} /Root 1 0 R /ID [<00112233445566778899aabbccddeeff><00112233445566778899aabbccddeeff>] ${trailerExtra}>>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  parts.push(Buffer.from(xref, 'latin1'));
  return { bytes: Buffer.concat(parts), offsets, xrefOffset };
}

/** The minimal page tree: catalog (1), pages (2), one page (3). Extra objects start at number 4. */
export const BASE_OBJECTS = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>'];

/** A stream object body with the given dictionary entries (without /Length unless given) and data. */
export function streamBody(dictEntries: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`<< ${dictEntries} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
}
