import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { postWebService } from '../helpers/converter.js';
import { sha256 } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { scratchDir } from '../helpers/pdf-tools.js';
import { imagePdf, scanPage, textPdf } from '../operations/ocr/scans.js';

/**
 * The ocr web service with a faulty Tesseract (engines.tesseract.executable: a script that answers
 * --version like Tesseract and then fails, hangs, or lacks a language): every failure is the error
 * structure, and the stored document stays as it was. The per-page time limit kills a hanging run.
 */

const scratch = scratchDir('ocr-failures');
afterAll(() => scratch.remove());

const fake = scratch.file('tesseract');
writeFileSync(
  fake,
  `#!/bin/sh
[ "$1" = "--version" ] && { echo "tesseract 5.3.0"; exit 0; }
case "$(cat ${scratch.file('mode')})" in
  fail) echo "Error in pixReadStream: Unknown format: no pix returned" >&2; exit 1 ;;
  language) echo "Failed loading language 'deu'" >&2; exit 1 ;;
  hang) exec sleep 60 ;;
esac
`,
);
chmodSync(fake, 0o755);
const mode = (value: string) => writeFileSync(scratch.file('mode'), value);

const { server, session, upload, download } = useTestServer({ env: { QUIRE_ENGINES__TESSERACT__EXECUTABLE: fake, QUIRE_ENGINES__TESSERACT__TIMEOUT: '2' } });

async function scanned(): Promise<string> {
  const source = await textPdf(scratch.file('source.pdf'), [[{ text: 'Some words', x: 20, y: 100, size: 16 }]]);
  return imagePdf(scratch.file('scan.pdf'), [await scanPage(source, 1, 300, scratch.file('scan.png'))]);
}

describe('ocr with a faulty Tesseract', () => {
  it.each([
    ['fail', -202, 400, /could not read the page image/],
    ['language', -203, 503, /tesseract-ocr-deu/],
    ['hang', -93, 400, /did not finish within 2 s/],
  ])('%s: %i, the document unchanged', async (how, code, status, message) => {
    mode(how);
    const uploaded = await upload(readFileSync(await scanned()), 'scan.pdf');
    const before = sha256(readFileSync(await download(uploaded.documentId)));
    const outcome = await postWebService(`${server.rest}/ocr/${uploaded.documentId}`, session.token, { ocr: { language: how === 'language' ? 'deu' : 'eng' } });
    expect(outcome.status).toBe(status);
    expect(outcome.contentType).toBe('application/json');
    expect(outcome.error!.errorCode).toBe(code);
    expect(outcome.error!.errorMessage).toMatch(message);
    expect(sha256(readFileSync(await download(uploaded.documentId)))).toBe(before);
  });
});
