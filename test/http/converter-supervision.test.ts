import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { convert, convertOk, downloadToFile, pdfFacts } from '../helpers/converter.js';
import { eventually, info, uploadFile, type TestSession } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';

const DOCX = readFileSync(path.resolve(import.meta.dirname, '../fixtures/office/sample.docx'));

/** A CSV that keeps LibreOffice busy for many seconds (tens of thousands of rows to lay out). */
function slowCsv(rows = 120_000): Buffer {
  const lines = ['id,text,value'];
  for (let i = 0; i < rows; i++) lines.push(`${i},row number ${i} with some text to lay out,${i * 3}`);
  return Buffer.from(lines.join('\n'));
}

/** PIDs of this server's soffice processes (their profiles live in its data dir). */
function sofficePids(dataDir: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', `^[^ ]*soffice[.]bin .*${dataDir}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * Whether soffice `pid` has a file of a conversion job open: the job's input (while LibreOffice imports
 * it) or the temporary output it writes next to it (while it exports). That is the proof that the job
 * was handed to this soffice, not merely that its worker exists (the job folders: libreoffice-engine.ts).
 */
function runsAJob(dataDir: string, pid: number): boolean {
  const jobs = `${path.join(dataDir, 'engines', 'libreoffice', 'jobs')}/`;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(jobs);
      } catch {
        return false; // closed meanwhile
      }
    });
  } catch {
    return false; // the process is gone
  }
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A server with one LibreOffice worker (and no Chromium) for the tests of a describe block. */
function supervisedServer(env: Record<string, string>): { get: () => { server: TestServer; session: TestSession } } {
  const { server, session } = useTestServer({
    engines: true,
    env: { QUIRE_ENGINES__CHROMIUM__ENABLED: 'false', QUIRE_ENGINES__LIBREOFFICE__WORKERS: '1', ...env },
  });
  return { get: () => ({ server, session }) };
}

describe('converter: a hung LibreOffice job', () => {
  const context = supervisedServer({ QUIRE_ENGINES__LIBREOFFICE__TIMEOUT: '2' });

  it('kills a job that runs past the timeout (-93, within the limit) and serves the next job on a fresh worker', async () => {
    const { server, session } = context.get();
    const slow = await uploadFile(server.rest, session.token, slowCsv(), 'slow.csv');
    const before = sofficePids(server.dataDir);
    expect(before).toHaveLength(1);
    const started = Date.now();
    const outcome = await convert(server.rest, session.token, slow.documentId);
    const elapsed = Date.now() - started;
    expect(outcome).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -93 } });
    expect(outcome.error?.errorMessage).toMatch(/did not finish within 2 s/);
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(6000);
    // The hung soffice is gone; the document is as it was and unlocked.
    await until(() => !sofficePids(server.dataDir).includes(before[0]!), 5000);
    expect(await info(server.rest, session.token, slow.documentId)).toMatchObject({ mimeType: 'text/csv', isFileLocked: false });

    const next = await uploadFile(server.rest, session.token, DOCX, 'next.docx');
    await convertOk(server.rest, session.token, next.documentId);
    expect(pdfFacts(await downloadToFile(server.rest, session.token, next.documentId)).text).toContain('QUIRE-MARKER-docx');
  }, 30_000);
});

describe('converter: a LibreOffice worker killed under a job', () => {
  const context = supervisedServer({ QUIRE_ENGINES__LIBREOFFICE__TIMEOUT: '60' });

  it('retries a job whose worker was killed once; a second kill refuses it (-108), later calls are refused at once, and the pool keeps serving', async () => {
    const { server, session } = context.get();
    const doomed = await uploadFile(server.rest, session.token, slowCsv(), 'doomed.csv');
    const pending = convert(server.rest, session.token, doomed.documentId);
    const killed: number[] = [];
    for (let kill = 0; kill < 2; kill++) {
      // SIGKILL the soffice the job runs in, once it provably runs there (it has the job's files open):
      // a kill while the retry's worker is still starting would fail that start, not the job.
      let victim = 0;
      await until(() => {
        victim = sofficePids(server.dataDir).find((pid) => !killed.includes(pid) && runsAJob(server.dataDir, pid)) ?? 0;
        return victim !== 0;
      }, 30_000);
      process.kill(victim, 'SIGKILL');
      killed.push(victim);
      await until(() => !sofficePids(server.dataDir).includes(victim), 5000);
    }
    const outcome = await pending;
    expect(outcome, JSON.stringify(outcome.error)).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -108 } });
    expect(outcome.error?.errorMessage).toMatch(/hung or crashed the libreoffice engine twice/);

    const started = Date.now();
    const again = await convert(server.rest, session.token, doomed.documentId);
    expect(again.error?.errorCode).toBe(-108);
    expect(Date.now() - started).toBeLessThan(1000);

    const next = await uploadFile(server.rest, session.token, DOCX, 'after-crash.docx');
    await convertOk(server.rest, session.token, next.documentId);
  }, 60_000);
});

describe('converter: LibreOffice without its UNO driver', () => {
  const context = supervisedServer({ QUIRE_ENGINES__PYTHON: '/nonexistent/python3' });

  it('falls back to one soffice process per document and still converts', async () => {
    const { server, session } = context.get();
    const uploaded = await uploadFile(server.rest, session.token, DOCX, 'fallback.docx');
    await convertOk(server.rest, session.token, uploaded.documentId, { converter: { pages: '2' } });
    const facts = pdfFacts(await downloadToFile(server.rest, session.token, uploaded.documentId));
    expect(facts.pages).toBe(1);
    expect(facts.text).toContain('QUIRE-PAGE-TWO');
    // No warm listener was started.
    expect(sofficePids(server.dataDir)).toEqual([]);
  }, 30_000);
});

describe('converter: a full LibreOffice queue', () => {
  const context = supervisedServer({ QUIRE_ENGINES__LIBREOFFICE__QUEUE_SIZE: '0', QUIRE_ENGINES__LIBREOFFICE__TIMEOUT: '3' });

  it('answers 429 (-105) with Retry-After while the only worker is busy and nothing may wait', async () => {
    const { server, session } = context.get();
    const slow = await uploadFile(server.rest, session.token, slowCsv(), 'busy.csv');
    const other = await uploadFile(server.rest, session.token, DOCX, 'waiting.docx');
    const pending = convert(server.rest, session.token, slow.documentId);
    // The slow job holds the worker once its document is locked.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await convert(server.rest, session.token, other.documentId);
    expect(refused).toMatchObject({ status: 429, contentType: 'application/json', error: { errorCode: -105 } });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await pending).error?.errorCode).toBe(-93);
    // Once the killed worker is replaced, the same call goes through.
    await eventually(() => convertOk(server.rest, session.token, other.documentId), 15_000, 500);
  }, 30_000);
});
