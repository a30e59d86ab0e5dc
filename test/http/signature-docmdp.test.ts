import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/client.js';
import { realPdf } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { scratchDir } from '../helpers/pdf-tools.js';

/**
 * The DocMDP level as Apache PDFBox (Debian libpdfbox2-java) reads it: the catalog's /Perms /DocMDP
 * signature, its /Reference transform's /P — a reader other than ours and other than poppler.
 */
const JARS = ['pdfbox2', 'fontbox2', 'commons-logging'].map((jar) => `/usr/share/java/${jar}.jar`);
const hasPdfBox = JARS.every((jar) => existsSync(jar)) && spawnSync('java', ['-version']).status === 0;

const READER = `import java.io.File;
import org.apache.pdfbox.cos.*;
import org.apache.pdfbox.pdmodel.PDDocument;
public class DocMdp {
  public static void main(String[] args) throws Exception {
    try (PDDocument document = PDDocument.load(new File(args[0]))) {
      COSBase perms = document.getDocumentCatalog().getCOSObject().getDictionaryObject(COSName.PERMS);
      String level = "none";
      if (perms instanceof COSDictionary) {
        COSDictionary signature = (COSDictionary) ((COSDictionary) perms).getDictionaryObject(COSName.DOCMDP);
        COSArray references = (COSArray) signature.getDictionaryObject(COSName.REFERENCE);
        COSDictionary reference = (COSDictionary) references.getObject(0);
        COSDictionary params = (COSDictionary) reference.getDictionaryObject(COSName.TRANSFORM_PARAMS);
        level = "P=" + params.getInt(COSName.P, 2) + " method=" + reference.getNameAsString(COSName.TRANSFORM_METHOD);
      }
      System.out.println(level + " signatures=" + document.getSignatureDictionaries().size());
    }
  }
}
`;

describe.skipIf(!hasPdfBox)('signature certificationLevel as PDFBox reads it', () => {
  const { server, session, upload, download } = useTestServer();
  const scratch = scratchDir('sig-docmdp');
  const reader = scratch.file('DocMdp.java');
  writeFileSync(reader, READER);
  afterAll(() => scratch.remove());

  const docMdp = (file: string) => execFileSync('java', ['-cp', JARS.join(':'), reader, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 }).trim();

  it.each([
    ['noChanges', 'P=1 method=DocMDP signatures=1'],
    ['formFillingAndSignatures', 'P=2 method=DocMDP signatures=1'],
    ['formFillingAndSignaturesAndAnnotations', 'P=3 method=DocMDP signatures=1'],
    ['none', 'none signatures=1'],
  ])('certificationLevel %s → %s', async (certificationLevel, expected) => {
    const document = await upload(await realPdf(1), `${certificationLevel}.pdf`);
    const response = await fetch(`${server.rest}/signature/${document.documentId}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify({ signature: { add: { certificationLevel } } }),
    });
    expect(response.status).toBe(303);
    expect(docMdp(await download(document.documentId, 'pdf'))).toBe(expected);
  });
});
