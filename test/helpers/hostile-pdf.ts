/**
 * Hand-made PDFs with exactly the structure a test needs, including structures no PDF library would
 * write (lying counts, cycles, deep nesting): object bodies in, a file with a correct cross-reference
 * table out, so that every tool reads the objects as written and nothing is "repaired" on the way.
 */

export type ObjectBodies = Readonly<Record<number, string | Buffer>>;

export interface BuildOptions {
  /** The catalog's object number; default 1. */
  root?: number;
  /** More trailer entries, e.g. "/Info 9 0 R". */
  trailer?: string;
  /** Header version; default 1.7. */
  version?: string;
}

/** A file of the given objects ("N 0 obj <body> endobj" each), with an xref table that points at each. */
export function buildPdf(objects: ObjectBodies, options: BuildOptions = {}): Buffer {
  const parts: Buffer[] = [Buffer.from(`%PDF-${options.version ?? '1.7'}\n%\xe2\xe3\xcf\xd3\n`, 'latin1')];
  let length = parts[0]!.length;
  const offsets = new Map<number, number>();
  const numbers = Object.keys(objects)
    .map(Number)
    .sort((a, b) => a - b);
  for (const num of numbers) {
    offsets.set(num, length);
    const body = objects[num]!;
    const bytes = Buffer.concat([Buffer.from(`${num} 0 obj\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(bytes);
    length += bytes.length;
  }
  const size = (numbers.at(-1) ?? 0) + 1;
  const xref = ['xref', `0 ${size}`, '0000000000 65535 f '];
  for (let num = 1; num < size; num++) {
    const offset = offsets.get(num);
    xref.push(offset === undefined ? '0000000000 65535 f ' : `${String(offset).padStart(10, '0')} 00000 n `);
  }
  const tail = `${xref.join('\n')}\ntrailer\n<</Size ${size}/Root ${options.root ?? 1} 0 R${options.trailer ?? ''}>>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(tail, 'latin1'));
  return Buffer.concat(parts);
}

/** A stream object body with a correct /Length. */
export function stream(dictionary: string, data: string | Buffer): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
  return Buffer.concat([Buffer.from(`<<${dictionary}/Length ${bytes.length}>>stream\n`, 'latin1'), bytes, Buffer.from('\nendstream', 'latin1')]);
}

/** The text every page of these files shows: "HOSTILE-n" for page n. */
export function pageText(n: number): string {
  return `HOSTILE-${n}`;
}

/**
 * The objects of a small well-formed document: catalog 1, page tree root 2, pages 10, 12, 14, …
 * (content streams 11, 13, …) and the font 3. `pagesDictionary` replaces the root's dictionary, so a
 * test can make the tree lie; `catalogExtra` adds catalog entries (e.g. "/Outlines 6 0 R").
 */
export function documentObjects(options: { pages?: number; pagesDictionary?: string; catalogExtra?: string } = {}): Record<number, string | Buffer> {
  const pages = options.pages ?? 1;
  const kids = Array.from({ length: pages }, (_, i) => `${10 + 2 * i} 0 R`).join(' ');
  const objects: Record<number, string | Buffer> = {
    1: `<</Type/Catalog/Pages 2 0 R${options.catalogExtra ?? ''}>>`,
    2: options.pagesDictionary ?? `<</Type/Pages/Kids[${kids}]/Count ${pages}>>`,
    3: '<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>',
  };
  for (let i = 0; i < pages; i++) {
    objects[10 + 2 * i] = `<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents ${11 + 2 * i} 0 R/Resources<</Font<</F1 3 0 R>>>>>>`;
    objects[11 + 2 * i] = stream('', `BT /F1 24 Tf 72 700 Td (${pageText(i + 1)}) Tj ET`);
  }
  return objects;
}

/** One real page whose page tree root declares `/Count <count>` (e.g. 2147483647, -5). */
export function lyingCountPdf(count: string | number, pages = 1): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${10 + 2 * i} 0 R`).join(' ');
  return buildPdf(documentObjects({ pages, pagesDictionary: `<</Type/Pages/Kids[${kids}]/Count ${count}>>` }));
}

/** The outline of defect 2: items 7 and 8 point at each other (/Next, /Prev, /First loops). */
export function outlineCyclePdf(): Buffer {
  return buildPdf({
    ...documentObjects({ catalogExtra: '/Outlines 6 0 R/PageMode/UseOutlines' }),
    6: '<</Type/Outlines/First 7 0 R/Last 8 0 R/Count 2>>',
    7: '<</Title(A)/Parent 6 0 R/Next 8 0 R/First 7 0 R/Last 7 0 R/Count 1/Dest[10 0 R/Fit]>>',
    8: '<</Title(B)/Parent 6 0 R/Next 7 0 R/Prev 8 0 R/First 6 0 R/Last 6 0 R/Count 1/Dest[10 0 R/Fit]>>',
  });
}

/** A page tree whose root lists itself among its kids (a /Kids cycle), next to one real page. */
export function kidsCyclePdf(): Buffer {
  return buildPdf(documentObjects({ pagesDictionary: '<</Type/Pages/Kids[10 0 R 2 0 R]/Count 2>>' }));
}

/** A page tree with an intermediate node listed twice (a diamond): 2 → [4, 4], 4 → [10, 12]. */
export function sharedNodePdf(): Buffer {
  const objects = documentObjects({ pages: 2, pagesDictionary: '<</Type/Pages/Kids[4 0 R 4 0 R]/Count 4>>' });
  objects[4] = '<</Type/Pages/Parent 2 0 R/Kids[10 0 R 12 0 R]/Count 2>>';
  objects[10] = String(objects[10]).replace('/Parent 2 0 R', '/Parent 4 0 R');
  objects[12] = String(objects[12]).replace('/Parent 2 0 R', '/Parent 4 0 R');
  return buildPdf(objects);
}

/** The page tree root's /Parent is the page (a /Parent cycle: page → root → page → …). */
export function parentCyclePdf(): Buffer {
  return buildPdf(documentObjects({ pagesDictionary: '<</Type/Pages/Kids[10 0 R]/Count 1/Parent 10 0 R>>' }));
}
