import { copyFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QuireError } from '../../../src/core/errors.js';
import { Ghostscript } from '../../../src/engines/ghostscript/ghostscript.js';
import { findSrgbProfile } from '../../../src/engines/ghostscript/pdfa.js';
import { PdfRewriter } from '../../../src/engines/pdf/rewriter.js';
import { PdfaService } from '../../../src/operations/pdfa/pdfa-service.js';
import type { PdfaRequest } from '../../../src/operations/pdfa/pdfa.schema.js';
import { openTestStore, qpdfCheck, sha256, type TestStore } from '../transaction/store.js';
import { textImagePdf } from './inputs.js';

/**
 * The pdfa service on the document transaction, driven directly: with the real Ghostscript, qpdf and
 * validator, and with a faulty Ghostscript (garbage output, a hang past the deadline, a crash) for the
 * transaction's guarantee that a failed conversion leaves the document as it was, with no scratch
 * left behind.
 */

const convert = (level: string): PdfaRequest => ({ pdfa: { convert: { level, errorReport: 'none', successReport: 'none', imageQuality: 75, autoTagging: false } } }) as unknown as PdfaRequest;

describe('PdfaService', () => {
  let store: TestStore;
  let documentId: string;
  let before: string;

  beforeEach(async () => {
    store = await openTestStore();
    documentId = (await store.upload(await textImagePdf({ pages: 2 }), 'sample.pdf')).id;
    before = sha256(store.storedFile(documentId));
  });
  afterEach(() => store.close());

  function service(ghostscript: Pick<Ghostscript, 'pdfa'>, timeoutMs = 60_000): PdfaService {
    return new PdfaService(
      { documents: store.documents, credentials: store.credentials },
      { ghostscript: ghostscript as Ghostscript, rewriter: new PdfRewriter({ timeoutMs: 30_000 }), iccProfile: findSrgbProfile() },
      timeoutMs,
    );
  }

  async function expectUnchanged(): Promise<void> {
    const file = store.storedFile(documentId);
    expect(sha256(file)).toBe(before);
    expect(() => qpdfCheck(file)).not.toThrow();
    expect(store.documents.isLocked(await store.documents.info(store.session, documentId))).toBe(false);
    expect(store.leftovers()).toEqual([]);
  }

  it('with the real engines: the result is stored and says what the validator concluded', async () => {
    const { record, warnings } = await service(new Ghostscript()).run(store.session, documentId, convert('3b'), 'json');
    expect(record.id).toBe(documentId);
    expect(sha256(store.storedFile(documentId))).not.toBe(before);
    expect(() => qpdfCheck(store.storedFile(documentId))).not.toThrow();
    expect(warnings[0]).toMatch(/^PDF\/A-3b validation: (compliant|inconclusive)/);
    expect(store.leftovers()).toEqual([]);
  });

  it('Ghostscript writes garbage: the fix-ups cannot read it (-7), the document is unchanged', async () => {
    const call = service({ pdfa: async (_input, output) => (await writeFile(output, 'not a pdf'), '') }).run(store.session, documentId, convert('2b'), 'json');
    await expect(call).rejects.toMatchObject({ errorCode: -7 });
    await expectUnchanged();
  });

  it('Ghostscript crashes: the error passes, the document is unchanged', async () => {
    const call = service({
      pdfa: async () => {
        throw new Error('gs crashed');
      },
    }).run(store.session, documentId, convert('2b'), 'json');
    await expect(call).rejects.toThrow('gs crashed');
    await expectUnchanged();
  });

  it('Ghostscript returns the input untouched (fonts not embedded): never stored as compliant; once the validator checks fonts, not stored at all', async () => {
    const outcome = await service({ pdfa: async (input, output) => (await copyFile(input, output), '') })
      .run(store.session, documentId, convert('2b'), 'json')
      .catch((error: unknown) => error);
    if (outcome instanceof QuireError) {
      expect(outcome.errorCode).toBe(-170);
      expect(outcome.message).toMatch(/6\.2\.11\.4\.1-1/); // the font program is not embedded
      await expectUnchanged();
    } else {
      expect((outcome as { warnings: string[] }).warnings[0]).toMatch(/validation: inconclusive/);
    }
  });

  it('analyze never changes the document', async () => {
    const { record } = await service(new Ghostscript()).run(store.session, documentId, { pdfa: { analyze: { level: '1b' } } } as unknown as PdfaRequest, 'xml');
    expect(record.id).not.toBe(documentId);
    await expectUnchanged();
  });

  it('refuses convert and analyze together', async () => {
    const call = service(new Ghostscript()).run(store.session, documentId, { pdfa: { convert: {}, analyze: {} } } as unknown as PdfaRequest, 'json');
    await expect(call).rejects.toBeInstanceOf(QuireError);
    await expectUnchanged();
  });
});
