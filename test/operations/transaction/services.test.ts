import { execFileSync } from 'node:child_process';
import { copyFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QuireError } from '../../../src/core/errors.js';
import { fileTypeByKey } from '../../../src/core/file-types.js';
import { PdfRewriter } from '../../../src/engines/pdf/rewriter.js';
import { run } from '../../../src/engines/process/run.js';
import { ConverterService, type ConverterEngines, type ConverterRequest } from '../../../src/operations/converter/converter-service.js';
import type { ConversionStep } from '../../../src/operations/converter/steps.js';
import type { ToolboxEngines } from '../../../src/operations/toolbox/engines.js';
import type { ToolboxOperation } from '../../../src/operations/toolbox/operation.js';
import { ToolboxService, type ToolboxRegistry } from '../../../src/operations/toolbox/toolbox-service.js';
import type { Transaction } from '../../../src/operations/transaction/document-transaction.js';
import { openTestStore, qpdfCheck, samplePdf, sha256, type TestStore } from './store.js';

const PDF = fileTypeByKey('pdf');

/**
 * The converter and the toolbox on the document transaction, each with one faulty fake where an
 * engine would be: the converter's nested `pdfa` step (the hook the PDF/A service will fill) and a
 * toolbox operation. The rest is real (qpdf decrypts, repairs and rewrites; the store commits).
 */
describe('services on the transaction, with a faulty engine', () => {
  let store: TestStore;
  let documentId: string;
  let before: string;

  beforeEach(async () => {
    store = await openTestStore();
    documentId = (await store.upload(samplePdf(store.dataDir), 'sample.pdf')).id;
    before = sha256(store.storedFile(documentId));
  });
  afterEach(() => store.close());

  async function expectUnchanged(): Promise<void> {
    const file = store.storedFile(documentId);
    expect(sha256(file)).toBe(before);
    expect(() => qpdfCheck(file)).not.toThrow();
    expect(store.documents.isLocked(await store.documents.info(store.session, documentId))).toBe(false);
    expect(store.leftovers()).toEqual([]);
  }

  describe('converter: its nested pdfa step', () => {
    // The members the schema's defaults fill in for a call that sends only `pdfa` (as the route's validation does).
    const request = {
      converter: { pages: '', embedFonts: false, compression: true, reduceResolution: false, dpi: 300, jpegQuality: 90, accessPassword: '', pdfa: { convert: { level: '2b' } } },
    } as unknown as ConverterRequest;

    function converter(step: ConversionStep['run'], timeoutMs = 60_000): ConverterService {
      const engines = { renderers: {}, rewriter: new PdfRewriter({ timeoutMs: 30_000 }) } as unknown as ConverterEngines;
      return new ConverterService({ documents: store.documents, credentials: store.credentials }, engines, { timeoutMs, steps: { pdfa: { run: step } } });
    }

    it("a correct step runs inside the converter's transaction and its result is stored", async () => {
      let seen: Transaction | undefined;
      await converter(async (input, output, _options, tx) => {
        seen = tx;
        execFileSync('qpdf', [input, '--rotate=+90', output]);
      }).convert(store.session, documentId, request);
      expect(seen?.documentId).toBe(documentId);
      const file = store.storedFile(documentId);
      expect(sha256(file)).not.toBe(before);
      expect(() => qpdfCheck(file)).not.toThrow();
      expect(store.leftovers()).toEqual([]);
    });

    it('hangs: killed at converter.timeout (-93), the document as it was', async () => {
      const call = converter(async (input, output) => {
        await copyFile(input, output);
        await run('sleep', ['600'], { tool: 'print' });
      }, 500).convert(store.session, documentId, request);
      await expect(call).rejects.toMatchObject({ definition: { errorCode: -93 }, message: expect.stringContaining('converter.timeout') });
      await expectUnchanged();
    });

    it('crashes: the error passes, the document as it was', async () => {
      const call = converter(async (input, output) => {
        await copyFile(input, output);
        throw new Error('pdfa engine crashed');
      }).convert(store.session, documentId, request);
      await expect(call).rejects.toThrow('pdfa engine crashed');
      await expectUnchanged();
    });

    it('writes a wrong result: refused (-102), the document as it was', async () => {
      const call = converter(async (_input, output) => {
        await writeFile(output, 'PDF/A validation report: 0 errors\n');
      }).convert(store.session, documentId, request);
      await expect(call).rejects.toMatchObject({ definition: { errorCode: -102 } });
      await expectUnchanged();
    });
  });

  describe('toolbox: one of its operations', () => {
    function toolbox(run: ToolboxOperation['run'], timeoutMs = 60_000): ToolboxService {
      const engines = { rewriter: new PdfRewriter({ timeoutMs: 30_000 }) } as unknown as ToolboxEngines;
      const operations = { rotate: async () => ({ name: 'rotate', needsPdf: true, run }) } as unknown as ToolboxRegistry;
      return new ToolboxService({ documents: store.documents, credentials: store.credentials }, engines, operations, timeoutMs);
    }
    const call = (service: ToolboxService) => service.run(store.session, documentId, { toolbox: [{ rotate: {} }] });

    it('a correct operation changes the document', async () => {
      await call(
        toolbox(async (input, _options, context) => {
          const output = context.scratch('pdf');
          execFileSync('qpdf', [input.path, '--rotate=+90', output]);
          return { path: output, type: PDF };
        }),
      );
      expect(sha256(store.storedFile(documentId))).not.toBe(before);
      expect(store.leftovers()).toEqual([]);
    });

    it("hangs: its tool is stopped at the call's deadline, the document as it was", async () => {
      const service = toolbox(async (input, _options, context) => {
        await copyFile(input.path, context.scratch('pdf'));
        // As every toolbox tool: the call's deadline is the process's time limit.
        const result = await run('sleep', ['600'], { timeoutMs: Math.max(1, context.deadline - Date.now()) });
        if (result.timedOut) throw new QuireError('PROCESSING_TIMEOUT', 'the fake tool ran out of time');
        return input;
      }, 500);
      await expect(call(service)).rejects.toMatchObject({ definition: { errorCode: -93 } });
      await expectUnchanged();
    });

    it('crashes (its child killed by SIGKILL): the document as it was', async () => {
      const service = toolbox(async (input, _options, context) => {
        const output = context.scratch('pdf');
        const result = await run('sh', ['-c', `head -c 300 "$1" > "$2"; kill -KILL $$`, 'sh', input.path, output]);
        if (result.signal) throw new Error(`the fake tool died by ${result.signal}`);
        return { path: output, type: PDF };
      });
      await expect(call(service)).rejects.toThrow('the fake tool died by SIGKILL');
      await expectUnchanged();
    });

    it('writes a truncated PDF: refused (-102), the document as it was', async () => {
      const service = toolbox(async (input, _options, context) => {
        const output = context.scratch('pdf');
        execFileSync('sh', ['-c', `head -c 300 "$1" > "$2"`, 'sh', input.path, output]);
        return { path: output, type: PDF };
      });
      await expect(call(service)).rejects.toMatchObject({ definition: { errorCode: -102 } });
      await expectUnchanged();
    });
  });
});
