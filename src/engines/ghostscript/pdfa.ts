import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';

/**
 * Ghostscript's PDF/A output (pdfwrite -dPDFA=N), with its traps avoided (docs/pdfa.md,
 * dependencies.md): our own prefix file, written per run with the ICC profile's absolute real path
 * (Ghostscript's lib/PDFA_def.ps names a relative `srgb.icc` and sets a /Title of "Title"); the real
 * path, not the iccprofiles/ symlink, is the one -dSAFER's --permit-file-read must name; and its exit
 * code is not trusted: "PDF/A processing aborted" comes with exit 0, so the diagnostics are read, and
 * the caller validates the result anyway.
 */

/** Where Debian's and upstream's Ghostscript install the sRGB profile (the first that exists is used). */
const SRGB_CANDIDATES = ['/usr/share/color/icc/ghostscript/srgb.icc', '/usr/share/ghostscript/iccprofiles/srgb.icc'];

/** The sRGB ICC profile Ghostscript ships, by its real path; undefined when none is installed. */
export function findSrgbProfile(candidates: readonly string[] = SRGB_CANDIDATES): string | undefined {
  for (const candidate of candidates) {
    if (existsSync(candidate)) return realpathSync(candidate);
  }
  // Versioned folders (/usr/share/ghostscript/10.00.0/iccprofiles) are looked at last.
  const share = '/usr/share/ghostscript';
  const versions = existsSync(share) ? readdirSync(share).sort().reverse() : [];
  for (const version of versions) {
    const file = `${share}/${version}/iccprofiles/srgb.icc`;
    if (existsSync(file)) return realpathSync(file);
  }
  return undefined;
}

export interface PdfaDistilOptions {
  /** ISO 19005 part: 1, 2 or 3. */
  part: 1 | 2 | 3;
  /** The sRGB profile's real path (findSrgbProfile). */
  iccProfile: string;
  /** Where the prefix file is written (the caller's scratch directory). */
  prefixFile: string;
  /** Quality of images pdfwrite re-encodes as JPEG, 1–100. */
  jpegQuality: number;
}

/** A PostScript string literal: backslash, parentheses escaped. */
function psString(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/** The prefix file: the ICC stream and an sRGB OutputIntent (S GTS_PDFA1, the one every part reads). */
export async function writePdfaPrefix(options: PdfaDistilOptions): Promise<void> {
  const text = [
    `/ICCProfile ${psString(options.iccProfile)} def`,
    '[/_objdef {icc_PDFA} /type /stream /OBJ pdfmark',
    '[{icc_PDFA} << /N 3 >> /PUT pdfmark',
    '[{icc_PDFA} ICCProfile (r) file /PUT pdfmark',
    '[/_objdef {OutputIntent_PDFA} /type /dict /OBJ pdfmark',
    '[{OutputIntent_PDFA} << /Type /OutputIntent /S /GTS_PDFA1 /DestOutputProfile {icc_PDFA} /OutputConditionIdentifier (sRGB IEC61966-2.1) /Info (sRGB IEC61966-2.1) /RegistryName (http://www.color.org) >> /PUT pdfmark',
    '[{Catalog} << /OutputIntents [ {OutputIntent_PDFA} ] >> /PUT pdfmark',
    // The JPEG quality of the images pdfwrite re-encodes: -dJPEGQ is the jpeg device's, pdfwrite reads
    // the quantisation factor of its image dictionaries (automatic and explicit DCT).
    `<< ${['ColorACSImageDict', 'GrayACSImageDict', 'ColorImageDict', 'GrayImageDict'].map((d) => `/${d} << /QFactor ${qFactor(options.jpegQuality)} /Blend 1 /HSamples [2 1 1 2] /VSamples [2 1 1 2] >>`).join(' ')} >> setdistillerparams`,
    '',
  ].join('\n');
  await writeFile(options.prefixFile, text, { mode: 0o600 });
}

/**
 * A JPEG quality (1–100, IJG's scale) as the DCT encoder's QFactor, the factor on the standard
 * quantisation tables: 50 → 1, 75 → 0.5, 95 → 0.1, 10 → 5.
 */
export function qFactor(quality: number): number {
  const q = Math.min(100, Math.max(1, Math.round(quality)));
  const scale = q < 50 ? 5000 / q : 200 - 2 * q;
  return Math.max(0.01, scale / 100);
}

/** pdfwrite's arguments for PDF/A part N: colours to RGB (the OutputIntent is sRGB), policy 1 (drop what cannot be kept, go on). */
export function pdfaArgs(input: string, output: string, options: PdfaDistilOptions): string[] {
  return [
    '-q',
    '-dSAFER',
    `--permit-file-read=${options.iccProfile}`,
    `--permit-file-read=${options.prefixFile}`,
    '-dBATCH',
    '-dNOPAUSE',
    '-sDEVICE=pdfwrite',
    `-dPDFA=${options.part}`,
    '-dPDFACompatibilityPolicy=1',
    '-sColorConversionStrategy=RGB',
    '-sProcessColorModel=DeviceRGB',
    `-dCompatibilityLevel=${options.part === 1 ? '1.4' : '1.7'}`,
    `-dJPEGQ=${Math.min(100, Math.max(1, Math.round(options.jpegQuality)))}`,
    `-sOutputFile=${output}`,
    options.prefixFile,
    input,
  ];
}

/** Ghostscript's words for a PDF/A run it gave up on (with exit 0). */
export function pdfaAborted(diagnostics: string): string | undefined {
  const line = diagnostics.split('\n').find((l) => /PDF\/A processing aborted|reverting to normal PDF output/i.test(l));
  return line?.trim();
}
