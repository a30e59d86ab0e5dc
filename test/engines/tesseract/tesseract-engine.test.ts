import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolError } from '../../../src/engines/pool/pool-errors.js';
import { TesseractEngine } from '../../../src/engines/tesseract/tesseract-engine.js';
import { scratchDir } from '../../helpers/pdf-tools.js';
import { scanPage, textPdf } from '../../operations/ocr/scans.js';

/**
 * The Tesseract pool on scans the test renders (pdf-lib text → pdftoppm at 300 dpi); results read
 * with pdftotext and as Tesseract's files. The engine's limits: a page past its time limit is killed
 * (timeout), a full queue is refused (busy).
 */

const scratch = scratchDir('tesseract-engine');
const pool = { queueLimit: 10, jobTimeoutMs: 60_000, queueTimeoutMs: 60_000, maxJobsPerWorker: 0, maxMemoryBytes: 0, healthIntervalMs: 0 };
const worker = { executable: 'tesseract', tessdata: '', memoryCapBytes: 2 * 1024 ** 3, env: process.env };
let engine: TesseractEngine;
let scan: string;

beforeAll(async () => {
  engine = new TesseractEngine({ ...pool, size: 2, ...worker });
  await engine.start();
  const pdf = await textPdf(scratch.file('text.pdf'), [
    [
      { text: 'Quick brown foxes jump', x: 20, y: 120, size: 18 },
      { text: 'over lazy dogs 2026', x: 20, y: 80, size: 18 },
    ],
  ]);
  scan = await scanPage(pdf, 1, 300, scratch.file('scan.png'));
});

afterAll(async () => {
  await engine.close();
  scratch.remove();
});

describe('TesseractEngine', () => {
  it('recognises a 300-dpi scan into a text-only PDF page of the scanned size, text and hOCR', async () => {
    const result = await engine.recognize({ image: scan, outputBase: scratch.file('out'), language: 'eng', psm: 3, dpi: 300, outputs: ['pdf', 'txt', 'hocr'] });
    const text = readFileSync(result.files.txt!, 'utf8');
    expect(text).toMatch(/Quick brown foxes jump/);
    expect(text).toMatch(/over lazy dogs 2026/);
    const layer = result.files.pdf!;
    expect(execFileSync('pdftotext', [layer, '-'], { encoding: 'utf8' })).toMatch(/Quick brown foxes jump/);
    // 1250 × 833 pixels at 300 dpi: the page the text layer covers is the scanned page, 300 × 200 pt.
    expect(execFileSync('pdfinfo', [layer], { encoding: 'utf8' })).toMatch(/Page size:\s+300 x 200(\.\d+)? pts/);
    // Text only: no image on the page.
    expect(execFileSync('pdfimages', ['-list', layer], { encoding: 'utf8' }).trim().split('\n')).toHaveLength(2);
    const hocr = readFileSync(result.files.hocr!, 'utf8');
    expect(hocr).toMatch(/class='ocr_page'/);
    expect(hocr).toMatch(/class='ocrx_word'[^>]*title='bbox \d+ \d+ \d+ \d+/);
  });

  it('runs each page single-threaded and reports itself healthy', async () => {
    expect(await engine.healthy()).toBe(true);
    expect(engine.stats()).toMatchObject({ engine: 'tesseract', size: 2, ready: 2 });
  });

  it('kills a page past its time limit (timeout) and replaces the worker', async () => {
    const error = await engine.recognize({ image: scan, outputBase: scratch.file('late'), language: 'eng', psm: 3, dpi: 300, outputs: ['txt'] }, { timeoutMs: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PoolError);
    expect((error as PoolError).kind).toBe('timeout');
    // The slot is back: a later page is recognised.
    const result = await engine.recognize({ image: scan, outputBase: scratch.file('after'), language: 'eng', psm: 3, dpi: 300, outputs: ['txt'] });
    expect(readFileSync(result.files.txt!, 'utf8')).toMatch(/lazy dogs/);
  });

  it('refuses a job when its queue is full (busy, the 429 of the pools)', async () => {
    const small = new TesseractEngine({ ...pool, queueLimit: 0, size: 1, ...worker });
    await small.start();
    try {
      const first = small.recognize({ image: scan, outputBase: scratch.file('q1'), language: 'eng', psm: 3, dpi: 300, outputs: ['txt'] });
      const second = await small.recognize({ image: scan, outputBase: scratch.file('q2'), language: 'eng', psm: 3, dpi: 300, outputs: ['txt'] }).catch((e: unknown) => e);
      expect((second as PoolError).kind).toBe('busy');
      await first;
    } finally {
      await small.close();
    }
  });

  it('detects a page turned by 90 degrees (OSD)', async () => {
    const pdf = await textPdf(scratch.file('osd.pdf'), [
      [
        { text: 'Orientation detection needs', x: 20, y: 160, size: 16 },
        { text: 'several lines of ordinary text', x: 20, y: 130, size: 16 },
        { text: 'to decide which way is up', x: 20, y: 100, size: 16 },
        { text: 'on this small test page', x: 20, y: 70, size: 16 },
      ],
    ]);
    const upright = await scanPage(pdf, 1, 300, scratch.file('osd.png'));
    const sharp = (await import('sharp')).default;
    const turned = scratch.file('osd-turned.png');
    await sharp(upright).rotate(90).toFile(turned);
    const found = await engine.orientation(turned, 300);
    expect(found.rotate).toBe(270);
  });
});
