import { describe, expect, it } from 'vitest';
import { QuireError } from '../../../src/core/errors.js';
import { headerFooterTemplate, pageSetup } from '../../../src/operations/urlconverter/page-layout.js';

const page = (over: Record<string, unknown> = {}) => ({ width: 210, height: 297, left: 20, right: 20, top: 20, bottom: 20, metrics: 'mm' as const, ...over });
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('urlconverter page layout', () => {
  it('defaults to A4 with 20 mm margins', () => {
    expect(pageSetup(undefined)).toEqual({ width: 210, height: 297, marginTop: 20, marginRight: 20, marginBottom: 20, marginLeft: 20 });
  });

  it('converts the metrics to millimetres', () => {
    expect(pageSetup(page({ width: 8, height: 10, left: 1, right: 1, top: 1, bottom: 1, metrics: 'in' }))).toEqual({
      width: 203.2,
      height: 254,
      marginTop: 25.4,
      marginRight: 25.4,
      marginBottom: 25.4,
      marginLeft: 25.4,
    });
    expect(pageSetup(page({ width: 720, height: 720, left: 0, right: 0, top: 0, bottom: 0, metrics: 'pt' })).width).toBeCloseTo(254, 6);
  });

  it('refuses sizes and margins that leave no page', () => {
    for (const bad of [page({ width: 0 }), page({ height: -5 }), page({ left: -1 }), page({ left: 100, right: 110 }), page({ width: 6000 })]) {
      expect(() => pageSetup(bad)).toThrow(QuireError);
    }
  });

  const noFetch = async (): Promise<string> => {
    throw new Error('not fetched');
  };

  it('maps the webPDF placeholders onto Chromium template classes', async () => {
    const html = await headerFooterTemplate({ source: 'value', uri: '', value: b64('<p>${html.title}: ${html.pageNumber}/${html.totalPages} ${html.pageNumber}</p>') }, 'page.footer', noFetch);
    expect(html).toBe('<p><span class="title"></span>: <span class="pageNumber"></span>/<span class="totalPages"></span> <span class="pageNumber"></span></p>');
    expect(await headerFooterTemplate({ source: 'value', uri: '' }, 'page.header', noFetch)).toBeUndefined();
    expect(await headerFooterTemplate(undefined, 'page.header', noFetch)).toBeUndefined();
  });

  it('takes uri sources from fetchUri, placeholders mapped; refuses malformed Base64 (-14)', async () => {
    expect(await headerFooterTemplate({ source: 'uri', uri: ' http://example.com/h.html ' }, 'page.header', async (uri) => `<b>${uri}</b> \${html.pageNumber}`)).toBe(
      '<b>http://example.com/h.html</b> <span class="pageNumber"></span>',
    );
    await expect(headerFooterTemplate({ source: 'value', uri: '', value: '<p>not base64</p>' }, 'page.header', noFetch)).rejects.toThrow(/Base64/);
  });
});
