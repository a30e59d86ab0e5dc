import { execFileSync } from 'node:child_process';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QuireError } from '../../../src/core/errors.js';
import { fileTypeByKey } from '../../../src/core/file-types.js';
import { PdfRewriter } from '../../../src/engines/pdf/rewriter.js';
import { run } from '../../../src/engines/process/run.js';
import { runAsNew, runInPlace, type DeadlineSpec, type StepsResult, type Transaction, type WorkFile } from '../../../src/operations/transaction/document-transaction.js';
import { openTestStore, protectedPdf, qpdfCheck, samplePdf, sha256, type TestStore } from './store.js';

const PDF = fileTypeByKey('pdf');
const ABORTING: DeadlineSpec = { timeoutMs: 400, abortWith: () => new QuireError('PROCESSING_TIMEOUT', 'test deadline spent') };
const GENEROUS: DeadlineSpec = { timeoutMs: 60_000, abortWith: () => new QuireError('PROCESSING_TIMEOUT', 'test deadline spent') };

type Steps = (tx: Transaction, input: WorkFile) => Promise<StepsResult>;

/**
 * The document transaction (src/operations/transaction) driven with faulty fake engines: one that
 * hangs, one that crashes, one that writes a wrong result. Whatever the step does, the stored
 * document keeps its exact bytes (sha256 of the stored file), stays a sound PDF (qpdf --check), is
 * unlocked again, and no scratch file is left under tmp/. A correct step, run the same way, does
 * change the document: the checks can fail.
 */
