import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectIsolation, officeReadFolders, sandboxCommand, type IsolationMode } from '../../../src/engines/libreoffice/isolation.js';
import { LIBREOFFICE_DEFAULTS, LibreOfficeEngine } from '../../../src/engines/libreoffice/libreoffice-engine.js';
import { hostileDocuments, hostileLegacyDocuments, hostileRtfPicture, type HostileDocument, type HostileTargets } from './hostile-office.js';
import { pdfContent, SECRET_CSV, SECRET_IMAGE_SIZE, SECRET_TEXT, secretTargets, startListener, writeSecrets, type Listener } from './leak-check.js';

/**
 * Hostile Office documents (linked images, OLE links, linked sections and sheets, external
 * references, web queries, WEBSERVICE(), remote templates, INCLUDEPICTURE/INCLUDETEXT, linked media;
 * see hostile-office.ts) in every Office format LibreOffice converts must make it fetch nothing from
 * a loopback listener and embed nothing from files beside them on the server's disk. Each layer of
 * the defence is tested on its own: the kernel walls (network namespace, Landlock) around a plain
 * LibreOffice, and LibreOffice's own settings with the content broker guard without the walls.
 */

let listener: Listener;
let targets: HostileTargets;
let scratch: string;
let documents: HostileDocument[];
let rtfPicture: HostileDocument;

beforeAll(async () => {
  listener = await startListener();
  targets = secretTargets(listener.base);
  scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-office-network-'));
  // The legacy files are written by a plain LibreOffice that follows the links: before the secrets
  // exist, and with the listener cutting connections unrecorded.
  listener.closed = true;
  const legacy = await hostileLegacyDocuments(targets, scratch);
  listener.closed = false;
  await writeSecrets(targets);
  documents = [...(await hostileDocuments(targets)), ...legacy];
  rtfPicture = hostileRtfPicture(targets);
}, 180_000);

afterAll(async () => {
  await listener?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (targets) rmSync(path.dirname(targets.secretPng), { recursive: true, force: true });
});

/** The PDF converted from a hostile document: converted (its marker is there), with nothing of the secrets. */
function expectClean(pdf: string, document: HostileDocument): void {
  const { text, images } = pdfContent(pdf);
  expect(text, `${document.name} was not converted`).toContain(document.marker);
  expect(images, `${document.name} embeds the secret image`).not.toContain(SECRET_IMAGE_SIZE);
  expect(text).not.toContain(SECRET_TEXT);
  expect(text).not.toContain(SECRET_CSV);
}

function engineFor(isolation: IsolationMode, workDir: string, python = LIBREOFFICE_DEFAULTS.python): LibreOfficeEngine {
  return new LibreOfficeEngine({
    ...LIBREOFFICE_DEFAULTS,
    python,
    isolation,
    workDir,
    env: process.env,
    size: 1,
    queueLimit: 20,
    jobTimeoutMs: 90_000,
    queueTimeoutMs: 90_000,
    maxJobsPerWorker: 0,
    maxMemoryBytes: 0,
    healthIntervalMs: 0,
  });
}

const EVERY_FORMAT = ['hostile.docx', 'hostile.xlsx', 'hostile.pptx', 'hostile.odt', 'hostile.ods', 'hostile.odp', 'hostile.rtf', 'hostile-legacy.doc', 'hostile-legacy.xls', 'hostile-legacy.ppt'];

/** Runs hostile documents through an engine, one test each; the listener must stay silent. */
function convertsSafely(label: string, isolation: IsolationMode, options: { oneShot?: boolean; names: string[] }): void {
  describe(label, () => {
    let engine: LibreOfficeEngine;
    let dir: string;

    beforeAll(async () => {
      dir = mkdtempSync(path.join(scratch, 'engine-'));
      // A Python that does not exist keeps the listeners from starting: the one-shot fallback runs.
      engine = engineFor(isolation, path.join(dir, 'work'), options.oneShot ? path.join(dir, 'no-python3') : undefined);
      await engine.start();
    }, 120_000);
    afterAll(() => engine?.close());

    it(`runs ${options.oneShot ? 'one-shot' : 'warm'} with ${isolation === 'off' ? 'no kernel walls' : 'a network namespace and Landlock'}`, () => {
      expect(engine.running).toBe(options.oneShot ? 'oneShot' : 'warm');
      if (isolation === 'off') {
        expect(engine.isolation).toEqual({ network: [], landlock: 0, missing: [] });
      } else {
        expect(engine.isolation.missing).toEqual([]);
        expect(engine.isolation.network.length).toBeGreaterThan(0);
        expect(engine.isolation.landlock).toBeGreaterThan(0);
      }
    });

    for (const name of options.names) {
      it(`converts ${name}: nothing fetched, nothing of the server's files embedded`, async () => {
        const document = name === 'hostile-picture.rtf' ? rtfPicture : documents.find((d) => d.name === name)!;
        const input = path.join(dir, document.name);
        writeFileSync(input, document.content);
        const output = path.join(dir, `${document.name}.pdf`);
        listener.hits.length = 0;
        await engine.convert({ input, output, filterData: {} });
        expect(listener.hits).toEqual([]);
        expectClean(output, document);
      });
    }

    it('left no job folders behind', () => {
      expect(execFileSync('ls', ['-A', path.join(dir, 'work', 'jobs')], { encoding: 'utf8' })).toBe('');
    });
  });
}

