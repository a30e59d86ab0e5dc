import { escapeAttribute, escapeText } from './structured.js';
import type { LayoutWord } from './text.js';

/**
 * The HTML of `transcribe`: one self-contained file. Each page is a box of its size in pixels holding
 * the page drawn as inline SVG (vector graphics, glyph outlines and embedded images, exactly as the
 * PDF shows them) under a transparent text layer (the words at their positions, so the page can be
 * searched, selected and read by assistive technology) and the page's links.
 */

export interface HtmlPage {
  /** Page number in the PDF. */
  page: number;
  /** Formatted SVG of the page (ids prefixed per page), without XML declaration. */
  svg: string;
  /** Size in pixels. */
  width: number;
  height: number;
  /** Pixels per point. */
  scale: number;
  words: LayoutWord[];
  links: { x: number; y: number; width: number; height: number; href: string }[];
}

/** The document head and the start of the body (written first; the pages follow one by one). */
export function htmlHead(title: string, options: { reportXml?: string } = {}): string {
  const out: string[] = [];
  out.push('<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n');
  out.push(`<title>${escapeText(title)}</title>\n`);
  out.push('<meta name="generator" content="Quire transcribe">\n');
  if (options.reportXml !== undefined) {
    // successReport "linked": the report travels with the document, as a data URL the page links to.
    out.push(`<link rel="alternate" type="application/xml" title="Transcription report" href="data:application/xml;base64,${Buffer.from(options.reportXml, 'utf8').toString('base64')}">\n`);
  }
  out.push('<style>\n');
  out.push('body{margin:0;padding:8px 0;background:#e6e6e6}\n');
  out.push('.page{position:relative;margin:8px auto;background:#fff;box-shadow:0 0 4px rgba(0,0,0,.35);overflow:hidden}\n');
  out.push('.page>svg{position:absolute;left:0;top:0;display:block}\n');
  out.push('.text{position:absolute;left:0;top:0;right:0;bottom:0}\n');
  out.push('.text span{position:absolute;white-space:pre;color:transparent;line-height:1;font-family:sans-serif}\n');
  out.push('.text span::selection{background:rgba(0,90,255,.3)}\n');
  out.push('.page a{position:absolute;display:block}\n');
  out.push('</style>\n</head>\n<body>\n');
  return out.join('');
}

/** One page: its box, the SVG drawing, the transparent text layer and the links. */
export function htmlPage(page: HtmlPage): string {
  const out: string[] = [];
  out.push(`<div class="page" id="page-${page.page}" style="width:${page.width}px;height:${page.height}px">\n`);
  out.push(page.svg.trim());
  out.push('\n<div class="text">');
  for (const word of page.words) {
    const size = Math.max(1, word.height * page.scale);
    out.push(`<span style="left:${px(word.x * page.scale)};top:${px(word.y * page.scale)};font-size:${px(size)}">${escapeText(word.text)}</span> `);
  }
  out.push('</div>\n');
  for (const link of page.links) {
    out.push(
      `<a href="${escapeAttribute(link.href)}" style="left:${px(link.x * page.scale)};top:${px(link.y * page.scale)};width:${px(link.width * page.scale)};height:${px(link.height * page.scale)}"></a>\n`,
    );
  }
  out.push('</div>\n');
  return out.join('');
}

export const HTML_TAIL = '</body>\n</html>\n';

function px(value: number): string {
  return `${Math.round(value * 100) / 100}px`;
}

export interface ReportMessage {
  level: 'warning' | 'missingContent' | 'error';
  /** 0: the document as a whole. */
  page: number;
  message: string;
}

/** The XML report of a transcription (successReport / errorReport). */
export function buildReport(report: { status: 'success' | 'failure'; format: string; failureLevel: string; pages: readonly number[]; messages: readonly ReportMessage[] }): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  out.push(`<transcription format="${escapeAttribute(report.format)}" status="${report.status}" failureLevel="${escapeAttribute(report.failureLevel)}" pages="${report.pages.join(',')}">\n`);
  for (const m of report.messages) {
    out.push(`  <message level="${m.level}" page="${m.page}">${escapeText(m.message)}</message>\n`);
  }
  out.push('</transcription>\n');
  return out.join('');
}
