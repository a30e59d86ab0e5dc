import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadToFile, pdfFacts } from '../../helpers/converter.js';
import { info, openSession, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-print-'));
const spool = path.join(scratch, 'spool');
mkdirSync(spool);

/**
 * A stand-in for `lp`: every run is one job, a directory in the spool with the PDF it read from
 * stdin and what it was told (environment and arguments). The job name "fail" makes it fail.
 */
const printer = path.join(scratch, 'fake-lp.sh');
writeFileSync(
  printer,
  `#!/bin/sh
if [ "$QUIRE_PRINT_JOB_NAME" = "fail" ]; then cat >/dev/null; echo "printer on fire" >&2; exit 1; fi
job="$(mktemp -d "${spool}/job-XXXXXX")"
cat > "$job/document.pdf"
{
  printf 'job=%s\\ncopies=%s\\nprinter=%s\\nPRINTER=%s\\nLPDEST=%s\\nsecret=%s\\n' "$QUIRE_PRINT_JOB_NAME" "$QUIRE_PRINT_COPIES" "$QUIRE_PRINT_PRINTER" "$PRINTER" "$LPDEST" "$QUIRE_TEST_SECRET"
  for arg in "$@"; do printf 'arg=%s\\n' "$arg"; done
} > "$job/told.txt"
`,
);
chmodSync(printer, 0o755);

interface Job {
  pdf: string;
  told: string[];
}

function jobs(): string[] {
  return readdirSync(spool).sort();
}

/** The jobs printed since `before` (a `jobs()` listing). */
function newJobs(before: string[]): Job[] {
  return jobs()
    .filter((name) => !before.includes(name))
    .map((name) => ({
      pdf: path.join(spool, name, 'document.pdf'),
      told: readFileSync(path.join(spool, name, 'told.txt'), 'utf8')
        .trim()
        .split('\n'),
    }));
}

const DEFAULTS = {
  autoRotate: true,
  centerInPage: false,
  copies: 1,
  dpi: 0,
  expandToMargins: false,
  jobName: 'webPDF Print Job',
  mode: 'default',
  pages: '',
  printerName: '',
  shrinkToMargins: false,
};

describe('toolbox print', () => {
  // A server setting in the environment must not reach the print command (set before the servers start).
  beforeAll(() => {
    process.env.QUIRE_TEST_SECRET = 'do-not-leak';
  });
  afterAll(() => {
    delete process.env.QUIRE_TEST_SECRET;
  });
  const { server: plain } = useTestServer({ session: false });
  const { server, session, upload } = useTestServer({ env: { QUIRE_TOOLBOX__PRINT_COMMAND: JSON.stringify([printer, '--title={jobName}']) } });
  const { server: copying } = useTestServer({ session: false, env: { QUIRE_TOOLBOX__PRINT_COMMAND: JSON.stringify([printer, '-n', '{copies}']) } });

  it('is refused when no printer is configured (-104), and the document stays as it was', async () => {
    const own = await openSession(plain.rest);
    const uploaded = await uploadFile(plain.rest, own.token, await numberedPdf(1), 'doc.pdf');
    const outcome = await runToolbox(plain.rest, own.token, uploaded.documentId, [{ print: DEFAULTS }]);
    expect(outcome.error).toMatchObject({ errorCode: -104 });
    expect(outcome.error?.errorMessage).toMatch(/toolbox\[0\]\.print is not available: no printer is configured on this server/);
    expect(await info(plain.rest, own.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize, isFileLocked: false });
  });

  it('pipes the whole document to the print command with the defaults, and leaves it unchanged', async () => {
    const uploaded = await upload(await numberedPdf(3));
    const before = jobs();
    const result = await toolboxOk(server.rest, session.token, uploaded.documentId, [{ print: DEFAULTS }]);
    const printed = newJobs(before);
    expect(printed).toHaveLength(1);
    expect(printed[0]!.told).toEqual(['job=webPDF Print Job', 'copies=1', 'printer=', 'PRINTER=', 'LPDEST=', 'secret=', 'arg=--title=webPDF Print Job']);
    const facts = pdfFacts(printed[0]!.pdf);
    expect(facts.pages).toBe(3);
    expect(facts.text).toContain('PAGE-3');
    expect(result.fileSize).toBe(uploaded.fileSize);
    expect(pdfFacts(await downloadToFile(server.rest, session.token, uploaded.documentId)).text).toContain('PAGE-1');
  });

  it('prints the selected pages, once per copy, with job and printer name', async () => {
    const uploaded = await upload(await numberedPdf(4));
    const before = jobs();
    await toolboxOk(server.rest, session.token, uploaded.documentId, [{ print: { ...DEFAULTS, pages: '2-3', copies: 2, jobName: 'Quarterly report', printerName: 'office' } }]);
    const printed = newJobs(before);
    expect(printed).toHaveLength(2);
    for (const job of printed) {
      expect(job.told).toEqual(['job=Quarterly report', 'copies=2', 'printer=office', 'PRINTER=office', 'LPDEST=office', 'secret=', 'arg=--title=Quarterly report']);
      const facts = pdfFacts(job.pdf);
      expect(facts.pages).toBe(2);
      expect(facts.text).toMatch(/PAGE-2[\s\S]*PAGE-3/);
      expect(facts.text).not.toContain('PAGE-1');
      expect(facts.text).not.toContain('PAGE-4');
    }
  });

  it('leaves copies to a command that takes them ({copies})', async () => {
    const own = await openSession(copying.rest);
    const uploaded = await uploadFile(copying.rest, own.token, await numberedPdf(1), 'doc.pdf');
    const before = jobs();
    await toolboxOk(copying.rest, own.token, uploaded.documentId, [{ print: { ...DEFAULTS, copies: 3 } }]);
    const printed = newJobs(before);
    expect(printed).toHaveLength(1);
    expect(printed[0]!.told.filter((line) => line.startsWith('arg='))).toEqual(['arg=-n', 'arg=3']);
  });

  it('sends pictures of the pages in modes raster and image, at dpi (0 = 300)', async () => {
    const uploaded = await upload(await numberedPdf(2));
    for (const [mode, dpi, width, height] of [
      ['raster', 72, 595, 842],
      ['image', 0, 2480, 3508],
    ] as const) {
      const before = jobs();
      await toolboxOk(server.rest, session.token, uploaded.documentId, [{ print: { ...DEFAULTS, mode, dpi } }]);
      const [job] = newJobs(before);
      expect(execFileSync('pdffonts', [job!.pdf], { encoding: 'utf8' }).trim().split('\n')).toHaveLength(2); // header lines only: no fonts
      const images = execFileSync('pdfimages', ['-list', job!.pdf], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .slice(2)
        .map((line) => line.trim().split(/\s+/));
      expect(
        images.map((cells) => cells[0]),
        mode,
      ).toEqual(['1', '2']);
      for (const cells of images) {
        expect(Number(cells[3]), mode).toBeCloseTo(width, -1);
        expect(Number(cells[4]), mode).toBeCloseTo(height, -1);
      }
    }
  });

  it('prints a protected document with its password and keeps it protected', async () => {
    const input = path.join(scratch, 'plain.pdf');
    writeFileSync(input, await numberedPdf(2));
    execFileSync('qpdf', ['--encrypt', 'geheim', 'owner', '256', '--', input, `${input}.enc`]);
    const locked = await upload(readFileSync(`${input}.enc`), 'locked.pdf');
    const before = jobs();
    expect((await runToolbox(server.rest, session.token, locked.documentId, [{ print: DEFAULTS }], { password: { open: 'wrong' } })).error).toMatchObject({ errorCode: -5008 });
    expect(newJobs(before)).toHaveLength(0);
    await toolboxOk(server.rest, session.token, locked.documentId, [{ print: DEFAULTS }], { password: { open: 'geheim' } });
    const [job] = newJobs(before);
    expect(pdfFacts(job!.pdf).text).toContain('PAGE-2');
    const stored = await downloadToFile(server.rest, session.token, locked.documentId);
    expect(spawnSync('qpdf', ['--show-npages', stored]).status).toBe(2);
    expect(pdfFacts(stored, 'geheim').pages).toBe(2);
  });

  it('prints what the steps before it made', async () => {
    const uploaded = await upload(await numberedPdf(3));
    const before = jobs();
    await toolboxOk(server.rest, session.token, uploaded.documentId, [{ delete: { pages: '1' } }, { print: DEFAULTS }]);
    const [job] = newJobs(before);
    expect(pdfFacts(job!.pdf).text).not.toContain('PAGE-1');
    expect(pdfFacts(job!.pdf).pages).toBe(2);
  });

  it('refuses bad values (-14), placement it cannot know (-104), a failing printer (-102) and damaged PDFs (-7), printing nothing', async () => {
    const uploaded = await upload(await numberedPdf(3));
    const before = jobs();
    const refusals: [Record<string, unknown>, number, RegExp][] = [
      [{ pages: '5' }, -14, /toolbox\[0\]\.print\.pages: .*the document has 3 pages/],
      [{ pages: 'x-y' }, -14, /toolbox\[0\]\.print\.pages/],
      [{ mode: 'laser' }, -14, /mode/],
      [{ copies: 0 }, -14, /copies/],
      [{ copies: 101 }, -14, /toolbox\[0\]\.print\.copies: a whole number from 1 to 100/],
      [{ dpi: 601 }, -14, /toolbox\[0\]\.print\.dpi/],
      [{ centerInPage: true }, -104, /toolbox\[0\]\.print\.centerInPage true cannot be honoured/],
      [{ expandToMargins: true }, -104, /expandToMargins/],
      [{ shrinkToMargins: true }, -104, /shrinkToMargins/],
      [{ autoRotate: false }, -104, /autoRotate false cannot be honoured/],
      [{ jobName: 'fail' }, -102, /the print command failed \(exit 1\): printer on fire/],
    ];
    for (const [options, code, message] of refusals) {
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, [{ print: { ...DEFAULTS, ...options } }]);
      expect(outcome.error, JSON.stringify(options)).toMatchObject({ errorCode: code });
      expect(outcome.error?.errorMessage, JSON.stringify(options)).toMatch(message);
    }
    expect(newJobs(before)).toHaveLength(0);
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize, isFileLocked: false });

    const damaged = await upload(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('garbage '.repeat(100))]), 'damaged.pdf');
    expect((await runToolbox(server.rest, session.token, damaged.documentId, [{ print: DEFAULTS }])).error).toMatchObject({ errorCode: -7 });
    expect(newJobs(before)).toHaveLength(0);
  });
});
