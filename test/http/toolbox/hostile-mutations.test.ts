import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postWebService } from '../../helpers/converter.js';
import { locationId, openSession, postDocument, type TestSession } from '../../helpers/documents.js';
import { mutants, seedDocuments } from '../../helpers/pdf-mutations.js';
import { killAll, startQuire, type QuireProcess } from '../../helpers/process.js';
import { numberedPdf } from '../../helpers/toolbox.js';

/**
 * Issue 11, defect 4: damaged PDFs must be answered with a 4xx that names the problem, never a 5xx,
 * and must never take the server down. Two parts:
 *
 * - every file under test/fixtures/pdf/hostile/ (crashers found by the loop below, and hand-made
 *   structures) through the operation listed for it in its manifest;
 * - a fixed-seed slice of byte mutations (test/helpers/pdf-mutations.ts) through the toolbox's qpdf,
 *   pdf-lib and poppler operations. `HOSTILE_MUTANTS=500 HOSTILE_SAVE=dir npx vitest run …` runs a
 *   longer loop and writes each failing mutant to `dir` (to be added to the fixtures).
 *
 * The server is a separate process with a small heap, restarted when a case killed it, so that a
 * crash fails that case instead of the test runner.
 */
const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/pdf/hostile');
const MUTANTS = Number(process.env.HOSTILE_MUTANTS ?? 6);
const SEED = Number(process.env.HOSTILE_SEED ?? 20_251_125);
const SAVE = process.env.HOSTILE_SAVE;
/** Status (and error code) per operation, printed with HOSTILE_SAVE, to see what the loop reached. */
const seen = new Map<string, number>();

interface FixtureEntry {
  file: string;
  /** The toolbox operation that failed on it (a key of OPERATIONS). */
  operation: string;
  /** What went wrong before the fix. */
  found: string;
}

/** The operations exercised, by engine: the inspector (GET info), qpdf, pdf-lib, poppler. */
const OPERATIONS: Record<string, (merged: string) => unknown[]> = {
  info: () => [], // GET documents/{id}/info, not a toolbox call
  delete: () => [{ delete: { pages: '1' } }],
  rotate: () => [{ rotate: { pages: '*', degrees: 90 } }],
  split: () => [{ split: { mode: 'burst' } }],
  merge: (other) => [{ merge: { mode: 'afterPage', page: 1, data: { format: 'pdf', value: other } } }],
  compress: () => [{ compress: {} }],
  scale: () => [{ scale: { scalePages: { dimensions: { width: 100, height: 150 } } } }],
  watermark: () => [{ watermark: { text: { text: 'W' } } }],
  annotation: () => [{ annotation: { add: { square: [{ position: { rectangle: { x: 10, y: 20, width: 30, height: 40, metrics: 'pt' } } }] } } }],
  outline: () => [{ outline: { add: { item: [{ itemName: 'N', actions: [{ goTo: { destination: { fitPage: { page: 1 } } } }] }] } } }],
  headerFooter: () => [{ options: { headerFooter: { add: { headerFooterContent: { header: { center: 'H' } } } } } }],
  forms: () => [{ forms: { export: { format: 'xfdf' } } }],
  description: () => [{ description: { title: 'T' } }],
  boxes: () => [
    {
      options: {
        boxes: {
          resize: [{ boxesResize: { box: 'crop_box', pages: '*', dimensions: { x: 10, y: 20, width: 100, height: 150, metrics: 'mm' } } }],
          remove: [{ boxesRemove: { box: 'trim_box', pages: '*' } }],
        },
      },
    },
  ],
  attachment: () => [{ attachment: { add: { file: [{ fileName: 'a.txt', data: { value: Buffer.from('attached').toString('base64') } }] } } }],
  redact: () => [{ redact: { blacken: { collisionRatio: 30, redactAnnotations: true, redactImages: true, redactPaths: true, redactTexts: true } } }],
  text: () => [{ extraction: { text: { fileFormat: 'text' } } }],
  image: () => [{ image: { pages: '1', png: { dpi: 18 } } }],
};

