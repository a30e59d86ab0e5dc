import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePage, mergeTiffs, nameFromTemplate, renderPages, toFlatText, toJson, toXml, zipFiles } from '../../../src/engines/poppler/index.js';
import { labelledPdf, scratchDir } from '../../helpers/pdf-tools.js';

/**
 * The result writers of the poppler engine on real page images and data: multi-page TIFFs (read by
 * tiffinfo), ZIP archives (read by unzip) and the structured XML/JSON/text (read by Python's parsers).
 */
const scratch = scratchDir('poppler-outputs');
const limits = () => ({ deadline: Date.now() + 60_000, toolTimeoutMs: 30_000 });
let pages: string[];

beforeAll(async () => {
  const pdf = await labelledPdf(scratch.file('three.pdf'), [
    [595, 842],
    [842, 595],
    [595, 842],
  ]);
  const rendered = await renderPages(pdf, 1, 3, { ...limits(), directory: scratch.file('pages'), width: 120, height: 170, dpi: 15, sideways: false, gray: true });
  pages = [];
  for (const { page, path } of rendered) {
    const tiff = scratch.file(`page-${page}.tif`);
    await encodePage(path, tiff, { format: 'tiff', compression: 'group4', quality: 80, blackAndWhite: 'middle' }, 15);
    pages.push(tiff);
  }
});
afterAll(() => scratch.remove());

describe('mergeTiffs', () => {
  it('joins single-page TIFFs into one multi-page TIFF whose directories tiffinfo reads, in order', async () => {
    const output = scratch.file('all.tif');
    await mergeTiffs(pages, output);
    const info = execFileSync('tiffinfo', [output], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const directories = [...info.matchAll(/=== TIFF directory (\d+) ===/g)].map((m) => Number(m[1]));
    expect(directories).toEqual([0, 1, 2]);
    expect([...info.matchAll(/Compression Scheme: (.*)/g)].map((m) => m[1])).toEqual(['CCITT Group 4', 'CCITT Group 4', 'CCITT Group 4']);
    expect([...info.matchAll(/Image Width: (\d+) Image Length: (\d+)/g)].map((m) => `${m[1]}x${m[2]}`)).toEqual(['120x170', '120x170', '120x170']);
  });

  it('refuses an empty list', async () => {
    await expect(mergeTiffs([], scratch.file('none.tif'))).rejects.toMatchObject({ kind: 'failed' });
  });
});

describe('zipFiles and nameFromTemplate', () => {
  it('writes the members under the names given, byte for byte, as unzip reads them', async () => {
    const a = scratch.file('a.txt');
    writeFileSync(a, 'first member ✓');
    const names = [1, 2].map((n) => nameFromTemplate('page[%d].tif', n));
    expect(names).toEqual([{ name: 'page[1].tif' }, { name: 'page[2].tif' }]);
    const output = scratch.file('result.zip');
    await zipFiles(
      [
        { name: 'text/a.txt', file: a },
        { name: 'page[1].tif', file: pages[0]! },
      ],
      output,
    );
    const listing = execFileSync('unzip', ['-Z1', output], { encoding: 'utf8' }).trim().split('\n');
    expect(listing).toEqual(['text/a.txt', 'page[1].tif']);
    expect(execFileSync('unzip', ['-p', output, 'text/a.txt'], { encoding: 'utf8' })).toBe('first member ✓');
    expect(execFileSync('unzip', ['-tq', output], { encoding: 'utf8' })).toMatch(/No errors detected/);
  });

  it('refuses templates that give no usable file name', () => {
    expect(nameFromTemplate('../%d', 1)).toHaveProperty('reason');
    expect(nameFromTemplate('  ', 1)).toHaveProperty('reason');
  });
});

describe('structured results', () => {
  const value = {
    page: [
      {
        number: 1,
        text: 'A & B <c> "quoted" ✓',
        word: [
          { x: 1.5, text: 'A' },
          { x: 3, text: '&' },
        ],
      },
      { number: 2, text: '', word: [] },
    ],
  };

  it('writes XML that another parser reads to the same data, text escaped', () => {
    const xml = toXml('document', value);
    const script = `import sys, json, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.buffer.read())
print(json.dumps([{'number': p.get('number'), 'text': p.text, 'words': [(w.get('x'), w.text) for w in p.findall('word')]} for p in root.findall('page')]))`;
    const parsed = JSON.parse(execFileSync('python3', ['-c', script], { input: xml, encoding: 'utf8' })) as unknown;
    expect(parsed).toEqual([
      {
        number: '1',
        text: 'A & B <c> "quoted" ✓',
        words: [
          ['1.5', 'A'],
          ['3', '&'],
        ],
      },
      { number: '2', text: null, words: [] },
    ]);
  });

  it('writes JSON that reads back to the same value, and text with every value', () => {
    expect(JSON.parse(toJson(value))).toEqual(value);
    const text = toFlatText(value);
    expect(text).toContain('A & B <c> "quoted" ✓');
    expect(text).toContain('1.5');
  });
});
