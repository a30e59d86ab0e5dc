import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CleanInputTool, readsCleanly } from '../../../src/engines/barcode/clean-input.js';
import { PdfRewriter } from '../../../src/engines/pdf/rewriter.js';
import { buildPdf, documentObjects, kidsCyclePdf, lyingCountPdf, sharedNodePdf } from '../../helpers/hostile-pdf.js';
import { scratchDir } from '../../helpers/pdf-tools.js';

/**
 * The barcode transaction's PDF tool: a clean file is used as it is without qpdf; every file qpdf
 * would repair (a lying /Count, an irregular tree, wrong xref offsets) still goes to qpdf, whose
 * repaired copy is then checked with qpdf itself.
 */

const scratch = scratchDir('barcode-clean-input');
afterAll(() => scratch.remove());

/** The real qpdf rewriter, counting how often `repaired` reached it. */
function countingTool(): { tool: CleanInputTool; qpdfCalls: () => number } {
  const rewriter = new PdfRewriter({ timeoutMs: 30_000 });
  let calls = 0;
  const counted = {
    isEncrypted: rewriter.isEncrypted.bind(rewriter),
    decrypt: rewriter.decrypt.bind(rewriter),
    copyEncryption: rewriter.copyEncryption.bind(rewriter),
    repaired: (input: string, output: string, options?: { deadline?: number }) => {
      calls++;
      return rewriter.repaired(input, output, options);
    },
  };
  return { tool: new CleanInputTool(counted), qpdfCalls: () => calls };
}

function write(name: string, bytes: Buffer): string {
  const file = scratch.file(name);
  writeFileSync(file, bytes);
  return file;
}

describe('CleanInputTool', () => {
  it('uses a clean file as it is, without qpdf', async () => {
    const input = write('clean.pdf', buildPdf(documentObjects({ pages: 3 })));
    const { tool, qpdfCalls } = countingTool();
    const output = scratch.file('clean-out.pdf');
    expect(await tool.repaired(input, output)).toBe(input);
    expect(qpdfCalls()).toBe(0);
    expect(existsSync(output)).toBe(false);
  });

  it('hands a root with a lying /Count to qpdf, which writes the real count', async () => {
    const input = write('lying.pdf', lyingCountPdf(5, 2));
    expect(await readsCleanly(input)).toBe(false);
    const { tool, qpdfCalls } = countingTool();
    const output = scratch.file('lying-out.pdf');
    const result = await tool.repaired(input, output);
    expect(qpdfCalls()).toBe(1);
    expect(result).toBe(output);
    expect(execFileSync('qpdf', ['--show-npages', result], { encoding: 'utf8' }).trim()).toBe('2');
  });

  it('leaves irregular page trees to qpdf', async () => {
    expect(await readsCleanly(write('kids-cycle.pdf', kidsCyclePdf()))).toBe(false);
    expect(await readsCleanly(write('shared-node.pdf', sharedNodePdf()))).toBe(false);
  });

  it('leaves a file whose cross-reference offsets are wrong to qpdf', async () => {
    const good = buildPdf(documentObjects({ pages: 2 }));
    // A comment line more after the header: every offset in the table points into the bytes before its object.
    const shifted = Buffer.concat([good.subarray(0, 9), Buffer.from('%% a comment line of forty bytes here\n'), good.subarray(9)]);
    const input = write('shifted.pdf', shifted);
    expect(await readsCleanly(input)).toBe(false);
    const { tool, qpdfCalls } = countingTool();
    await tool.repaired(input, scratch.file('shifted-out.pdf'));
    expect(qpdfCalls()).toBe(1);
  });
});
