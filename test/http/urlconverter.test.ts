import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadToFile, pageText, pdfFacts, postWebService } from '../helpers/converter.js';
import { info, list } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { forwardProxy, listen, page, redPng, type Listener } from '../operations/urlconverter/site.js';
import { imageSizes } from '../helpers/pdf-tools.js';

/**
 * POST urlconverter against a site the test serves on 127.0.0.1, allowed by `network.allowHosts`
 * in this server's configuration; 127.0.0.2 stays internal (refused), and a listener there proves
 * that nothing reaches it.
 */

/** The left edge (points) of the first word on page 1, by pdftotext -bbox. */
function firstWordBox(file: string, word: string): { xMin: number; yMin: number } {
  const xhtml = execFileSync('pdftotext', ['-bbox', '-f', '1', '-l', '1', file, '-'], { encoding: 'utf8' });
  const match = new RegExp(`<word xMin="([\\d.]+)" yMin="([\\d.]+)"[^>]*>${word}</word>`).exec(xhtml);
  if (!match) throw new Error(`${word} not found in ${xhtml.slice(0, 500)}`);
  return { xMin: Number(match[1]), yMin: Number(match[2]) };
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('urlconverter: a local site allowed by network.allowHosts', () => {
  const { server, session } = useTestServer({
    engines: true,
    env: { QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false' },
    yaml: 'network:\n  allowHosts: ["127.0.0.1"]\nurlconverter:\n  timeout: 8\n  networkIdleTimeout: 2\n  maxRequests: 20\n  maxBytes: 2MB\n  maxPages: 5\n',
  });
  let site: Listener;
  let other: Listener;
  let secret: Listener;
  let png: Buffer;

  beforeAll(async () => {
    png = await redPng();
    secret = await listen('127.0.0.2', (_url, _headers, reply) => reply(200, 'text/plain', 'secret'));
    other = await listen('127.0.0.1', (_url, _headers, reply) => reply(200, 'text/html', page('Other origin', '<p>OTHERORIGIN</p>')));
    site = await listen('127.0.0.1', (url, headers, reply) => {
      const path = url.split('?')[0];
      if (path === '/') {
        reply(200, 'text/html', page('Quire Test Page', '<p>MARKERONE first page</p><img src="/red.png" width="60" height="40"><div style="break-before:page">MARKERTWO second page</div>'));
      } else if (path === '/red.png') reply(200, 'image/png', png);
      else if (path === '/auth') {
        if (headers.authorization === `Basic ${b64('alice:s3cret')}`) reply(200, 'text/html', page('Welcome', '<p>AUTHORISED</p>'));
        else reply(401, 'text/plain', 'no', { 'www-authenticate': 'Basic realm="t"' });
      } else if (path === '/echo') {
        reply(200, 'text/html', page('Echo', `<p>UA ${String(headers['user-agent'])}</p><p>XTEST ${String(headers['x-test'])}</p>`));
      } else if (path === '/to-internal') reply(302, 'text/plain', '', { location: `${secret.origin}/metadata` });
      else if (path === '/to-other') reply(302, 'text/plain', '', { location: `${other.origin}/landing` });
      else if (path === '/sub-internal')
        reply(200, 'text/html', page('Subresources', `<p>SUBPAGE</p><img src="${secret.origin}/pixel.png"><script>fetch("${secret.origin}/xhr").catch(()=>{})</script>`));
      else if (path === '/pages') {
        reply(200, 'text/html', page('Paged', [1, 2, 3].map((n) => `<div style="break-after:page">PAGEBODY${n}</div>`).join('')));
      } else if (path === '/footer.html') {
        reply(200, 'text/html', '<div style="font-size:10px">URIFOOT ${html.pageNumber}/${html.totalPages}</div>');
      } else if (path === '/tall') {
        reply(200, 'text/html', page('Tall', '<p>TALL</p><div style="height:20000px">long</div>'));
      } else if (path === '/many') {
        reply(200, 'text/html', page('Many', `<p>MANY</p>${Array.from({ length: 40 }, (_, i) => `<img src="/red.png?n=${i}">`).join('')}`));
      } else if (path === '/big') reply(200, 'text/html', page('Big', '<link rel="stylesheet" href="/big.css"><p>BIG</p>'));
      else if (path === '/big.css') reply(200, 'text/css', `/*${'x'.repeat(3 * 1024 * 1024)}*/ p { color: black }`);
      else if (path === '/hang') {
        // never answers
      } else if (path === '/missing') reply(404, 'text/html', page('Not here', '<p>nothing</p>'));
      else reply(404, 'text/plain', 'not found');
    });
  });
  afterAll(async () => {
    await Promise.all([site?.close(), other?.close(), secret?.close()]);
  });

  const call = (body: unknown, query = '') => postWebService(`${server.rest}/urlconverter${query}`, session.token, body);
  const ok = async (body: unknown, query = '') => {
    const outcome = await call(body, query);
    if (outcome.status !== 303) throw new Error(`urlconverter failed: ${outcome.status} ${JSON.stringify(outcome.error)}`);
    const id = /documents\/([0-9a-f]{32})\/info$/.exec(outcome.location ?? '')?.[1];
    if (!id) throw new Error(`unexpected location ${outcome.location}`);
    const document = await info(server.rest, session.token, id);
    return { document, file: await downloadToFile(server.rest, session.token, id) };
  };

  it('prints the page: marker text on page 1, the CSS page break gives page 2, the image is there, A4 with 20 mm margins, named after the title', async () => {
    const { document, file } = await ok({ urlconverter: { url: `${site.origin}/` } });
    expect(document.fileName).toBe('Quire Test Page');
    expect(document.fileExtension).toBe('pdf');
    expect(document.mimeType).toBe('application/pdf');
    const facts = pdfFacts(file);
    expect(facts.pages).toBe(2);
    // A4 = 595.3 × 841.9 pt; Chromium rounds the paper to whole CSS pixels.
    expect(Math.abs(facts.width - 595)).toBeLessThanOrEqual(1);
    expect(Math.abs(facts.height - 842)).toBeLessThanOrEqual(1);
    expect(pageText(file, 1)).toContain('MARKERONE');
    expect(pageText(file, 1)).not.toContain('MARKERTWO');
    expect(pageText(file, 2)).toContain('MARKERTWO');
    expect(imageSizes(file)).toContainEqual({ width: 60, height: 40 });
    // 20 mm = 56.7 pt: the text starts at the left and top margins.
    const box = firstWordBox(file, 'MARKERONE');
    expect(box.xMin).toBeGreaterThan(55);
    expect(box.xMin).toBeLessThan(60);
    expect(box.yMin).toBeGreaterThan(55);
    expect(box.yMin).toBeLessThan(80);
  });

  it('takes page size and margins in the given metrics (the official TS test: 150×200 mm, no margins)', async () => {
    const { file } = await ok({ urlconverter: { url: `${site.origin}/`, page: { width: 150, height: 200, top: 0, left: 0, right: 0, bottom: 0 } } });
    const facts = pdfFacts(file);
    // 150 × 200 mm = 425.2 × 566.9 pt; Chromium rounds the paper to whole CSS pixels.
    expect(Math.abs(facts.width - 425)).toBeLessThanOrEqual(1);
    expect(Math.abs(facts.height - 567)).toBeLessThanOrEqual(1);
    expect(firstWordBox(file, 'MARKERONE').xMin).toBeLessThan(5);
    const inches = await ok({ urlconverter: { url: `${site.origin}/`, page: { width: 5, height: 7, top: 1, left: 1, right: 1, bottom: 1, metrics: 'in' } } });
    const inchFacts = pdfFacts(inches.file);
    expect([inchFacts.width, inchFacts.height]).toEqual([360, 504]);
    expect(firstWordBox(inches.file, 'MARKERONE').xMin).toBeGreaterThan(70);
  });

  it('keeps history when asked', async () => {
    const { document } = await ok({ urlconverter: { url: `${site.origin}/` } }, '?history=true');
    expect(document.historyId).toBeGreaterThanOrEqual(1);
    const history = await fetch(`${server.rest}/documents/${document.documentId}/history`, { headers: { authorization: `Bearer ${session.token}` } });
    expect(history.status).toBe(200);
  });

  it('prints header and footer with the page number, page count and title on every page', async () => {
    const { file } = await ok({
      urlconverter: {
        url: `${site.origin}/pages`,
        page: {
          header: { value: b64('<div style="font-size:10px">HEAD ${html.title}</div>') },
          footer: { value: b64('<div style="font-size:10px">FOOT ${html.pageNumber} OF ${html.totalPages}</div>') },
        },
      },
    });
    const facts = pdfFacts(file);
    expect(facts.pages).toBe(3);
    for (const n of [1, 2, 3]) {
      const text = pageText(file, n);
      expect(text).toContain(`PAGEBODY${n}`);
      expect(text).toContain('HEAD Paged');
      expect(text).toContain(`FOOT ${n} OF 3`);
    }
  });

  it('takes a header or footer from a uri under the same policy', async () => {
    const { file } = await ok({ urlconverter: { url: `${site.origin}/pages`, page: { footer: { source: 'uri', uri: `${site.origin}/footer.html` } } } });
    for (const n of [1, 2, 3]) expect(pageText(file, n)).toContain(`URIFOOT ${n}/3`);
    secret.seen.length = 0;
    const refused = await call({ urlconverter: { url: `${site.origin}/pages`, page: { header: { source: 'uri', uri: `${secret.origin}/header.html` } } } });
    expect(refused.error?.errorCode).toBe(-160);
    expect(refused.error?.errorMessage).toContain('page.header.uri');
    expect(secret.seen).toEqual([]);
    const missing = await call({ urlconverter: { url: `${site.origin}/pages`, page: { header: { source: 'uri', uri: `${site.origin}/nothing.html` } } } });
    expect(missing.error?.errorCode).toBe(-161);
  });

  it('sends basicAuth to the page, and the page is refused without it', async () => {
    const { file } = await ok({ urlconverter: { url: `${site.origin}/auth`, basicAuth: { userName: 'alice', password: 's3cret' } } });
    expect(pdfFacts(file).text).toContain('AUTHORISED');
    const without = await call({ urlconverter: { url: `${site.origin}/auth` } });
    expect(without.status).toBe(400);
    expect(without.error?.errorCode).toBe(-161);
    expect(without.error?.errorMessage).toMatch(/AUTH/);
  });

  it('sends basicAuth and the extra headers to the target origin only, not across a redirect to another origin', async () => {
    other.seen.length = 0;
    await ok({
      urlconverter: { url: `${site.origin}/to-other`, basicAuth: { userName: 'alice', password: 's3cret' } },
      settings: { http: { headers: { header: [{ name: 'X-Test', value: 'hello' }] } } },
    });
    expect(other.seen.length).toBeGreaterThan(0);
    for (const request of other.seen) {
      expect(request.headers.authorization).toBeUndefined();
      expect(request.headers['x-test']).toBeUndefined();
    }
  });

  it('sends custom headers and the user agent of settings.http', async () => {
    const { file } = await ok({
      urlconverter: { url: `${site.origin}/echo` },
      settings: { http: { userAgent: 'QuireTestAgent/1.0', headers: { header: [{ name: 'X-Test', value: 'hello-header' }] } } },
    });
    const text = pdfFacts(file).text;
    expect(text).toContain('QuireTestAgent/1.0');
    expect(text).toContain('hello-header');
  });

  it('refuses settings.http members it cannot honour with -104 naming the member', async () => {
    const ssl = await call({ urlconverter: { url: `${site.origin}/` }, settings: { http: { ssl: { protocols: { protocol: ['TLSv1.3'] } } } } });
    expect(ssl.error?.errorCode).toBe(-104);
    expect(ssl.error?.errorMessage).toContain('settings.http.ssl.protocols');
    const connect = await call({ urlconverter: { url: `${site.origin}/` }, settings: { http: { timeout: { connect: 500 } } } });
    expect(connect.error?.errorCode).toBe(-104);
    expect(connect.error?.errorMessage).toContain('settings.http.timeout.connect');
    const badHeader = await call({ urlconverter: { url: `${site.origin}/` }, settings: { http: { headers: { header: [{ name: 'Host', value: 'x' }] } } } });
    expect(badHeader.error?.errorCode).toBe(-14);
  });

  it('routes the page through urlconverter.proxy with its credentials; the proxy must pass the policy, and so must every target behind it', async () => {
    const upstream = await forwardProxy('pu:pp');
    try {
      const { file } = await ok({ urlconverter: { url: `${site.origin}/`, proxy: { address: '127.0.0.1', port: upstream.port, userName: 'pu', password: 'pp' } } });
      expect(pdfFacts(file).text).toContain('MARKERONE');
      expect(upstream.seen.map((s) => s.url)).toContain(`${site.origin}/`);
      expect(upstream.seen.map((s) => s.url)).toContain(`${site.origin}/red.png`);
      expect(upstream.seen.every((s) => s.headers['proxy-authorization'] === `Basic ${b64('pu:pp')}`)).toBe(true);

      // A redirect to an internal address is refused before the proxy is asked for it.
      upstream.seen.length = 0;
      secret.seen.length = 0;
      const redirected = await call({ urlconverter: { url: `${site.origin}/to-internal`, proxy: { address: '127.0.0.1', port: upstream.port, userName: 'pu', password: 'pp' } } });
      expect(redirected.error?.errorCode).toBe(-160);
      expect(upstream.seen.map((s) => s.url)).toEqual([`${site.origin}/to-internal`]);
      expect(secret.seen).toEqual([]);
    } finally {
      await upstream.close();
    }
    const internalProxy = await call({ urlconverter: { url: `${site.origin}/`, proxy: { address: '127.0.0.2', port: 3128 } } });
    expect(internalProxy.error?.errorCode).toBe(-160);
    expect(internalProxy.error?.errorMessage).toContain('proxy 127.0.0.2');
    const noPort = await call({ urlconverter: { url: `${site.origin}/`, proxy: { address: '127.0.0.1', port: 0 } } });
    expect(noPort.error?.errorCode).toBe(-14);
  });

  it('stops a redirect from the allowed site to an internal address after the first hop: 400, nothing stored, the internal listener sees nothing', async () => {
    secret.seen.length = 0;
    const before = (await list(server.rest, session.token)).length;
    const outcome = await call({ urlconverter: { url: `${site.origin}/to-internal` } });
    expect(outcome.status).toBe(400);
    expect(outcome.contentType).toBe('application/json');
    expect(outcome.error?.errorCode).toBe(-160);
    expect(outcome.error?.errorMessage).toContain('127.0.0.2');
    expect(outcome.error?.errorMessage).toContain('loopback');
    expect(secret.seen).toEqual([]);
    expect((await list(server.rest, session.token)).length).toBe(before);
  });

  it('with settings.http.followRedirect false, a redirect fails the call', async () => {
    const outcome = await call({ urlconverter: { url: `${site.origin}/to-other` }, settings: { http: { followRedirect: false } } });
    expect(outcome.error?.errorCode).toBe(-160);
    expect(outcome.error?.errorMessage).toContain('followRedirect');
  });

  it('blocks subresources and fetches to refused addresses; the page itself is printed', async () => {
    secret.seen.length = 0;
    const { file } = await ok({ urlconverter: { url: `${site.origin}/sub-internal` } });
    expect(pdfFacts(file).text).toContain('SUBPAGE');
    expect(secret.seen).toEqual([]);
  });

  it('fails a page past urlconverter.maxRequests, maxBytes or maxPages with -162 naming the limit; nothing is stored', async () => {
    const before = (await list(server.rest, session.token)).length;
    const many = await call({ urlconverter: { url: `${site.origin}/many` } });
    expect(many.status).toBe(400);
    expect(many.error?.errorCode).toBe(-162);
    expect(many.error?.errorMessage).toContain('urlconverter.maxRequests');
    const big = await call({ urlconverter: { url: `${site.origin}/big` } });
    expect(big.status).toBe(400);
    expect(big.error?.errorCode).toBe(-162);
    expect(big.error?.errorMessage).toContain('urlconverter.maxBytes');
    const tall = await call({ urlconverter: { url: `${site.origin}/tall` } });
    expect(tall.status).toBe(400);
    expect(tall.error?.errorCode).toBe(-162);
    expect(tall.error?.errorMessage).toContain('urlconverter.maxPages');
    expect((await list(server.rest, session.token)).length).toBe(before);
  });

  it('answers an HTTP error status of the page with -161', async () => {
    const outcome = await call({ urlconverter: { url: `${site.origin}/missing` } });
    expect(outcome.error?.errorCode).toBe(-161);
    expect(outcome.error?.errorMessage).toContain('404');
  });

  it('a page that never loads fails with -93 within urlconverter.timeout, and the next call works (the browser was replaced)', async () => {
    const outcome = await call({ urlconverter: { url: `${site.origin}/hang` } });
    expect(outcome.status).toBe(400);
    expect(outcome.error?.errorCode).toBe(-93);
    const { file } = await ok({ urlconverter: { url: `${site.origin}/` } });
    expect(pdfFacts(file).text).toContain('MARKERONE');
  });
});
