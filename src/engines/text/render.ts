import { htmlDocument } from './document.js';
import { escapeHtml } from './escape.js';
import { DEFAULT_FONT_STACK, resolveTextOptions } from './options.js';
import type { ResolvedTextOptions, TextRenderOptions, WordBreak } from './options.js';

export interface TextToHtmlOptions extends TextRenderOptions {
  /** The document title (Chromium writes it into the PDF's metadata), e.g. the file name. */
  title?: string;
}

/** Escaped text in one block element, and the CSS that lays it out. */
export interface TextBlock {
  css: string;
  html: string;
}

/** Nothing outside the page: the document is self-contained and runs no script. */
const TEXT_CSP = "default-src 'none'; style-src 'unsafe-inline'";

const WRAPPING: Record<WordBreak, string> = {
  auto: 'white-space: pre-wrap; overflow-wrap: anywhere;',
  // `clip` cuts what overflows without making a scroll container, which Chromium would not split across pages.
  none: 'white-space: pre; overflow-x: clip;',
  word: 'white-space: pre-wrap; overflow-wrap: normal; overflow-x: clip;',
  all: 'white-space: pre-wrap; word-break: break-all;',
};

/** Renders plain text as a complete HTML document; throws `invalidOption` for a bad option. */
export function textToHtml(text: string, options: TextToHtmlOptions = {}): string {
  const { title, ...renderOptions } = options;
  const block = renderTextBlock(text, renderOptions);
  return htmlDocument({ title: title ?? '', css: `body { margin: 0; }\n${block.css}`, body: block.html, contentSecurityPolicy: TEXT_CSP });
}

/**
 * The text as one <div> (not <pre>: its parser drops a leading newline) with `white-space` doing the
 * layout. One string replace per pass, so a 10 MB file costs a few string copies, not a DOM per line.
 */
export function renderTextBlock(text: string, options?: TextRenderOptions): TextBlock {
  const resolved = resolveTextOptions(options);
  const escaped = escapeHtml(text);
  const html = resolved.lineNumbers ? `<div class="quire-text quire-numbered">${numberedLines(escaped)}</div>` : `<div class="quire-text">${escaped}</div>`;
  return { css: textCss(resolved), html };
}

/**
 * One block <span> per line, numbered by a CSS counter in its ::before, which selection and copying
 * skip. Each line keeps its newline so that an empty line still has a line's height; the file's final
 * newline ends the last line rather than opening a numbered empty one.
 */
function numberedLines(escaped: string): string {
  const body = escaped.endsWith('\n') ? escaped.slice(0, -1) : escaped;
  return `<span>${body.replace(/\n/g, '\n</span><span>')}\n</span>`;
}

function textCss(options: ResolvedTextOptions): string {
  const family = options.fontFamily === '' ? DEFAULT_FONT_STACK : `${options.fontFamily}, ${DEFAULT_FONT_STACK}`;
  return (
    `.quire-text { margin: 0; font-family: ${family}; font-size: ${options.fontSize}; ` +
    `line-height: ${options.lineHeight}; color: ${options.color}; tab-size: 8; ${WRAPPING[options.wordBreak]} }\n` +
    '.quire-numbered { counter-reset: line; }\n' +
    '.quire-numbered > span { display: block; position: relative; padding-left: 7ch; }\n' +
    '.quire-numbered > span::before { counter-increment: line; content: counter(line); position: absolute; left: 0; ' +
    'width: 6ch; text-align: right; color: #808080; user-select: none; }\n'
  );
}