describe('hostile PDFs through the toolbox', () => {
  let quire: QuireProcess;
  let session: TestSession;
  let other: string;
  let seeds: Buffer[];
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-hostile-mutations-'));

  beforeAll(async () => {
    other = (await numberedPdf(1)).toString('base64');
    seeds = await seedDocuments();
    if (SAVE) mkdirSync(SAVE, { recursive: true });
  });
  beforeEach(async () => {
    if (quire?.running && (await healthy())) return;
    await quire?.kill();
    quire = await startQuire({ dataDir: mkdtempSync(path.join(scratch, 'data-')), env: { NODE_OPTIONS: '--max-old-space-size=384', QUIRE_LOG__LEVEL: 'warn' } });
    session = await openSession(quire.rest);
  });
  afterAll(async () => {
    await killAll();
    rmSync(scratch, { recursive: true, force: true });
  });

  const healthy = () =>
    fetch(`${quire.url}/webPDF/health`).then(
      (r) => r.status === 200,
      () => false,
    );

  /** Uploads `content` and runs `operation` on it; returns what went wrong, or undefined. */
  async function problem(content: Buffer, operation: string): Promise<string | undefined> {
    if (!quire.running || !(await healthy())) {
      await quire.kill();
      quire = await startQuire({ dataDir: mkdtempSync(path.join(scratch, 'data-')), env: { NODE_OPTIONS: '--max-old-space-size=384', QUIRE_LOG__LEVEL: 'warn' } });
      session = await openSession(quire.rest);
    }
    let status: number;
    let detail = '';
    try {
      const upload = await postDocument(quire.rest, session.token, content, 'hostile.pdf');
      if (upload.response?.status !== 303) {
        seen.set(`upload ${upload.response?.status}`, (seen.get(`upload ${upload.response?.status}`) ?? 0) + 1);
        return upload.response && upload.response.status < 500 ? undefined : `upload answered ${upload.response?.status ?? upload.error?.message}`;
      }
      const documentId = locationId(upload.response.headers);
      if (operation === 'info') {
        // GET info inspects the PDF (qpdf and the bounded in-process tree walks): an error it reports must be the document's, not -1.
        const response = await fetch(`${quire.rest}/documents/${documentId}/info`, { headers: session.headers });
        const body = (await response.json()) as { error?: { errorCode: number; errorMessage: string } };
        await fetch(`${quire.rest}/documents/${documentId}`, { method: 'DELETE', headers: session.headers });
        seen.set(`info ${response.status} ${body.error?.errorCode ?? ''}`, (seen.get(`info ${response.status} ${body.error?.errorCode ?? ''}`) ?? 0) + 1);
        if (response.status !== 200 || body.error?.errorCode === -1) return `GET info: ${response.status} ${JSON.stringify(body.error)}`;
        return undefined;
      }
      const outcome = await postWebService(`${quire.rest}/toolbox/${documentId}`, session.token, { toolbox: OPERATIONS[operation]!(other) });
      // The session's document limit must not end the loop.
      await fetch(`${quire.rest}/documents/${documentId}`, { method: 'DELETE', headers: session.headers });
      status = outcome.status;
      const key = `${operation} ${status}${outcome.error ? ` ${outcome.error.errorCode}` : ''}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      if (status >= 400) {
        if (outcome.contentType !== 'application/json') return `${status} with Content-Type ${outcome.contentType}`;
        if (outcome.error?.errorCode === -1 || status >= 500) detail = `${status} ${JSON.stringify(outcome.error)}`;
      }
    } catch (error) {
      detail = `no answer: ${(error as Error).message}`;
    }
    if (!quire.running || !(await healthy())) return `the server died: ${/FATAL ERROR.*|RangeError.*|Error: .*/.exec(quire.stderr)?.[0] ?? quire.stderr.slice(-300)} ${detail}`;
    return detail || undefined;
  }

  it('answers every fixture of test/fixtures/pdf/hostile with a 4xx or a result, never a 5xx', async () => {
    const manifest = JSON.parse(readFileSync(path.join(FIXTURES, 'manifest.json'), 'utf8')) as FixtureEntry[];
    // Every file is listed: a fixture without an entry would silently test nothing.
    expect(
      readdirSync(FIXTURES)
        .filter((f) => f.endsWith('.pdf'))
        .sort(),
    ).toEqual([...new Set(manifest.map((entry) => entry.file))].sort());
    const failures: string[] = [];
    for (const entry of manifest) {
      const found = await problem(readFileSync(path.join(FIXTURES, entry.file)), entry.operation);
      if (found) failures.push(`${entry.file} (${entry.operation}; was: ${entry.found}): ${found}`);
    }
    expect(failures).toEqual([]);
  });

  it(
    `answers ${MUTANTS} byte mutations of the seed documents (seed ${SEED}) through every operation without a 5xx`,
    async () => {
      const failures: string[] = [];
      for (const mutant of mutants(seeds, SEED, MUTANTS)) {
        for (const operation of Object.keys(OPERATIONS)) {
          const found = await problem(mutant.bytes, operation);
          if (!found) continue;
          failures.push(`mutant ${mutant.index} (seed ${mutant.seed}: ${mutant.description}) ${operation}: ${found}`);
          if (SAVE) writeFileSync(path.join(SAVE, `mutant-${SEED}-${mutant.index}-${operation}.pdf`), mutant.bytes);
        }
      }
      if (SAVE)
        console.log(
          [...seen]
            .sort()
            .map(([key, n]) => `${key}: ${n}`)
            .join('\n'),
        );
      expect(failures).toEqual([]);
    },
    30 * 60_000,
  );
});
