import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Barcode readers independent of the server's (zxing-wasm, the C++ ZXing): zbarimg (zbar-tools) for
 * the linear codes and QR, Java ZXing (Debian's libzxing-javase-java, a separate implementation) for
 * Aztec, DataMatrix and PDF417, which zbar does not read. And page rendering with poppler's pdftoppm.
 */

const ZXING_CLASSPATH = ['/usr/share/java/javase.jar', '/usr/share/java/core.jar', '/usr/share/java/jcommander.jar'];
export const javaZxingAvailable = ZXING_CLASSPATH.every((jar) => existsSync(jar));

/** zbarimg's findings as `TYPE:value` lines (UPC-A reported as such); [] when it finds nothing. */
export function zbar(png: string): string[] {
  try {
    const out = execFileSync('zbarimg', ['-q', '--set', 'upca.enable=1', '--set', 'ean13.enable=1', png], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out.split('\n').filter((line) => line !== '');
  } catch (error) {
    // Exit status 4: no symbol found.
    if ((error as { status?: number }).status === 4) return [];
    throw error;
  }
}

/** Java ZXing's first finding in an image: its format (QR_CODE, AZTEC, DATA_MATRIX, PDF_417, …) and raw text. */
export function javaZxing(png: string): { format: string; text: string } | undefined {
  const out = execFileSync('java', ['-cp', ZXING_CLASSPATH.join(':'), 'com.google.zxing.client.j2se.CommandLineRunner', '--try_harder', png], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const match = /\(format: ([A-Z0-9_]+),[^)]*\):\nRaw result:\n([\s\S]*?)\nParsed result:/.exec(out);
  return match ? { format: match[1]!, text: match[2]! } : undefined;
}

/** A box of a page in points from the top-left of the page as displayed. */
export interface PointBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Renders one page (or only `box` of it, grown by `pad` points) to a PNG with pdftoppm at `dpi`. */
export function renderPage(pdf: string, page: number, outBase: string, options: { dpi?: number; box?: PointBox; pad?: number } = {}): string {
  const dpi = options.dpi ?? 200;
  const args = ['-r', String(dpi), '-f', String(page), '-l', String(page), '-png', '-singlefile'];
  if (options.box) {
    const scale = dpi / 72;
    const pad = options.pad ?? 0;
    const x = Math.max(0, Math.floor((options.box.x - pad) * scale));
    const y = Math.max(0, Math.floor((options.box.y - pad) * scale));
    args.push('-x', String(x), '-y', String(y), '-W', String(Math.ceil((options.box.width + 2 * pad) * scale)), '-H', String(Math.ceil((options.box.height + 2 * pad) * scale)));
  }
  execFileSync('pdftoppm', [...args, pdf, outBase]);
  return `${outBase}.png`;
}

export const MM = 72 / 25.4;

/** Page `n`'s size in millimetres (one decimal), from pdfinfo. */
export function pageSizeMm(file: string, n: number): [number, number] {
  const info = execFileSync('pdfinfo', ['-f', String(n), '-l', String(n), file], { encoding: 'utf8' });
  const [, width, height] = new RegExp(`^Page\\s+${n} size:\\s+([\\d.]+) x ([\\d.]+) pts`, 'm').exec(info) ?? [];
  return [Math.round((Number(width) / MM) * 10) / 10, Math.round((Number(height) / MM) * 10) / 10];
}
