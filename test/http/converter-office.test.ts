import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { convert, convertOk, downloadToFile, fonts, pageText, pdfFacts } from '../helpers/converter.js';
import { info, uploadFile } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/office');
const fixture = (name: string): Buffer => readFileSync(path.join(FIXTURES, name));

describe('converter: Office and OpenDocument input (LibreOffice)', () => {
  const { server, session } = useTestServer({ engines: true, env: { QUIRE_ENGINES__CHROMIUM__ENABLED: 'false' } });

  const cases: [string, number][] = [
    ['sample.docx', 2],
    ['sample.doc', 2],
    ['sample.odt', 2],
    ['sample.rtf', 2],
    ['sample.xlsx', 1],
    ['sample.xls', 1],
    ['sample.ods', 1],
    ['sample.pptx', 2],
    ['sample.ppt', 2],
    ['sample.odp', 2],
  ];
  for (const [name, pages] of cases) {
    it(`converts ${name} in place: same id and name, PDF with the marker, umlauts and CJK intact`, async () => {
      const uploaded = await uploadFile(server.rest, session.token, fixture(name), name);
      const converted = await convertOk(server.rest, session.token, uploaded.documentId);
      expect(converted).toMatchObject({
        documentId: uploaded.documentId,
        fileName: uploaded.fileName,
        mimeType: 'application/pdf',
        fileExtension: 'pdf',
        isFileLocked: false,
      });
      const facts = pdfFacts(await downloadToFile(server.rest, session.token, uploaded.documentId));
      expect(facts.pages).toBe(pages);
      const kind = name.split('.')[1]!;
      expect(facts.text).toContain(`QUIRE-MARKER-${kind}`);
      expect(facts.text).toContain('Grüße aus Köln');
      expect(facts.text).toContain('日本語テキスト');
    });
  }

  it('keeps only the requested pages ("2" of a 2-page docx) and refuses pages out of range without touching the document', async () => {
    const uploaded = await uploadFile(server.rest, session.token, fixture('sample.docx'), 'pages.docx');
    const refused = await convert(server.rest, session.token, uploaded.documentId, { converter: { pages: '3-4' } });
    expect(refused).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -14 } });
    expect(refused.error?.errorMessage).toMatch(/converter\.pages.*out of range.*2 pages/);
    const unchanged = await info(server.rest, session.token, uploaded.documentId);
    expect(unchanged).toMatchObject({ mimeType: uploaded.mimeType, fileSize: uploaded.fileSize, isFileLocked: false });

    await convertOk(server.rest, session.token, uploaded.documentId, { converter: { pages: 'last' } });
    const file = await downloadToFile(server.rest, session.token, uploaded.documentId);
    expect(pdfFacts(file).pages).toBe(1);
    expect(pageText(file, 1)).toContain('QUIRE-PAGE-TWO');
  });

  it('accepts the body the official clients send (every default explicit, unknown members, history query)', async () => {
    const uploaded = await uploadFile(server.rest, session.token, fixture('sample.docx'), 'client.docx');
    const response = await fetch(`${server.rest}/converter/${uploaded.documentId}?history=false`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        converter: {
          pages: '',
          embedFonts: false,
          compression: true,
          reduceResolution: false,
          dpi: 300,
          jpegQuality: 90,
          fileExtension: '',
          accessPassword: '',
          maxRecursion: 1,
          somethingNew: 1,
        },
        billing: { applicationName: 'external', customerCode: '', userName: '' },
      }),
      redirect: 'manual',
    });
    expect(response.status).toBe(303);
  });

  it('embeds the standard fonts with embedFonts and writes PDF/A-2b with pdfa.convert.level 2b', async () => {
    const uploaded = await uploadFile(server.rest, session.token, fixture('sample.docx'), 'pdfa.docx');
    await convertOk(server.rest, session.token, uploaded.documentId, {
      converter: { embedFonts: true, pdfa: { convert: { level: '2b', errorReport: 'message' } } },
    });
    const file = await downloadToFile(server.rest, session.token, uploaded.documentId);
    const fontTable = fonts(file)
      .split('\n')
      .slice(2)
      .filter((l) => l.trim() !== '');
    expect(fontTable.length).toBeGreaterThan(0);
    for (const line of fontTable) expect(line).toMatch(/ yes /); // the "emb" column
    const described = await info(server.rest, session.token, uploaded.documentId);
    expect(JSON.stringify((described as unknown as { metadata: unknown }).metadata)).toMatch(/"part":"?2"?/);
  });

  it('opens a protected OpenDocument file with accessPassword; without it or with a wrong one: -103', async () => {
    const uploaded = await uploadFile(server.rest, session.token, fixture('protected.odt'), 'protected.odt');
    for (const accessPassword of ['', 'wrong']) {
      const refused = await convert(server.rest, session.token, uploaded.documentId, { converter: { accessPassword } });
      expect(refused).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -103 } });
    }
    await convertOk(server.rest, session.token, uploaded.documentId, { converter: { accessPassword: 'secret' } });
    expect(pdfFacts(await downloadToFile(server.rest, session.token, uploaded.documentId)).text).toContain('QUIRE-MARKER-odt');
  });

  it('converts CSV through Calc into a table', async () => {
    const csv = Buffer.from('name,city\nQUIRE-CSV-MARKER,Köln\nZweite,東京\n', 'utf8');
    const uploaded = await uploadFile(server.rest, session.token, csv, 'table.csv');
    await convertOk(server.rest, session.token, uploaded.documentId);
    const text = pdfFacts(await downloadToFile(server.rest, session.token, uploaded.documentId)).text;
    expect(text).toContain('QUIRE-CSV-MARKER');
    expect(text).toContain('Köln');
    expect(text).toContain('東京');
  });

  it('refuses damaged Office input with -102 and leaves the document as it was', async () => {
    const broken = Buffer.concat([fixture('sample.docx').subarray(0, 1500), Buffer.alloc(2000, 7)]);
    const uploaded = await uploadFile(server.rest, session.token, broken, 'broken.docx');
    const outcome = await convert(server.rest, session.token, uploaded.documentId, { converter: { fileExtension: 'docx' } });
    expect(outcome).toMatchObject({ status: 400, contentType: 'application/json' });
    expect([-102, -101]).toContain(outcome.error?.errorCode);
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: broken.length, isFileLocked: false });
  });

  it('reports fonts the document asks for but the server lacks, as Warning headers, when report asks for it', async () => {
    // The fixture with its styles switched to Calibri (Carlito is metric-compatible) and Comic Sans MS (not installed).
    const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-fonts-'));
    const styles = execFileSync('unzip', ['-p', path.join(FIXTURES, 'sample.docx'), 'word/styles.xml'], { encoding: 'utf8' })
      .replaceAll('Liberation Serif', 'Calibri')
      .replaceAll('Liberation Sans', 'Comic Sans MS');
    mkdirSync(path.join(dir, 'word'));
    writeFileSync(path.join(dir, 'word/styles.xml'), styles);
    writeFileSync(path.join(dir, 'fonts.docx'), fixture('sample.docx'));
    execFileSync('zip', ['-q', 'fonts.docx', 'word/styles.xml'], { cwd: dir });
    const uploaded = await uploadFile(server.rest, session.token, readFileSync(path.join(dir, 'fonts.docx')), 'fonts.docx');

    const silent = await fetch(`${server.rest}/converter/${uploaded.documentId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ converter: {} }),
      redirect: 'manual',
    });
    expect(silent.status).toBe(303);
    expect(silent.headers.get('warning')).toBeNull();

    const again = await uploadFile(server.rest, session.token, readFileSync(path.join(dir, 'fonts.docx')), 'fonts2.docx');
    const reported = await fetch(`${server.rest}/converter/${again.documentId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ converter: { report: { fontIsMissing: true, fontAliasUsage: true } } }),
      redirect: 'manual',
    });
    expect(reported.status).toBe(303);
    const warning = reported.headers.get('warning') ?? '';
    expect(warning).toMatch(/299 quire "Font missing: \\"Comic Sans MS\\" is not installed/);
    expect(warning).toMatch(/Font alias used: \\"Calibri\\" is not installed; replaced by the compatible \\"Carlito\\"/);
    expect(warning).not.toMatch(/Liberation|DejaVu/);
  });

  it('adds a history state in history mode; the upload stays reachable', async () => {
    const uploaded = await uploadFile(server.rest, session.token, fixture('sample.odt'), 'history.odt', '?history=true');
    await convertOk(server.rest, session.token, uploaded.documentId);
    const response = await fetch(`${server.rest}/documents/${uploaded.documentId}/history`, { headers: { authorization: `Bearer ${session.token}` } });
    const history = (await response.json()) as { id: number; operation: string; active: boolean }[];
    expect(history.map((h) => [h.id, h.operation, h.active])).toEqual([
      [1, '', false],
      [2, 'converter', true],
    ]);
  });
});
