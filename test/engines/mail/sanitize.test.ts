import { DomUtils, parseDocument } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { MailEngineError } from '../../../src/engines/mail/errors.js';
import { sanitizeHtml, serializeHtml } from '../../../src/engines/mail/sanitize-html.js';
import { HOSTILE_HTML } from './payloads.js';

function clean(html: string): string {
  return serializeHtml(sanitizeHtml(html));
}

describe('sanitizeHtml', () => {
  it('removes scripts with their content', () => {
    expect(clean('<p>a</p><script>alert("x")</script><SCRIPT src="x.js"></SCRIPT><p>b</p>')).toBe('<p>a</p><p>b</p>');
  });

  it('removes event handlers and keeps the other attributes', () => {
    expect(clean('<p class="c" onclick="alert(1)" style="color: red" ONMOUSEOVER="x()">t</p>')).toBe('<p class="c" style="color: red">t</p>');
  });

  it('removes script URLs from any attribute, however they are disguised', () => {
    const html = [
      '<a href="javascript:alert(1)">1</a>',
      '<a href=" JaVaScRiPt:alert(1)">2</a>',
      '<a href="java&#x09;script:alert(1)">3</a>',
      '<a href="&#106;avascript:alert(1)">4</a>',
      '<img src="vbscript:x" alt="5">',
      '<table background="javascript:x"><tr><td>6</td></tr></table>',
      '<a href="https://example.com/javascript:ok">7</a>',
    ].join('');
    expect(clean(html)).toBe('<a>1</a><a>2</a><a>3</a><a>4</a><img alt="5"><table><tr><td>6</td></tr></table><a href="https://example.com/javascript:ok">7</a>');
  });

  it('removes frames, plug-ins and templates with their content', () => {
    expect(clean('a<iframe src="https://evil.example/">f</iframe><object data="x"><p>fallback</p></object><embed src="x"><applet>j</applet><template><p>t</p></template>b')).toBe('ab');
  });

  it('unwraps forms: the controls stay, nothing can be submitted', () => {
    expect(clean('<form action="https://evil.example/" method="post"><label>Name <input name="q"></label><button formaction="javascript:x()">Send</button></form>')).toBe(
      '<label>Name <input name="q"></label><button>Send</button>',
    );
  });

  it('removes meta, base, title, comments, doctype and non-stylesheet links; keeps style sheets', () => {
    const html =
      '<!DOCTYPE html><html><head><meta charset="iso-8859-1"><meta http-equiv="refresh" content="0;url=https://evil.example/">' +
      '<base href="https://evil.example/"><title>T</title><link rel="stylesheet" href="https://example.com/a.css"><link rel="prefetch" href="https://example.com/x">' +
      '<style>p { color: red; }</style></head><body><!--[if mso]><p>outlook only</p><![endif]--><p>x</p></body></html>';
    expect(clean(html)).toBe('<link rel="stylesheet" href="https://example.com/a.css"><style>p { color: red; }</style><div><p>x</p></div>');
  });

  it('turns the body into a div that keeps its style', () => {
    expect(clean('<body style="background: #eee" onload="x()" bgcolor="#ffffff"><p>x</p></body>')).toBe('<div style="background: #eee" bgcolor="#ffffff"><p>x</p></div>');
  });

  it('removes svg and math, whose parsing rules differ between parsers', () => {
    expect(clean('a<svg><circle r="1"/></svg><math><mi>x</mi></math>b')).toBe('ab');
  });

  it('keeps text escaped', () => {
    expect(clean('<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; Grüße 日本語</p>')).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; Grüße 日本語</p>');
    expect(clean('<p title="&quot;><script>">x</p>')).toBe('<p title="&quot;><script>">x</p>');
  });

  it('keeps external images and links for the Chromium job to allow or block', () => {
    expect(clean('<img src="https://images.example.com/a.png" alt="a"><a href="mailto:x@example.com">m</a>')).toBe(
      '<img src="https://images.example.com/a.png" alt="a"><a href="mailto:x@example.com">m</a>',
    );
  });

  it('flattens nesting deeper than Chromium builds, keeping the content', () => {
    const depth = 3000;
    const html = clean(`${'<div>'.repeat(depth)}<b>deep</b> text${'</div>'.repeat(depth)}`);
    expect(html).toContain('deep text');
    expect(html.match(/<div>/g)?.length).toBe(512);
  });

  it('refuses absurd nesting quickly instead of parsing it for minutes', () => {
    const started = performance.now();
    const error: unknown = (() => {
      try {
        return clean(`${'<div>'.repeat(200_000)}x`);
      } catch (e) {
        return e;
      }
    })();
    expect(performance.now() - started).toBeLessThan(2000);
    expect(error).toBeInstanceOf(MailEngineError);
    expect((error as MailEngineError).kind).toBe('unreadable');
    expect((error as MailEngineError).message).toBe('The HTML body nests elements more than 4096 levels deep.');
  });

  it.each(HOSTILE_HTML.map((html) => [html]))('leaves nothing that runs from %j', (html) => {
    // A second look with htmlparser2: no script element, no handler, no script URL survives.
    const output = parseDocument(clean(html));
    for (const element of DomUtils.findAll(() => true, output.children)) {
      expect(['script', 'iframe', 'object', 'embed', 'form', 'meta', 'base', 'svg', 'math', 'noscript', 'template']).not.toContain(element.name);
      for (const [name, value] of Object.entries(element.attribs)) {
        expect(name.startsWith('on'), `${element.name}[${name}]`).toBe(false);
        expect(value.replace(/[\s\u0000-\u001f]/g, '')).not.toMatch(/^(?:javascript|vbscript):/i);
      }
    }
  });
});
