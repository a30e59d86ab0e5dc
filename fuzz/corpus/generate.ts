/**
 * Generates the larger part of the corpus at fuzz start, once per cache dir (not committed): the
 * committed PDFs rewritten by qpdf (object streams, QDF, linearized, encrypted, uncompressed),
 * Ghostscript and cairo output, LibreOffice PDFs and Office formats, pdf-lib documents (forms,
 * attachments, images, object streams), images in every accepted format and flavour (sharp,
 * ImageMagick when installed), ZIPs and e-mail variants. A missing tool only leaves its files out.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts, rgb } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { writeZip } from '../zip-format.js';

const run = promisify(execFile);

/** Bump when the generators change: the cache is made again. */
const GENERATION = 4;

type Log = (line: string) => void;

async function tool(log: Log, what: string, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    log(`corpus: ${what} skipped (${(error as Error).message.split('\n')[0]})`);
  }
}

function seedFiles(seedsDir: string, ext: string): string[] {
  return readdirSync(seedsDir)
    .filter((f) => f.endsWith(`.${ext}`))
    .sort()
    .map((f) => path.join(seedsDir, f));
}

async function qpdfVariants(out: string, seedsDir: string): Promise<void> {
  const variants: Record<string, string[]> = {
    objstm: ['--object-streams=generate'],
    qdf: ['--qdf', '--object-streams=disable'],
    linear: ['--linearize'],
    raw: ['--compress-streams=n', '--decode-level=generalized', '--object-streams=disable'],
    rc4: ['--encrypt', 'user', 'owner', '128', '--use-aes=n', '--'],
    aes: ['--encrypt', '', 'owner', '256', '--print=none', '--'],
  };
  for (const file of seedFiles(seedsDir, 'pdf')) {
    if (file.endsWith('encrypted.pdf')) continue;
    for (const [name, args] of Object.entries(variants)) {
      const target = path.join(out, `qpdf-${name}-${path.basename(file)}`);
      // qpdf exits 3 for warnings with a usable output; a variant it refuses is left out.
      await run('qpdf', ['--allow-weak-crypto', ...args, file, target]).catch(() => undefined);
    }
  }
}

