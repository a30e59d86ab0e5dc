import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { downloadToFile, fonts } from '../helpers/converter.js';
import { eventually, uploadFile } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/office');
const CARLITO = '/usr/share/fonts/truetype/crosextra/Carlito-Regular.ttf';

/**
 * A font no system has: Carlito with every "Carlito" in its name table (UTF-16BE and ASCII, same
 * length, so no offset moves) renamed to "Qurlito". FreeType does not check table checksums.
 */
function qurlitoFont(): Buffer {
  const font = Buffer.from(readFileSync(CARLITO));
  for (const [from, to] of [
    [Buffer.from('Carlito', 'latin1'), Buffer.from('Qurlito', 'latin1')],
    [Buffer.from('Carlito', 'utf16le').swap16(), Buffer.from('Qurlito', 'utf16le').swap16()],
  ] as const) {
    for (let at = font.indexOf(from); at >= 0; at = font.indexOf(from, at + 1)) to.copy(font, at);
  }
  return font;
}

/** sample.docx with its styles asking for Qurlito instead of Liberation Serif. */
function qurlitoDocx(dir: string): Buffer {
  const styles = execFileSync('unzip', ['-p', path.join(FIXTURES, 'sample.docx'), 'word/styles.xml'], { encoding: 'utf8' }).replaceAll('Liberation Serif', 'Qurlito');
  mkdirSync(path.join(dir, 'word'), { recursive: true });
  writeFileSync(path.join(dir, 'word/styles.xml'), styles);
  copyFileSync(path.join(FIXTURES, 'sample.docx'), path.join(dir, 'qurlito.docx'));
  execFileSync('zip', ['-q', 'qurlito.docx', 'word/styles.xml'], { cwd: dir });
  return readFileSync(path.join(dir, 'qurlito.docx'));
}

describe('converter: the fonts folder of the data dir', () => {
  const { server, session } = useTestServer({ engines: true, env: { QUIRE_ENGINES__CHROMIUM__ENABLED: 'false', QUIRE_ENGINES__LIBREOFFICE__WORKERS: '1' } });

  async function convertReporting(docx: Buffer): Promise<{ warning: string | null; file: string }> {
    const uploaded = await uploadFile(server.rest, session.token, docx, 'qurlito.docx');
    const response = await fetch(`${server.rest}/converter/${uploaded.documentId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ converter: { report: { fontIsMissing: true } } }),
      redirect: 'manual',
    });
    expect(response.status).toBe(303);
    return { warning: response.headers.get('warning'), file: await downloadToFile(server.rest, session.token, uploaded.documentId) };
  }

  it('uses a font copied into <dataDir>/fonts without a restart (LibreOffice embeds it, the report stops naming it)', async () => {
    const docx = qurlitoDocx(mkdtempSync(path.join(os.tmpdir(), 'quire-qurlito-')));
    const before = await convertReporting(docx);
    expect(before.warning).toMatch(/Font missing: \\"Qurlito\\"/);
    expect(fonts(before.file)).not.toMatch(/Qurlito/);

    writeFileSync(path.join(server.dataDir, 'fonts', 'Qurlito-Regular.ttf'), qurlitoFont());
    const after = await eventually(
      async () => {
        const converted = await convertReporting(docx);
        expect(converted.warning).toBeNull();
        expect(fonts(converted.file)).toMatch(/Qurlito/);
        return converted;
      },
      20_000,
      500,
    );
    expect(after.warning).toBeNull();
  }, 60_000);
});