convertsSafely('LibreOffice engine, default isolation (walls and settings)', 'auto', { names: [...EVERY_FORMAT, 'hostile-picture.rtf'] });
// LibreOffice's own layer alone. It cannot stop the RTF import from opening a picture file itself:
// that one is the kernel sandbox's (tested above and below).
convertsSafely('LibreOffice engine, isolation off: the settings and the content broker guard alone', 'off', { names: EVERY_FORMAT });
// About 3 s a document: the formats whose links the profile settings alone do not stop (the walls do).
convertsSafely('LibreOffice engine, one-shot fallback (walls and profile settings)', 'auto', {
  oneShot: true,
  names: ['hostile.docx', 'hostile.ods', 'hostile.odp', 'hostile-picture.rtf', 'hostile-legacy.ppt'],
});

describe('the kernel walls alone: a plain LibreOffice (no Quire settings, no guard) in the network namespace and the Landlock sandbox', () => {
  it('converts every hostile document without reaching the listener or the secret files', async () => {
    const isolation = await detectIsolation('auto', LIBREOFFICE_DEFAULTS.python);
    expect(isolation.missing).toEqual([]);
    const dir = mkdtempSync(path.join(scratch, 'plain-'));
    const inputs = [...documents, rtfPicture].map((document) => {
      const file = path.join(dir, document.name.replace('.', '-') + path.extname(document.name));
      writeFileSync(file, document.content);
      return { document, file };
    });
    mkdirSync(path.join(dir, 'tmp'));
    const soffice = path.join(path.dirname(LIBREOFFICE_DEFAULTS.soffice), 'soffice');
    const command = [
      ...isolation.network,
      ...sandboxCommand(LIBREOFFICE_DEFAULTS.python, { read: await officeReadFolders(LIBREOFFICE_DEFAULTS.soffice), write: [dir, '/dev/null'], socket: ['/tmp'] }),
      soffice,
      '--headless',
      '--norestore',
      `-env:UserInstallation=file://${path.join(dir, 'profile')}`,
      '--convert-to',
      'pdf',
      '--outdir',
      path.join(dir, 'out'),
      ...inputs.map((i) => i.file),
    ];
    listener.hits.length = 0;
    await new Promise<void>((resolve, reject) =>
      execFile(command[0]!, command.slice(1), { env: { ...process.env, TMPDIR: path.join(dir, 'tmp'), HOME: dir }, timeout: 170_000 }, (error) => (error ? reject(error) : resolve())),
    );
    expect(listener.hits).toEqual([]);
    for (const { document, file } of inputs) {
      const pdf = path.join(dir, 'out', `${path.basename(file, path.extname(file))}.pdf`);
      expect(existsSync(pdf), `${document.name} was not converted`).toBe(true);
      expectClean(pdf, document);
    }
  }, 180_000);

  it('puts soffice in a network namespace of its own', async () => {
    const engine = engineFor('auto', mkdtempSync(path.join(scratch, 'ns-')));
    await engine.start();
    try {
      const profileRoot = path.join(scratch);
      const pids = execFileSync('pgrep', ['-f', `^[^ ]*soffice[.]bin .*${profileRoot}/ns-`], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .filter(Boolean);
      expect(pids).toHaveLength(1);
      expect(readlinkSync(`/proc/${pids[0]}/ns/net`)).not.toBe(readlinkSync('/proc/self/ns/net'));
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('refuses to start with isolation "required" when a wall is missing (here: no Python for the Landlock wrapper)', async () => {
    const engine = engineFor('required', mkdtempSync(path.join(scratch, 'required-')), '/bin/false');
    await expect(engine.start()).rejects.toThrow(/isolation is required.*no Landlock/);
  });
});
