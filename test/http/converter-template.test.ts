import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { convert, convertOk, downloadToFile, pageText, pdfFacts } from '../helpers/converter.js';
import { uploadFile } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { listen, redPng, type Listener } from '../operations/urlconverter/site.js';

/**
 * converter html.useAsTemplate + templateData, shaped like the official TypeScript client's
 * testConverterTemplate: an HTML template whose first page is A4 landscape and second A4 portrait
 * (named CSS pages, preferCSSPageSize), a <#list custom.data as data> table filled from Base64 JSON,
 * images from baseURL (downloadImages), header and footer with ${html.pageNumber} von ${html.totalPages}.
 * The client checks 2 pages, 842×595 then 595×842, and the file name; here also the filled text,
 * the footer on each page and the images (poppler).
 */

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

const TEMPLATE = `<html lang="de"><head><meta charset="UTF-8"><style>
  * { font-family: sans-serif; box-sizing: border-box; }
  @page landscape { size: A4 landscape; margin: 3cm 2cm; }
  @page portrait { size: A4 portrait; margin: 3cm 2cm; }
  .page { page-break-after: always; page-break-inside: avoid; page: portrait; }
  .page:first-child { page: landscape; }
  .thumb { width: 60px; height: 40px; }
</style></head><body>
<div class="page"><h2>STATICPAGE</h2><p>Fünf große Tiere.</p></div>
<div class="page"><h2>Details</h2><table>
  <#-- one row per entry of the data -->
  <#list custom.data as data>
  <tr><td><h3><a href="\${data.link}">\${data.title}</a></h3></td></tr>
  <tr><td>\${data.text}</td><td><img class="thumb" src="\${data.image}"/></td></tr>
  </#list>
</table></div>
</body></html>`;

const DATA = {
  data: [
    { title: 'Elefant', link: 'https://example.org/elefant?a=1&b=2', image: 'images/elefant.png', text: 'ROWTEXT-Elefant' },
    { title: 'Nashorn', link: 'https://example.org/nashorn', image: '/images/nashorn.png', text: 'ROWTEXT-Nashorn <script>' },
  ],
};

const HEADER = '<div style="font-size:10px;width:100%;padding:0 20mm"><h1 style="font-size:14pt">The big five</h1></div>';
const FOOTER = '<div style="font-size:10px;width:100%;text-align:right;padding:0 20mm"><p>${html.pageNumber} von ${html.totalPages}</p></div>';

describe('converter: HTML templates (useAsTemplate + templateData)', () => {
  const { server, session } = useTestServer({
    engines: true,
    env: { QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false' },
    yaml: 'network:\n  allowHosts: ["127.0.0.1"]\n',
  });
  let images: Listener;

  beforeAll(async () => {
    const png = await redPng();
    images = await listen('127.0.0.1', (url, _headers, reply) => (url.endsWith('.png') ? reply(200, 'image/png', png) : reply(404, 'text/plain', '')));
  });
  afterAll(async () => {
    await images?.close();
  });

  it('fills the template from the JSON data and prints it like the official client expects', async () => {
    const uploaded = await uploadFile(server.rest, session.token, Buffer.from(TEMPLATE), 'bigFive.html');
    const document = await convertOk(server.rest, session.token, uploaded.documentId, {
      converter: {
        html: {
          imageMode: 'file',
          preferCSSPageSize: true,
          useAsTemplate: true,
          downloadImages: true,
          baseURL: `${images.origin}/`,
          templateData: { source: 'value', value: b64(JSON.stringify(DATA)) },
        },
        page: { header: { value: b64(HEADER) }, footer: { value: b64(FOOTER) } },
      },
    });
    expect(document.fileName).toBe('bigFive');
    const file = await downloadToFile(server.rest, session.token, document.documentId);
    expect(pdfFacts(file).pages).toBe(2);
    const sizes = execFileSync('pdfinfo', ['-f', '1', '-l', '2', file], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => /^Page\s+\d+ size:/.test(l))
      .map((l) =>
        /([\d.]+) x ([\d.]+)/
          .exec(l)!
          .slice(1, 3)
          .map((v) => Math.round(Number(v))),
      );
    expect(sizes).toEqual([
      [842, 595],
      [595, 842],
    ]);
    const first = pageText(file, 1);
    const second = pageText(file, 2);
    expect(first).toContain('STATICPAGE');
    expect(first).toContain('1 von 2');
    expect(second).toContain('Elefant');
    expect(second).toContain('ROWTEXT-Nashorn <script>');
    expect(second).toContain('2 von 2');
    expect(second).not.toContain('#list');
    expect(
      execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
        .split('\n')
        .slice(2)
        .filter((l) => l.trim() !== '').length,
    ).toBe(2);
    expect(images.seen.map((s) => s.url).sort()).toEqual(['/images/elefant.png', '/images/nashorn.png']);
  });

  it('refuses a template error with -102 naming the line, and malformed data with -14; the document stays', async () => {
    const uploaded = await uploadFile(server.rest, session.token, Buffer.from('<p>ok</p>\n<p>${missing.value}</p>'), 'broken.html');
    const broken = await convert(server.rest, session.token, uploaded.documentId, { converter: { html: { useAsTemplate: true, templateData: { value: b64('{}') } } } });
    expect(broken.status).toBe(400);
    expect(broken.error?.errorCode).toBe(-102);
    expect(broken.error?.errorMessage).toContain('line 2');
    const data = await convert(server.rest, session.token, uploaded.documentId, { converter: { html: { useAsTemplate: true, templateData: { value: b64('{not json') } } } });
    expect(data.status).toBe(400);
    expect(data.error?.errorCode).toBe(-14);
    const uri = await convert(server.rest, session.token, uploaded.documentId, { converter: { html: { useAsTemplate: true, templateData: { source: 'uri', uri: 'http://example.org/data.json' } } } });
    expect(uri.error?.errorCode).toBe(-104);
    const file = await downloadToFile(server.rest, session.token, uploaded.documentId, 'html');
    expect(execFileSync('cat', [file], { encoding: 'utf8' })).toContain('${missing.value}');
  });

  it('without useAsTemplate the same document is printed as it is', async () => {
    const uploaded = await uploadFile(server.rest, session.token, Buffer.from('<p>LITERAL ${kept}</p>'), 'plain.html');
    const document = await convertOk(server.rest, session.token, uploaded.documentId, { converter: { html: { templateData: { value: b64('{"kept":"no"}') } } } });
    const file = await downloadToFile(server.rest, session.token, document.documentId);
    expect(pdfFacts(file).text).toContain('LITERAL ${kept}');
  });
});
