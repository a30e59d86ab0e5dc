import { writeFile } from 'node:fs/promises';
import { PDFDict, PDFName, PDFRawStream } from '@cantoo/pdf-lib';
import { readXmp } from '../../pdf/xmp.js';
import { MAX_XMP_BYTES } from '../document/document-info.js';
import { NS, XmpPacket } from '../document/xmp-packet.js';
import { loadPdf } from '../pdf-lib-io.js';
import { decodeBounded } from '../stream-bounds.js';

/**
 * Drops a document's PDF/A claim: the PDF/A identification (`pdfaid:part`, `conformance`, `amd`,
 * `corr`) leaves its XMP packet, everything else in the packet stays. What an edit with
 * `pdfaEditProfile: removePdfaMetadata` does when it breaks the conformance the document claimed:
 * a file that says it is PDF/A and is not is worse than one that makes no claim. Returns false (and
 * writes nothing) when the packet makes no claim.
 */
export async function removePdfaClaim(input: string, output: string): Promise<boolean> {
  const document = await loadPdf(input);
  const metadata = document.catalog.lookup(PDFName.of('Metadata'));
  if (!(metadata instanceof PDFRawStream)) return false;
  const raw = Buffer.from(decodeBounded(metadata, MAX_XMP_BYTES));
  const facts = readXmp(raw);
  if (facts.pdfaPart === '' && facts.pdfaConformance === '') return false;
  const packet = XmpPacket.parse(raw);
  for (const name of ['part', 'conformance', 'amd', 'corr']) packet.removeProperty(NS.pdfaid, name);
  const bytes = packet.toBuffer();
  const context = document.context;
  const stream = PDFRawStream.of(context.obj({ Type: 'Metadata', Subtype: 'XML', Length: bytes.length }) as PDFDict, bytes);
  document.catalog.set(PDFName.of('Metadata'), context.register(stream));
  await writeFile(output, await document.save({ useObjectStreams: true, updateFieldAppearances: false }));
  return true;
}
