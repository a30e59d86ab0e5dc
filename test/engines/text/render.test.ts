import { describe, expect, it } from 'vitest';
import { TextEngineError } from '../../../src/engines/text/errors.js';
import { resolveTextOptions } from '../../../src/engines/text/options.js';
import type { TextRenderOptions } from '../../../src/engines/text/options.js';
import { renderTextBlock, textToHtml } from '../../../src/engines/text/render.js';

/** The markup between <body> and </body>. */
function body(html: string): string {
  return html.slice(html.indexOf('<body>') + 6, html.lastIndexOf('</body>'));
}

function css(html: string): string {
  return html.slice(html.indexOf('<style>') + 7, html.indexOf('</style>'));
}

function invalidOption(options: TextRenderOptions): TextEngineError {
  try {
    textToHtml('x', options);
  } catch (error) {
    expect(error).toBeInstanceOf(TextEngineError);
    expect((error as TextEngineError).kind).toBe('invalidOption');
    return error as TextEngineError;
  }
  throw new Error('expected an invalidOption error');
}

describe('textToHtml', () => {
  it('writes a complete UTF-8 document with the text escaped', () => {
    const html = textToHtml('a < b && c > d\n<script>alert("x")</script>\n', { title: '<report>.txt' });
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain('<title>&lt;report&gt;.txt</title>');
    expect(body(html)).toBe('<div class="quire-text">a &lt; b &amp;&amp; c &gt; d\n&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;\n</div>');
    expect(html).not.toContain('<script');
  });

  it('keeps umlauts and CJK as they are, in a font stack that has glyphs for them', () => {
    const html = textToHtml('Grüße 日本語 中文');
    expect(body(html)).toContain('Grüße 日本語 中文');
    expect(css(html)).toContain('font-family: "DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono CJK JP", monospace;');
  });

  it('does not run or fetch anything: a restrictive Content-Security-Policy', () => {
    expect(textToHtml('x')).toContain('<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;">');
  });

  it('wraps a 5,000-character line without spaces instead of cutting it', () => {
    const line = 'x'.repeat(5000);
    const html = textToHtml(`${line}\nnext\n`);
    expect(body(html)).toContain(line);
    expect(css(html)).toMatch(/\.quire-text \{[^}]*white-space: pre-wrap;[^}]*overflow-wrap: anywhere;/);
    expect(css(html)).toContain('tab-size: 8;');
  });

  it('maps wordBreak onto CSS', () => {
    expect(css(textToHtml('x', { wordBreak: 'none' }))).toContain('white-space: pre; overflow-x: clip;');
    expect(css(textToHtml('x', { wordBreak: 'word' }))).toContain('white-space: pre-wrap; overflow-wrap: normal; overflow-x: clip;');
    expect(css(textToHtml('x', { wordBreak: 'all' }))).toContain('white-space: pre-wrap; word-break: break-all;');
    expect(css(textToHtml('x', { wordBreak: 'auto' }))).toContain('white-space: pre-wrap; overflow-wrap: anywhere;');
  });

  it('applies the defaults and the given options', () => {
    expect(css(textToHtml('x'))).toContain('font-size: 10px; line-height: 12px; color: #000000;');
    const styled = css(textToHtml('x', { fontFamily: '"Courier New", Courier', fontSize: '12pt', lineHeight: '1.2', color: 'navy' }));
    expect(styled).toContain('font-family: "Courier New", Courier, "DejaVu Sans Mono"');
    expect(styled).toContain('font-size: 12pt; line-height: 1.2; color: navy;');
  });

  it('numbers lines with a CSS counter, keeping empty lines and not numbering past the final newline', () => {
    const html = textToHtml('one\n\nthree\n', { lineNumbers: true });
    expect(body(html)).toBe('<div class="quire-text quire-numbered"><span>one\n</span><span>\n</span><span>three\n</span></div>');
    expect(css(html)).toContain('counter-increment: line; content: counter(line);');
    expect(css(html)).toContain('user-select: none;');
    expect(body(textToHtml('no final newline', { lineNumbers: true }))).toContain('<span>no final newline\n</span></div>');
  });

  it('renders 10 MB of text quickly', () => {
    const line = 'Grüße <b> & 日本語 — the quick brown fox jumps over the lazy dog\t0123456789\n';
    const text = line.repeat(Math.ceil((10 * 1024 * 1024) / Buffer.byteLength(line)));
    for (const lineNumbers of [false, true]) {
      const started = performance.now();
      const html = textToHtml(text, { lineNumbers });
      expect(performance.now() - started).toBeLessThan(5000);
      expect(html.length).toBeGreaterThan(text.length);
    }
  });
});

describe('option validation', () => {
  it('rejects CSS injection through fontSize, naming the option', () => {
    expect(invalidOption({ fontSize: '10px;}body{display:none' }).message).toMatch(/^fontSize: /);
  });

  it.each<[keyof TextRenderOptions, unknown]>([
    ['fontSize', '10px}'],
    ['fontSize', 'calc(1px)'],
    ['fontSize', '-3px'],
    ['lineHeight', '12px; color: red'],
    ['lineHeight', ''],
    ['color', 'red;background:url(x)'],
    ['color', '#12345'],
    ['color', 'rgb(0,0,0)'],
    ['fontFamily', 'Arial; } body { display: none'],
    ['fontFamily', 'a</style><script>alert(1)</script>'],
    ['fontFamily', '"Unbalanced'],
    ['fontFamily', '"mixed\''],
    ['fontFamily', 'Arial,,Helvetica'],
    ['fontFamily', 'x\\"'],
    ['wordBreak', 'sometimes'],
    ['lineNumbers', 'yes'],
  ])('rejects %s = %j', (name, value) => {
    expect(invalidOption({ [name]: value } as TextRenderOptions).message.startsWith(`${name}: `)).toBe(true);
  });

  it('accepts the usual values', () => {
    for (const options of [
      { fontSize: '10px', lineHeight: '12px' },
      { fontSize: '12pt', lineHeight: '1.2em' },
      { fontSize: '1.2em', lineHeight: '1.2' },
      { fontSize: '100%', lineHeight: '150%' },
      { color: '#abc' },
      { color: '#A0B1C2' },
      { color: '#a0b1c280' },
      { color: 'DarkSlateGray' },
      { fontFamily: 'monospace' },
      { fontFamily: '"Noto Sans Mono CJK JP", \'DejaVu Sans Mono\', monospace' },
      { fontFamily: 'MS ゴシック' },
    ] satisfies TextRenderOptions[]) {
      expect(() => textToHtml('x', options)).not.toThrow();
    }
  });

  it('reads a bare font size as pixels and ignores undefined options', () => {
    expect(resolveTextOptions({ fontSize: '12', color: undefined })).toMatchObject({ fontSize: '12px', color: '#000000' });
  });
});

describe('renderTextBlock', () => {
  it('gives the block and its CSS for embedding in another document', () => {
    const block = renderTextBlock('a\tb', { lineNumbers: false });
    expect(block.html).toBe('<div class="quire-text">a\tb</div>');
    expect(block.css).toContain('.quire-text {');
  });
});
