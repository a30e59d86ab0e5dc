import { createHash } from 'node:crypto';
import { appendFile, constants, copyFile } from 'node:fs/promises';
import { asArray, asDict } from '../pdf/qpdf-json.js';
import type { SignableDocument } from './document.js';
import type { ValidationData } from './revocation.js';
import { copyDict, Raw, serialize } from './pdf-values.js';
import { layOutUpdate, type NewObject } from './update-writer.js';

/**
 * The Document Security Store of a PAdES B-LT signature (ETSI EN 319 142-1 §5.4.2, ISO 32000-2
 * §12.8.4.3), written as a further incremental update after the signed revision, so the signature's
 * byte ranges stay as they were: the certificates, OCSP responses and CRLs as streams, listed in the
 * catalog's /DSS (/Certs, /OCSPs, /CRLs) and in a /VRI entry of the signature, keyed by `vriKey`. An
 * existing DSS (an earlier B-LT signature's) is kept and added to.
 */

/** The /VRI key of a signature: the uppercase hex SHA-1 of its /Contents string's bytes (the CMS and the zero padding after it, as iText and PDFBox compute it). */
export function vriKey(contents: Buffer): string {
  return createHash('sha1').update(contents).digest('hex').toUpperCase();
}

/** Writes `output`: `doc`'s file plus an update holding the DSS with `data` for the signature `key`. */
export async function writeDssUpdate(doc: SignableDocument, output: string, key: string, data: ValidationData): Promise<{ size: number }> {
  let next = Number(doc.trailer['/Size'] ?? 0);
  const objects: NewObject[] = [];
  const stream = (bytes: Buffer): string => {
    const num = next++;
    objects.push({ num, gen: 0, parts: [Buffer.from(`${num} 0 obj\n<</Length ${bytes.length}>>\nstream\n`, 'latin1'), bytes, Buffer.from('\nendstream\nendobj\n', 'latin1')] });
    return `${num} 0 R`;
  };
  const certs = data.certs.map(stream);
  const ocsps = data.ocsps.map(stream);
  const crls = data.crls.map(stream);

  const existing = asDict(await doc.fetcher.resolve(doc.catalog['/DSS']));
  const listed = async (name: string) => asArray(await doc.fetcher.resolve(existing?.[name])) ?? [];
  const vri = copyDict(asDict(await doc.fetcher.resolve(existing?.['/VRI'])));
  const entry = [certs.length ? `/Cert [${certs.join(' ')}]` : '', ocsps.length ? `/OCSP [${ocsps.join(' ')}]` : '', crls.length ? `/CRL [${crls.join(' ')}]` : ''].filter(Boolean).join(' ');
  vri[`/${key}`] = new Raw(`<<${entry}>>`);
  const dss = {
    '/Type': '/DSS',
    '/Certs': [...(await listed('/Certs')), ...certs],
    '/OCSPs': [...(await listed('/OCSPs')), ...ocsps],
    '/CRLs': [...(await listed('/CRLs')), ...crls],
    '/VRI': vri,
  };
  const dssNum = next++;
  objects.push({ num: dssNum, gen: 0, parts: [Buffer.from(`${dssNum} 0 obj\n${serialize(dss)}\nendobj\n`, 'latin1')] });

  const catalog = copyDict(doc.catalog);
  catalog['/DSS'] = `${dssNum} 0 R`;
  const [rootNum, rootGen] = doc.rootRef.split(' ');
  objects.push({ num: Number(rootNum), gen: Number(rootGen), parts: [Buffer.from(`${rootNum} ${rootGen} obj\n${serialize(catalog)}\nendobj\n`, 'latin1')] });

  const { update } = layOutUpdate(doc, objects, next);
  await copyFile(doc.file, output, constants.COPYFILE_EXCL);
  await appendFile(output, update);
  return { size: doc.size + update.length };
}
