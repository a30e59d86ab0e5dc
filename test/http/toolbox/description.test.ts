import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { pdfFacts } from '../../helpers/converter.js';
import { info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-description-'));

/** pdfinfo's "Key: value" lines (-isodates), plus custom entries with -custom. */
function pdfinfo(file: string, ...args: string[]): Record<string, string> {
  const text = execFileSync('pdfinfo', ['-isodates', ...args, file], { encoding: 'utf8' });
  return Object.fromEntries(
    text
      .split('\n')
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim()]),
  );
}

/** The trailer's /Info dictionary as qpdf --json shows it. */
function infoDictionary(file: string): Record<string, string> {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', '--json-object=trailer', file], { encoding: 'utf8' }));
  const ref = json.qpdf[1].trailer.value['/Info'] as string;
  const objects = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', `--json-object=${ref}`, file], { encoding: 'utf8' }));
  return objects.qpdf[1][`obj:${ref}`].value;
}

const XMP = `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
    <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
      <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Old title</rdf:li></rdf:Alt></dc:title>
      <dc:format>application/pdf</dc:format>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/" pdf:Producer="Old producer"/>
  </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;

/** Three numbered pages with an XMP packet (title "Old title", producer in attribute form). */
async function pdfWithXmp(): Promise<Buffer> {
  const document = await PDFDocument.load(await numberedPdf(3));
  document.setTitle('Old title');
  const stream = document.context.stream(XMP, { Type: 'Metadata', Subtype: 'XML' });
  document.catalog.set(PDFName.of('Metadata'), document.context.register(stream));
  return Buffer.from(await document.save());
}

describe('toolbox description', () => {
  const { server, session, download } = useTestServer();

  it('writes title, author, subject, keywords, creator, producer and custom entries, and keeps the XMP in step', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await pdfWithXmp(), 'described.pdf');
    const before = Date.now();
    await toolboxOk(server.rest, session.token, uploaded.documentId, [
      {
        description: {
          allowEmptyValues: false,
          title: 'Jahresbericht – Grüße ✓',
          author: 'Erika Mustermann',
          subject: 'Finanzen',
          keywords: 'bilanz, 2024; quartal',
          creator: 'Quire test',
          producer: 'Quire producer',
          custom: [
            { key: 'Company', value: 'Muster GmbH', remove: false },
            { key: 'Department', value: '', remove: false },
            { key: 'CreationDate', value: '2020-02-29T12:30:00Z', remove: false },
          ],
        },
      },
    ]);
    const file = await download(uploaded.documentId);
    const facts = pdfinfo(file, '-custom');
    expect(facts).toMatchObject({
      Title: 'Jahresbericht – Grüße ✓',
      Author: 'Erika Mustermann',
      Subject: 'Finanzen',
      Keywords: 'bilanz, 2024; quartal',
      Creator: 'Quire test',
      Producer: 'Quire producer',
      Company: 'Muster GmbH',
      CreationDate: '2020-02-29T12:30:00Z',
    });
    expect(facts).not.toHaveProperty('Department');
    expect(Date.parse(facts.ModDate!)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(pdfFacts(file).pages).toBe(3);

    const xmp = execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' });
    expect(xmp).toContain('<rdf:li xml:lang="x-default">Jahresbericht – Grüße ✓</rdf:li>');
    expect(xmp).not.toContain('Old title');
    expect(xmp).toMatch(/<dc:creator><rdf:Seq><rdf:li>Erika Mustermann<\/rdf:li><\/rdf:Seq><\/dc:creator>/);
    expect(xmp).toContain('<pdf:Producer>Quire producer</pdf:Producer>');
    expect(xmp).not.toContain('Old producer');
    expect(xmp).toContain('<pdf:Keywords>bilanz, 2024; quartal</pdf:Keywords>');
    expect(xmp).toContain('<xmp:CreatorTool>Quire test</xmp:CreatorTool>');
    expect(xmp).toContain('<xmp:CreateDate>2020-02-29T12:30:00Z</xmp:CreateDate>');
    expect(xmp).toMatch(/<xmp:ModifyDate>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z<\/xmp:ModifyDate>/);
    expect(xmp).toContain('<dc:format>application/pdf</dc:format>');
    // The packet stays well-formed XML with one xpacket wrapper.
    expect(xmp.match(/<\?xpacket begin/g)).toHaveLength(1);
    expect(xmp.trim().endsWith('<?xpacket end="w"?>')).toBe(true);
  });

  it('ignores empty strings unless allowEmptyValues, which clears fields; removes custom entries', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(1), 'clear.pdf');
    await toolboxOk(server.rest, session.token, uploaded.documentId, [
      {
        description: {
          title: 'Keep me',
          author: 'Someone',
          custom: [
            { key: 'Project', value: 'Apollo' },
            { key: 'Status', value: 'draft' },
          ],
        },
      },
    ]);
    await toolboxOk(server.rest, session.token, uploaded.documentId, [{ description: { allowEmptyValues: false, title: '', author: '', subject: 'Added', custom: [] } }]);
    let facts = pdfinfo(await download(uploaded.documentId), '-custom');
    expect(facts).toMatchObject({ Title: 'Keep me', Author: 'Someone', Subject: 'Added', Project: 'Apollo', Status: 'draft' });

    await toolboxOk(server.rest, session.token, uploaded.documentId, [
      {
        description: {
          allowEmptyValues: true,
          title: '',
          author: 'Another',
          subject: '',
          keywords: '',
          creator: '',
          producer: '',
          custom: [
            { key: 'Project', remove: true },
            { key: 'Status', value: '' },
          ],
        },
      },
    ]);
    const file = await download(uploaded.documentId);
    facts = pdfinfo(file, '-custom');
    expect(facts.Author).toBe('Another');
    for (const gone of ['Title', 'Subject', 'Keywords', 'Creator', 'Producer', 'Project', 'Status']) expect(facts, gone).not.toHaveProperty(gone);
    const dictionary = infoDictionary(file);
    expect(Object.keys(dictionary).sort()).toEqual(['/Author', '/CreationDate', '/ModDate']);
  });

  it('refuses bad custom entries and unknown types with -14 and leaves the document unchanged', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(1), 'bad.pdf');
    const cases: [unknown, RegExp][] = [
      [{ custom: [{ key: 'Title', value: 'x' }] }, /toolbox\[0\]\.description\.custom\[0\]\.key: "Title" is set with the member toolbox\[0\]\.description\.title/],
      [{ custom: [{ key: '', value: 'x' }] }, /custom\[0\]\.key: required/],
      [{ custom: [{ key: 'With space', value: 'x' }] }, /custom\[0\]\.key: .*white space/],
      [{ custom: [{ key: 'ModDate', value: 'yesterday' }] }, /custom\[0\]\.value: ModDate must be a date/],
      [{ custom: [{ key: 'Trapped', value: 'maybe' }] }, /custom\[0\]\.value: Trapped must be True, False or Unknown/],
      [{ allowEmptyValues: 'sometimes' }, /allowEmptyValues/],
    ];
    for (const [options, message] of cases) {
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, [{ description: options }]);
      expect(outcome, JSON.stringify(options)).toMatchObject({ status: 400, error: { errorCode: -14 } });
      expect(outcome.error?.errorMessage).toMatch(message);
    }
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize });
  });

  it('works on a protected PDF with its password (-5008 for a wrong one) and keeps the protection', async () => {
    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await numberedPdf(2));
    execFileSync('qpdf', ['--encrypt', 'geheim', 'owner-pw', '256', '--', plain, `${plain}.enc`]);
    const locked = await uploadFile(server.rest, session.token, readFileSync(`${plain}.enc`), 'locked.pdf');
    const wrong = await runToolbox(server.rest, session.token, locked.documentId, [{ description: { title: 'Secret' } }], { password: { open: 'wrong' } });
    expect(wrong.error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, [{ description: { title: 'Secret' } }], { password: { open: 'geheim' } });
    const file = await download(locked.documentId);
    expect(() => pdfFacts(file)).toThrow();
    expect(pdfinfo(file, '-upw', 'geheim')).toMatchObject({ Title: 'Secret', Encrypted: expect.stringMatching(/^yes/) });
  });

  it('answers -7 for a damaged PDF and keeps it as it was', async () => {
    const damaged = await uploadFile(server.rest, session.token, Buffer.from('%PDF-1.4\nthis is not a PDF at all\n%%EOF\n'), 'damaged.pdf');
    const outcome = await runToolbox(server.rest, session.token, damaged.documentId, [{ description: { title: 'x' } }]);
    expect(outcome).toMatchObject({ status: 400, error: { errorCode: -7 } });
    expect(await info(server.rest, session.token, damaged.documentId)).toMatchObject({ fileSize: damaged.fileSize });
  });
});
