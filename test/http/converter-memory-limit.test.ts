import { describe, expect, it } from 'vitest';
import { convert, convertOk, downloadToFile, pdfFacts } from '../helpers/converter.js';
import { info, uploadFile } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';

// The hard memory cap of a warm pool's worker while it converts (engines.chromium.memoryLimit): a
// document that takes its browser past it fails with -109 naming the setting, the browser is
// replaced, and the engine serves on. Chromium does not run under RLIMIT_AS; the pool polls the
// memory of the browser's process group.

/** An HTML table of `rows` rows: Chromium's layout of 5,000 rows takes a browser to ~1.6 GB. */
function bigTable(rows: number): Buffer {
  const body = Array.from({ length: rows }, (_, i) => `<tr>${Array.from({ length: 8 }, (_, j) => `<td>row ${i} col ${j}</td>`).join('')}</tr>`).join('');
  return Buffer.from(`<!doctype html><html><body><table>${body}</table></body></html>`);
}

describe('converter: the memory cap of a Chromium worker', () => {
  const { server, session } = useTestServer({
    engines: true,
    env: {
      QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false',
      QUIRE_ENGINES__CHROMIUM__WORKERS: '1',
      QUIRE_ENGINES__CHROMIUM__MEMORY_LIMIT: '700MB',
      QUIRE_ENGINES__CHROMIUM__TIMEOUT: '120',
    },
  });

  it('fails a conversion that passes it with -109 naming engines.chromium.memoryLimit, and converts the next document', async () => {
    const big = await uploadFile(server.rest, session.token, bigTable(5_000), 'big.html');
    const outcome = await convert(server.rest, session.token, big.documentId);
    expect(outcome).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -109 } });
    expect(outcome.error?.errorMessage).toBe('The chromium engine needed more memory than the 700 MB it may use (engines.chromium.memoryLimit); the document is too complex or malformed.');
    // Nothing was changed: the document is still the HTML, unlocked.
    expect(await info(server.rest, session.token, big.documentId)).toMatchObject({ mimeType: 'text/html', isFileLocked: false });

    const small = await uploadFile(server.rest, session.token, Buffer.from('<!doctype html><p>QUIRE-AFTER-THE-CAP</p>'), 'small.html');
    await convertOk(server.rest, session.token, small.documentId);
    expect(pdfFacts(await downloadToFile(server.rest, session.token, small.documentId)).text).toContain('QUIRE-AFTER-THE-CAP');
  }, 120_000);
});
