import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { PopplerError } from './errors.js';
import { runTool, type ToolLimits } from './tool.js';

/**
 * Text with pdftotext, in reading order, relative to the crop box (what viewers show). Both kinds of
 * output go to a scratch file first and are read only when they stay within `maxBytes`, so a
 * document with a huge amount of text fails cleanly instead of exhausting memory.
 */

export interface TextRun extends ToolLimits {
  /** A scratch path for pdftotext's output. */
  output: string;
  /** Bound of pdftotext's output that is read into memory. */
  maxBytes: number;
}

/** The plain text of pages first..last, one string per page (pdftotext ends each page with a form feed). */
export async function pageTexts(file: string, first: number, last: number, options: TextRun): Promise<string[]> {
  await runTool('pdftotext', ['-q', '-enc', 'UTF-8', '-eol', 'unix', '-cropbox', '-f', String(first), '-l', String(last), file, options.output], options);
  await requireWithin(options.output, options.maxBytes);
  const parts = (await readFile(options.output, 'utf8')).split('\f');
  const count = last - first + 1;
  return Array.from({ length: count }, (_, i) => parts[i] ?? '');
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LayoutWord extends Box {
  text: string;
}

export interface LayoutLine extends Box {
  words: LayoutWord[];
}

/** pdftotext's "block": a run of lines it takes for one paragraph. */
export interface LayoutBlock extends Box {
  lines: LayoutLine[];
}

export interface LayoutPage {
  blocks: LayoutBlock[];
}

/**
 * Words, lines and blocks with their boxes (`pdftotext -bbox-layout`): points, origin at the
 * top-left corner of the page as shown (crop box, rotated), y downwards. One entry per page of
 * first..last, in reading order (pdftotext's flows, then blocks).
 */
export async function pageLayouts(file: string, first: number, last: number, options: TextRun): Promise<LayoutPage[]> {
  await runTool('pdftotext', ['-q', '-bbox-layout', '-enc', 'UTF-8', '-cropbox', '-f', String(first), '-l', String(last), file, options.output], options);
  await requireWithin(options.output, options.maxBytes);
  const pages = await parseBboxLayout(options.output);
  const count = last - first + 1;
  return Array.from({ length: count }, (_, i) => pages[i] ?? { blocks: [] });
}

/**
 * Reads the XHTML of -bbox-layout line by line. poppler writes one element per line (`<page>`,
 * `<block …>`, `<line …>`, `<word …>text</word>`), escaping the text as XML; a document title in
 * the head cannot disturb this, because only lines inside `<doc>` are considered.
 */
export async function parseBboxLayout(path: string): Promise<LayoutPage[]> {
  const pages: LayoutPage[] = [];
  let page: LayoutPage | undefined;
  let block: LayoutBlock | undefined;
  let line: LayoutLine | undefined;
  let inDoc = false;
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const raw of lines) {
    const text = raw.trim();
    if (!inDoc) {
      if (text === '<doc>') inDoc = true;
      continue;
    }
    if (text === '</doc>') break;
    if (text.startsWith('<page ')) {
      page = { blocks: [] };
      pages.push(page);
    } else if (text.startsWith('<block ')) {
      block = { ...boxOf(text), lines: [] };
      page?.blocks.push(block);
    } else if (text.startsWith('<line ')) {
      line = { ...boxOf(text), words: [] };
      block?.lines.push(line);
    } else if (text.startsWith('<word ')) {
      const close = text.lastIndexOf('</word>');
      const start = text.indexOf('>');
      if (close < 0 || start < 0 || start > close) continue;
      line?.words.push({ ...boxOf(text.slice(0, start)), text: decodeXml(text.slice(start + 1, close)) });
    }
  }
  return pages;
}

/** poppler writes the four attributes in this order on every block, line and word. */
const BOX = /xMin="(-?[\d.]+)" yMin="(-?[\d.]+)" xMax="(-?[\d.]+)" yMax="(-?[\d.]+)"/;

function boxOf(tag: string): Box {
  const m = BOX.exec(tag);
  if (!m) return { x: 0, y: 0, width: 0, height: 0 };
  const xMin = Number(m[1]);
  const yMin = Number(m[2]);
  return { x: round3(xMin), y: round3(yMin), width: round3(Number(m[3]) - xMin), height: round3(Number(m[4]) - yMin) };
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) return safeCodePoint(Number.parseInt(name.slice(2), 16)) ?? whole;
    if (name.startsWith('#')) return safeCodePoint(Number.parseInt(name.slice(1), 10)) ?? whole;
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function safeCodePoint(code: number): string | undefined {
  return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

async function requireWithin(path: string, maxBytes: number): Promise<void> {
  const { size } = await stat(path);
  if (size > maxBytes) {
    throw new PopplerError('tooLarge', `The extracted text is ${size} bytes, more than the ${maxBytes} bytes this server processes in one call; select fewer pages.`);
  }
}
