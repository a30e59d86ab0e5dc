/**
 * Writes the committed seed set, test/fixtures/fuzz/seeds/ (tiny files only). Run it again after
 * changing a seed definition:
 *
 *   node --import tsx fuzz/corpus/write-seeds.ts
 *
 * qpdf makes the object-stream and encrypted variants (with its static-id/IV test options, so that
 * the bytes do not change between runs).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { annotationPdf, attachmentPdf, formPdf, imagePdf, incrementalPdf, minimalPdf, outlinePdf } from './pdf-seeds.js';
import { archiveSeeds, imageSeeds, officeSeeds, textSeeds } from './other-seeds.js';

export const SEEDS_DIR = fileURLToPath(new URL('../../test/fixtures/fuzz/seeds/', import.meta.url));

function qpdfVariant(input: Buffer, args: string[]): Buffer {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-fuzz-seed-'));
  try {
    writeFileSync(path.join(dir, 'in.pdf'), input);
    execFileSync('qpdf', ['--static-id', '--static-aes-iv', ...args, path.join(dir, 'in.pdf'), path.join(dir, 'out.pdf')]);
    return readFileSync(path.join(dir, 'out.pdf'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const pdfs: Record<string, Buffer> = {
    'minimal.pdf': minimalPdf(),
    'outline.pdf': outlinePdf(),
    'attachment.pdf': attachmentPdf(),
    'form.pdf': formPdf(),
    'image.pdf': imagePdf(),
    'annotation.pdf': annotationPdf(),
    'incremental.pdf': incrementalPdf(),
  };
  pdfs['objstm.pdf'] = qpdfVariant(pdfs['outline.pdf']!, ['--object-streams=generate']);
  pdfs['encrypted.pdf'] = qpdfVariant(pdfs['minimal.pdf']!, ['--encrypt', '', 'owner', '256', '--']);
  const files = { ...pdfs, ...(await imageSeeds()), ...officeSeeds(), ...textSeeds(), ...archiveSeeds() };
  mkdirSync(SEEDS_DIR, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) {
    writeFileSync(path.join(SEEDS_DIR, name), bytes);
    process.stdout.write(`${name.padEnd(20)} ${bytes.length} bytes\n`);
  }
}

await main();
