import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';

/**
 * Independent readers of PDFs for engine tests (qpdf, poppler-utils): what an engine wrote is judged
 * by these tools, never by the engine's own code.
 */

/** `qpdf --check`: throws unless qpdf finds no syntax or stream encoding error (exit 0). */
export function qpdfCheck(file: string): string {
  const result = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`qpdf --check ${file} exited ${result.status}: ${result.stdout}${result.stderr}`);
  return result.stdout;
}

type QValue = string | number | boolean | null | QValue[] | { [key: string]: QValue };
export type QDict = Record<string, QValue>;

/** qpdf's JSON (v2) view of every object: "obj:N G R" → value (streams: their dictionary). */
export function qpdfObjects(file: string): Record<string, QDict & { value?: QValue; stream?: { dict: QDict } }> {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })) as {
    qpdf: [unknown, Record<string, QDict & { value?: QValue; stream?: { dict: QDict } }>];
  };
  return json.qpdf[1];
}

/** The dictionary of an object (a stream's dictionary for streams), following one reference. */
export function objectDict(objects: ReturnType<typeof qpdfObjects>, ref: QValue | undefined): QDict | undefined {
  if (typeof ref !== 'string') return typeof ref === 'object' && ref !== null && !Array.isArray(ref) ? ref : undefined;
  const entry = objects[`obj:${ref}`];
  if (!entry) return undefined;
  const value = entry.value ?? entry.stream?.dict;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as QDict) : undefined;
}

/** The catalog's dictionary. */
export function catalogOf(objects: ReturnType<typeof qpdfObjects>): QDict {
  const trailer = objects['trailer']?.value as QDict;
  return objectDict(objects, trailer['/Root'])!;
}

/** Page object references in document order (qpdf --show-pages). */
export function pageRefs(file: string): string[] {
  const out = execFileSync('qpdf', ['--show-pages', file], { encoding: 'utf8' });
  return [...out.matchAll(/^page \d+: (\d+ \d+ R)$/gm)].map((m) => m[1]!);
}

/** `pdfinfo` with extra arguments, as text. */
export function pdfinfo(file: string, ...args: string[]): string {
  return execFileSync('pdfinfo', [...args, file], { encoding: 'utf8' });
}

/** One "Key: value" line of pdfinfo. */
export function infoField(info: string, key: string): string | undefined {
  return new RegExp(`^${key}:\\s+(.*)$`, 'm').exec(info)?.[1]?.trim();
}

/** The text of pages first..last (pdftotext, UTF-8). */
export function textOf(file: string, first?: number, last?: number): string {
  const range = [...(first === undefined ? [] : ['-f', String(first)]), ...(last === undefined ? [] : ['-l', String(last ?? first)])];
  return execFileSync('pdftotext', ['-q', '-enc', 'UTF-8', ...range, file, '-'], { encoding: 'utf8' });
}

/** `pdffonts`: one row per font, [name, type, embedded]. */
export function fontsOf(file: string): { name: string; type: string; embedded: boolean }[] {
  const rows = execFileSync('pdffonts', [file], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter((line) => line.trim() !== '');
  return rows.map((row) => {
    const m = /^(\S+)\s+(.+?)\s+(\S+)\s+(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/.exec(row);
    if (!m) throw new Error(`unexpected pdffonts row: ${row}`);
    return { name: m[1]!, type: m[2]!, embedded: m[4] === 'yes' };
  });
}

/** The words of a page with their boxes (points, origin top left of the page as displayed), from pdftotext -bbox. */
export function wordBoxes(file: string, page: number): { text: string; xMin: number; yMin: number; xMax: number; yMax: number }[] {
  const html = execFileSync('pdftotext', ['-bbox', '-f', String(page), '-l', String(page), file, '-'], { encoding: 'utf8' });
  return [...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
    xMin: Number(m[1]),
    yMin: Number(m[2]),
    xMax: Number(m[3]),
    yMax: Number(m[4]),
    text: m[5]!,
  }));
}

/** The pixel size of every image of the file, in pdfimages -list order. */
export function imageSizes(file: string): { width: number; height: number }[] {
  return execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter((l) => l.trim() !== '')
    .map((l) => l.trim().split(/\s+/))
    .map((cols) => ({ width: Number(cols[3]), height: Number(cols[4]) }));
}

/** pdfdetach -list: the attachment names poppler sees (document and page level), in its order. */
export function detachList(file: string): string[] {
  const text = execFileSync('pdfdetach', ['-list', '-enc', 'UTF-8', file], { encoding: 'utf8' });
  return text
    .split('\n')
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => line.replace(/^\s*\d+:\s*/, ''));
}

/** pdfdetach: the content of one attachment, by its number in -list order (from 1) or by its name. */
export function detachSave(file: string, which: number | string): Buffer {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-detach-'));
  try {
    const out = path.join(dir, 'saved');
    execFileSync('pdfdetach', [...(typeof which === 'number' ? ['-save', String(which)] : ['-savefile', which]), '-o', out, file]);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A temp directory removed by the returned function. */
export function scratchDir(prefix: string): { dir: string; file: (name: string) => string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `quire-${prefix}-`));
  return { dir, file: (name) => path.join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A PDF of pages of the given sizes whose page n carries the text "PAGE-n" at (50, height - 100), Helvetica 24 pt. */
export async function labelledPdf(file: string, sizes: readonly [number, number][] = [[595, 842]]): Promise<string> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  sizes.forEach(([width, height], i) => document.addPage([width, height]).drawText(`PAGE-${i + 1}`, { x: 50, y: height - 100, size: 24, font }));
  writeFileSync(file, await document.save());
  return file;
}

/** Converts PostScript to PDF with Ghostscript (an independent producer of test input). */
export function psToPdf(postscript: string, output: string): string {
  const source = `${output}.ps`;
  writeFileSync(source, postscript);
  execFileSync('gs', ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', '-sDEVICE=pdfwrite', `-sOutputFile=${output}`, source]);
  return output;
}
