import { describe, expect, it } from 'vitest';
import { HtmlEngineError } from '../../../src/engines/chromium/errors.js';
import { decodeHtml, withBaseUrl } from '../../../src/engines/chromium/html-input.js';

describe('withBaseUrl', () => {
  const base = '<base href="https://example.com/a/">';

  it('goes first into the head', () => {
    expect(withBaseUrl('<!doctype html><html lang="de"><head><link href="x.css"></head></html>', 'https://example.com/a/')).toBe(
      `<!doctype html><html lang="de"><head>${base}<link href="x.css"></head></html>`,
    );
  });

  it('goes after <html>, after the doctype, or first, when there is no head', () => {
    expect(withBaseUrl('<html><p>x</p></html>', 'https://example.com/a/')).toBe(`<html>${base}<p>x</p></html>`);
    expect(withBaseUrl('<!DOCTYPE html><p>x</p>', 'https://example.com/a/')).toBe(`<!DOCTYPE html>${base}<p>x</p>`);
    expect(withBaseUrl('<p>x</p>', 'https://example.com/a/')).toBe(`${base}<p>x</p>`);
  });

  it('does not take <header> for <head>', () => {
    expect(withBaseUrl('<header>h</header>', 'https://example.com/a/')).toBe(`${base}<header>h</header>`);
  });

  it('escapes the URL for the attribute', () => {
    expect(withBaseUrl('<p>x</p>', 'https://example.com/?a=1&b="2"')).toBe('<base href="https://example.com/?a=1&amp;b=%222%22"><p>x</p>');
  });

  it('refuses relative URLs', () => {
    expect(() => withBaseUrl('<p>x</p>', '/images/')).toThrow(HtmlEngineError);
  });
});

describe('decodeHtml', () => {
  it('follows a byte order mark and drops it', () => {
    expect(decodeHtml(Buffer.from('\ufeffGrüße', 'utf8'))).toBe('Grüße');
    expect(decodeHtml(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Grüße', 'utf16le')]))).toBe('Grüße');
    expect(decodeHtml(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('Grüße', 'utf16le').swap16()]))).toBe('Grüße');
  });

  it('follows <meta charset> and <meta http-equiv> declarations', () => {
    expect(decodeHtml(Buffer.from('<meta charset="iso-8859-15"><p>\xa4</p>', 'latin1'))).toBe('<meta charset="iso-8859-15"><p>€</p>');
    expect(decodeHtml(Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252"><p>\x80</p>', 'latin1'))).toContain('<p>€</p>');
  });

  it('treats a declared UTF-16 without BOM as UTF-8, and ignores unknown labels', () => {
    expect(decodeHtml(Buffer.from('<meta charset="utf-16"><p>Grüße</p>', 'utf8'))).toContain('Grüße');
    expect(decodeHtml(Buffer.from('<meta charset="no-such-charset"><p>Grüße</p>', 'utf8'))).toContain('Grüße');
  });

  it('falls back to windows-1252 when the bytes are not UTF-8', () => {
    expect(decodeHtml(Buffer.from('<p>Gr\xfc\xdfe \x80</p>', 'latin1'))).toBe('<p>Grüße €</p>');
  });
});