async function ghostscript(out: string, seedsDir: string): Promise<void> {
  for (const file of [path.join(seedsDir, 'doc.ps'), path.join(seedsDir, 'outline.pdf'), path.join(seedsDir, 'image.pdf')]) {
    const target = path.join(out, `gs-${path.basename(file, path.extname(file))}.pdf`);
    await run('gs', ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', '-sDEVICE=pdfwrite', `-sOutputFile=${target}`, file], { timeout: 60_000 });
  }
  await run('gs', ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', '-sDEVICE=eps2write', `-sOutputFile=${path.join(out, 'gs-outline.eps')}`, path.join(seedsDir, 'outline.pdf')], { timeout: 60_000 });
}

async function cairo(out: string, seedsDir: string): Promise<void> {
  for (const name of ['outline', 'form', 'annotation']) {
    await run('pdftocairo', ['-pdf', path.join(seedsDir, `${name}.pdf`), path.join(out, `cairo-${name}.pdf`)], { timeout: 60_000 });
  }
  await run('pdftocairo', ['-svg', '-f', '1', '-l', '1', path.join(seedsDir, 'outline.pdf'), path.join(out, 'cairo-outline.svg')], { timeout: 60_000 });
}

async function libreOffice(out: string, root: string, seedsDir: string, scratch: string): Promise<void> {
  const profile = `file://${path.join(scratch, 'lo-profile')}`;
  const office = path.join(root, 'test/fixtures/office');
  // Unique base names: soffice names its output after the input (sample.docx and sample.xlsx would collide).
  const inputs: string[] = [];
  for (const file of [path.join(seedsDir, 'tiny.docx'), path.join(seedsDir, 'tiny.odt'), ...['sample.docx', 'sample.xlsx', 'sample.odp', 'sample.rtf'].map((f) => path.join(office, f))]) {
    if (!existsSync(file)) continue;
    const ext = path.extname(file);
    const copy = path.join(scratch, `${path.basename(file, ext)}-${ext.slice(1)}${ext}`);
    copyFileSync(file, copy);
    inputs.push(copy);
  }
  const convert = async (format: string, files: string[], prefix: string) => {
    const dir = path.join(scratch, `lo-${format}`);
    mkdirSync(dir, { recursive: true });
    await run('soffice', ['--headless', '--norestore', `-env:UserInstallation=${profile}`, '--convert-to', format, '--outdir', dir, ...files], { timeout: 180_000 });
    for (const file of readdirSync(dir)) renameSync(path.join(dir, file), path.join(out, `${prefix}-${file}`));
  };
  await convert('pdf', inputs, 'lo');
  await convert('odt', [path.join(seedsDir, 'tiny.docx')], 'lo');
  await convert('doc', [path.join(seedsDir, 'tiny.docx')], 'lo');
  await convert(
    'pptx',
    inputs.filter((f) => f.endsWith('.odp')),
    'lo',
  );
  await convert(
    'ods',
    inputs.filter((f) => f.endsWith('.xlsx')),
    'lo',
  );
}

async function pdfLib(out: string): Promise<void> {
  const png = await sharp({ create: { width: 16, height: 16, channels: 4, background: { r: 200, g: 0, b: 0, alpha: 0.5 } } })
    .png()
    .toBuffer();
  const jpg = await sharp({ create: { width: 16, height: 12, channels: 3, background: { r: 0, g: 90, b: 200 } } })
    .jpeg()
    .toBuffer();
  for (const useObjectStreams of [true, false]) {
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.setTitle('pdf-lib fuzz seed');
    doc.setCreationDate(new Date(0));
    doc.setModificationDate(new Date(0));
    const font = await doc.embedFont(StandardFonts.TimesRoman);
    const pngImage = await doc.embedPng(png);
    const jpgImage = await doc.embedJpg(jpg);
    for (let n = 1; n <= 12; n++) {
      const page = doc.addPage(n % 3 === 0 ? [842, 595] : [595, 842]);
      page.drawText(`pdf-lib page ${n}`, { x: 50, y: 500, size: 20, font, color: rgb(0, 0, 0) });
      page.drawImage(n % 2 ? pngImage : jpgImage, { x: 50, y: 200, width: 64, height: 48 });
      if (n % 4 === 0) page.setRotation({ type: 'degrees', angle: 90 } as never);
    }
    const form = doc.getForm();
    const first = doc.getPage(0);
    form.createTextField('pdflib.name').addToPage(first, { x: 50, y: 700, width: 200, height: 20 });
    form.createCheckBox('pdflib.check').addToPage(first, { x: 50, y: 660, width: 12, height: 12 });
    const dropdown = form.createDropdown('pdflib.choice');
    dropdown.addOptions(['a', 'b', 'c']);
    dropdown.addToPage(first, { x: 50, y: 620, width: 100, height: 20 });
    await doc.attach(Buffer.from('attachment from pdf-lib\n'), 'note.txt', { mimeType: 'text/plain', creationDate: new Date(0), modificationDate: new Date(0) });
    writeFileSync(path.join(out, `pdflib-${useObjectStreams ? 'objstm' : 'classic'}.pdf`), await doc.save({ useObjectStreams }));
  }
}

async function images(out: string): Promise<void> {
  const width = 64;
  const height = 48;
  const pixels = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) pixels.set([(i * 7) & 255, (i >> 3) & 255, (i * 13) & 255, i % 5 === 0 ? 0 : 255], i * 4);
  const image = () => sharp(pixels, { raw: { width, height, channels: 4 } });
  const grey = Buffer.from(Array.from({ length: width * height }, (_, i) => ((i * 7) % 256 > 128 ? 255 : 0)));
  // Made one after the other (a rejected encoder must not be left unawaited), each optional.
  const files: Record<string, () => Promise<Buffer>> = {
    'palette.png': () => image().png({ palette: true, colours: 16 }).toBuffer(),
    'deep.png': () => image().toColourspace('rgb16').png().toBuffer(),
    'interlaced.png': () => image().png({ progressive: true }).toBuffer(),
    'alpha.png': () => image().png().toBuffer(),
    'grey.png': () => image().greyscale().png().toBuffer(),
    'progressive.jpg': () => image().flatten().jpeg({ progressive: true, quality: 60 }).toBuffer(),
    'cmyk.jpg': () => image().flatten().toColourspace('cmyk').jpeg().toBuffer(),
    'oriented.jpg': () => image().flatten().jpeg().withMetadata({ orientation: 6 }).toBuffer(),
    'bilevel.tif': () =>
      sharp(grey, { raw: { width, height, channels: 1 } })
        .toColourspace('b-w')
        .tiff({ compression: 'ccittfax4', bitdepth: 1 })
        .toBuffer(),
    'jpeg.tif': () => image().flatten().tiff({ compression: 'jpeg' }).toBuffer(),
    'deflate.tif': () => image().tiff({ compression: 'deflate', predictor: 'horizontal' }).toBuffer(),
    'tiled.tif': () => image().tiff({ tile: true, tileWidth: 16, tileHeight: 16 }).toBuffer(),
    'lossy.webp': () => image().webp({ quality: 50 }).toBuffer(),
    'dither.gif': () => image().gif({ colours: 8, dither: 1 }).toBuffer(),
  };
  for (const [name, make] of Object.entries(files)) {
    const bytes = await make().catch(() => undefined);
    if (bytes) writeFileSync(path.join(out, `sharp-${name}`), bytes);
  }
}

async function imageMagick(out: string, seedsDir: string): Promise<void> {
  const png = path.join(seedsDir, 'tiny.png');
  const im = async (args: string[], name: string) => run('convert', [...args, path.join(out, `im-${name}`)], { timeout: 60_000 });
  await im([png, png, png, '-compress', 'LZW'], 'multipage.tif');
  await im(['-delay', '10', png, '-negate', png, '-loop', '0'], 'animated.gif');
  await im([png, '-compress', 'RLE', '-type', 'Palette'], 'rle8.bmp');
  await im([png], 'v5.bmp');
  await im([png, '-define', 'bmp:format=bmp3'], 'bmp3.bmp');
  await im([png, '-interlace', 'Plane', '-sampling-factor', '4:2:0'], 'plane.jpg');
}

function archives(out: string, seedsDir: string): void {
  const pdfs = seedFiles(seedsDir, 'pdf').map((file) => ({ name: path.basename(file), data: readFileSync(file) }));
  writeFileSync(path.join(out, 'zip-pdfs.zip'), writeZip(pdfs));
  const inner = writeZip([{ name: 'inner.pdf', data: pdfs[0]!.data }]);
  writeFileSync(
    path.join(out, 'zip-nested.zip'),
    writeZip([
      { name: 'inner.zip', data: inner, method: 'store' },
      { name: 'outer.pdf', data: pdfs[1]!.data },
    ]),
  );
  const many = Array.from({ length: 300 }, (_, i) => ({ name: `d${i % 7}/e${i % 3}/f${i}.txt`, data: Buffer.from(`entry ${i}\n`) }));
  writeFileSync(path.join(out, 'zip-many.zip'), writeZip(many));
  const mixed = seedFiles(seedsDir, 'png').concat(seedFiles(seedsDir, 'docx'), seedFiles(seedsDir, 'eml'));
  writeFileSync(path.join(out, 'zip-mixed.zip'), writeZip(mixed.map((file) => ({ name: `mixed/${path.basename(file)}`, data: readFileSync(file), method: 'store' as const }))));
}

function mails(out: string, seedsDir: string): void {
  const base = readFileSync(path.join(seedsDir, 'mail.eml'), 'utf8');
  const forwarded = [
    'From: fwd@example.test',
    'To: r@example.test',
    'Subject: Fwd: nested',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="fwd"',
    '',
    '--fwd',
    'Content-Type: text/plain',
    '',
    'see attached message',
    '--fwd',
    'Content-Type: message/rfc822',
    '',
    base,
    '--fwd--',
    '',
  ].join('\r\n');
  writeFileSync(path.join(out, 'mail-forwarded.eml'), forwarded);
  const related = [
    'From: rel@example.test',
    'Subject: =?UTF-8?B?R3LDvMOfZQ==?=',
    'MIME-Version: 1.0',
    'Content-Type: multipart/related; boundary="rel"',
    '',
    '--rel',
    'Content-Type: text/html; charset=iso-8859-1',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    '<p style=3D"color:red">Gr=FC=DFe <img src=3D"cid:a"><img src=3D"cid:b"></p>',
    ...['a', 'b'].flatMap((id) => ['--rel', 'Content-Type: image/gif', `Content-ID: <${id}>`, 'Content-Transfer-Encoding: base64', '', 'R0lGODlhAQABAAAAACw=', '']),
    '--rel--',
    '',
  ].join('\r\n');
  writeFileSync(path.join(out, 'mail-related.eml'), related);
}

/**
 * Makes the generated corpus in `cacheDir` unless it is there already (same GENERATION). Returns
 * the directory that holds the files.
 */
export async function ensureGeneratedCorpus(options: { cacheDir: string; root: string; seedsDir: string; log: Log }): Promise<string> {
  const cacheDir = path.resolve(options.cacheDir);
  const out = path.join(cacheDir, 'corpus');
  const stamp = path.join(cacheDir, 'corpus.generation');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === String(GENERATION)) return out;
  rmSync(out, { recursive: true, force: true });
  const scratch = path.join(cacheDir, 'scratch');
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  mkdirSync(scratch, { recursive: true });
  const { log } = options;
  const root = path.resolve(options.root);
  const seedsDir = path.resolve(options.seedsDir);
  log(`corpus: generating into ${out} (once; remove the directory to make it again)`);
  await tool(log, 'qpdf variants', () => qpdfVariants(out, seedsDir));
  await tool(log, 'Ghostscript', () => ghostscript(out, seedsDir));
  await tool(log, 'pdftocairo', () => cairo(out, seedsDir));
  await tool(log, 'LibreOffice', () => libreOffice(out, root, seedsDir, scratch));
  await tool(log, 'pdf-lib', () => pdfLib(out));
  await tool(log, 'sharp images', () => images(out));
  await tool(log, 'ImageMagick', () => imageMagick(out, seedsDir));
  await tool(log, 'archives', async () => archives(out, seedsDir));
  await tool(log, 'e-mail', async () => mails(out, seedsDir));
  rmSync(scratch, { recursive: true, force: true });
  writeFileSync(stamp, `${GENERATION}\n`);
  log(`corpus: ${readdirSync(out).length} files generated`);
  return out;
}