describe('document transaction under engine faults', () => {
  let store: TestStore;
  let documentId: string;
  let before: { sha: string; versions: number; active: number };

  beforeEach(async () => {
    store = await openTestStore();
    const record = await store.upload(samplePdf(store.dataDir), 'sample.pdf');
    documentId = record.id;
    before = { sha: sha256(store.storedFile(documentId)), versions: record.versions.length, active: record.activeVersion };
  });
  afterEach(() => store.close());

  const inPlace = (steps: Steps, deadline: DeadlineSpec = GENEROUS) =>
    runInPlace({ documents: store.documents, credentials: store.credentials }, { session: store.session, documentId, operation: 'test', deadline }, steps);

  async function expectUnchanged(): Promise<void> {
    const file = store.storedFile(documentId);
    expect(sha256(file)).toBe(before.sha);
    expect(() => qpdfCheck(file)).not.toThrow();
    const record = await store.documents.info(store.session, documentId);
    expect({ versions: record.versions.length, active: record.activeVersion }).toEqual({ versions: before.versions, active: before.active });
    expect(store.documents.isLocked(record)).toBe(false);
    expect(store.leftovers()).toEqual([]);
  }

  /** A step that has already left work in the scratch directory before its fault. */
  async function partialWork(tx: Transaction, input: WorkFile): Promise<string> {
    const partial = tx.scratch.file('pdf');
    await copyFile(input.path, partial);
    return partial;
  }

  it('a correct step changes the document (the checks below can fail)', async () => {
    const { record } = await inPlace(async (tx, input) => {
      const output = tx.scratch.file('pdf');
      execFileSync('qpdf', [input.path, '--rotate=+90', output]);
      return { file: { path: output, type: PDF } };
    });
    const file = store.storedFile(documentId);
    expect(sha256(file)).not.toBe(before.sha);
    expect(() => qpdfCheck(file)).not.toThrow();
    expect(execFileSync('qpdf', ['--show-pages', file], { encoding: 'utf8' })).toBeTruthy();
    expect(record.id).toBe(documentId);
    expect(store.leftovers()).toEqual([]);
  });

  describe('an engine that hangs', () => {
    it('is killed when the deadline passes; the call fails with the deadline error', async () => {
      let scratchUsed = false;
      const call = inPlace(async (tx, input) => {
        await partialWork(tx, input);
        scratchUsed = true;
        // A real process, started the one way (run()) as a configured tool (the print command runs any
        // program): run() reads the ambient cancellation the deadline carries, as for qpdf or gs.
        await run('sleep', ['600'], { tool: 'print' });
        return { file: { path: input.path, type: PDF } };
      }, ABORTING);
      await expect(call).rejects.toMatchObject({ message: 'test deadline spent', definition: { errorCode: -93 } });
      expect(scratchUsed).toBe(true);
      await expectUnchanged();
    });

    it('cannot store a result it finishes after the deadline', async () => {
      const call = inPlace(async (tx, input) => {
        const output = await partialWork(tx, input);
        // Ignores the cancellation and finishes anyway (a tool that does not die at once).
        await new Promise((resolve) => tx.deadline.signal.addEventListener('abort', resolve, { once: true }));
        return { file: { path: output, type: PDF } };
      }, ABORTING);
      await expect(call).rejects.toMatchObject({ definition: { errorCode: -93 } });
      await expectUnchanged();
    });
  });

  describe('an engine that crashes', () => {
    it('throws in the middle of its work', async () => {
      const call = inPlace(async (tx, input) => {
        await partialWork(tx, input);
        throw new Error('engine crashed');
      });
      await expect(call).rejects.toThrow('engine crashed');
      await expectUnchanged();
    });

    it('dies by a signal (its child process killed)', async () => {
      const call = inPlace(async (tx, input) => {
        const output = tx.scratch.file('pdf');
        // Writes half a file, then the process dies by SIGKILL, as an engine the kernel killed.
        const result = await run('sh', ['-c', `head -c 200 "$1" > "$2"; kill -KILL $$`, 'sh', input.path, output]);
        if (result.signal !== null || result.exitCode !== 0) throw new Error(`engine died (${result.signal ?? result.exitCode})`);
        return { file: { path: output, type: PDF } };
      });
      await expect(call).rejects.toThrow('engine died (SIGKILL)');
      await expectUnchanged();
    });
  });

  describe('an engine that writes a wrong result', () => {
    it('is refused when the result is not a PDF', async () => {
      const call = inPlace(async (tx) => {
        const output = tx.scratch.file('pdf');
        await writeFile(output, '<html><body>not a PDF</body></html>\n');
        return { file: { path: output, type: PDF } };
      });
      await expect(call).rejects.toMatchObject({ definition: { errorCode: -102 }, message: expect.stringContaining('it is not a PDF') });
      await expectUnchanged();
    });

    it('is refused when the PDF is cut short', async () => {
      const call = inPlace(async (tx, input) => {
        const output = tx.scratch.file('pdf');
        const bytes = await readFile(input.path);
        await writeFile(output, bytes.subarray(0, Math.floor(bytes.length / 2)));
        return { file: { path: output, type: PDF } };
      });
      await expect(call).rejects.toMatchObject({ definition: { errorCode: -102 }, message: expect.stringContaining('cut short') });
      await expectUnchanged();
    });

    it('is refused when the steps declare an untyped result a PDF (the converter) and it is not one', async () => {
      const call = inPlace(async (tx) => {
        const output = tx.scratch.file('bin');
        await writeFile(output, Buffer.alloc(4096, 0));
        return { file: { path: output, pdf: true } };
      });
      await expect(call).rejects.toMatchObject({ definition: { errorCode: -102 } });
      await expectUnchanged();
    });
  });

  describe('a protected PDF worked on decrypted', () => {
    const user = 'user-secret';
    const owner = 'owner-secret';
    let tool: PdfRewriter;

    beforeEach(async () => {
      const record = await store.upload(protectedPdf(store.dataDir, user, owner), 'protected.pdf');
      documentId = record.id;
      before = { sha: sha256(store.storedFile(documentId)), versions: record.versions.length, active: record.activeVersion };
      store.credentials.set(store.session.id, documentId, record.activeVersion, { password: user });
      tool = new PdfRewriter({ timeoutMs: 30_000 });
    });

    const plainInPlace = (steps: Steps, deadline: DeadlineSpec = GENEROUS) =>
      runInPlace(
        { documents: store.documents, credentials: store.credentials },
        { session: store.session, documentId, operation: 'test', deadline, plainInput: { tool, mapError: (error) => error } },
        steps,
      );

    async function expectProtectedUnchanged(): Promise<void> {
      const file = store.storedFile(documentId);
      expect(sha256(file)).toBe(before.sha);
      expect(() => qpdfCheck(file, user)).not.toThrow();
      // Still encrypted: qpdf --requires-password exits 0 exactly when a password is needed.
      expect(() => execFileSync('qpdf', ['--requires-password', file])).not.toThrow();
      expect(store.credentials.get(store.session.id, documentId, before.active)).toEqual({ password: user });
      expect(store.leftovers()).toEqual([]);
    }

    it('a correct step gets a decrypted input and its result the original protection back', async () => {
      await plainInPlace(async (tx, input) => {
        expect(() => execFileSync('qpdf', ['--requires-password', input.path])).toThrow();
        const output = tx.scratch.file('pdf');
        execFileSync('qpdf', [input.path, '--rotate=+90', output]);
        return { file: { path: output, type: PDF } };
      });
      const file = store.storedFile(documentId);
      expect(sha256(file)).not.toBe(before.sha);
      expect(() => execFileSync('qpdf', ['--requires-password', file])).not.toThrow();
      expect(() => qpdfCheck(file, user)).not.toThrow();
      expect(store.leftovers()).toEqual([]);
    });

    it('stays as it was when the step crashes after the decryption', async () => {
      const call = plainInPlace(async (tx, input) => {
        await partialWork(tx, input);
        throw new Error('engine crashed');
      });
      await expect(call).rejects.toThrow('engine crashed');
      await expectProtectedUnchanged();
    });

    it('stays as it was when the step hangs past the deadline', async () => {
      const call = plainInPlace(async () => {
        await run('sleep', ['600'], { tool: 'print' });
        throw new Error('not reached');
      }, ABORTING);
      await expect(call).rejects.toMatchObject({ definition: { errorCode: -93 } });
      await expectProtectedUnchanged();
    });

    it('stays as it was when the step writes garbage (the re-encryption refuses it)', async () => {
      const call = plainInPlace(async (tx) => {
        const output = tx.scratch.file('pdf');
        await writeFile(output, 'garbage');
        return { file: { path: output, type: PDF } };
      });
      await expect(call).rejects.toBeDefined();
      await expectProtectedUnchanged();
    });
  });

  describe('a new document', () => {
    it('is not created when its steps crash or write a wrong result', async () => {
      const documentsBefore = (await store.documents.list(store.session)).length;
      const asNew = (steps: (tx: Transaction) => Promise<StepsResult>) =>
        runAsNew({ documents: store.documents }, store.session, { operation: 'test', name: 'new.pdf', history: false, deadline: GENEROUS }, steps);
      await expect(
        asNew(async (tx) => {
          await writeFile(tx.scratch.file('pdf'), '%PDF-1.7\n');
          throw new Error('engine crashed');
        }),
      ).rejects.toThrow('engine crashed');
      await expect(
        asNew(async (tx) => {
          const output = tx.scratch.file('pdf');
          await writeFile(output, '%PDF-1.7\n1 0 obj\n<<');
          return { file: { path: output, type: PDF } };
        }),
      ).rejects.toMatchObject({ definition: { errorCode: -102 } });
      expect((await store.documents.list(store.session)).length).toBe(documentsBefore);
      expect(store.leftovers()).toEqual([]);
    });
  });
});
