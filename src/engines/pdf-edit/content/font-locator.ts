import { readFile, stat } from 'node:fs/promises';
import { run } from '../../process/run.js';
import { PdfContentError } from './errors.js';
import { parseTrueType, type TrueTypeFont } from './truetype.js';

export interface FontRequest {
  /** Family name as the client gave it ("Arial", "DejaVu Serif"). */
  family: string;
  bold: boolean;
  italic: boolean;
}

export interface LocatedFont {
  font: TrueTypeFont;
  family: string;
  /** The face has the weight/slant asked for (else it is synthesised when drawing). */
  bold: boolean;
  italic: boolean;
}

export interface LocateOptions {
  /** Environment for fontconfig (FONTCONFIG_FILE with the data dir's fonts folder); default: the process's. */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** TrueType faces tried per request before giving up (fontconfig sorts the best matches first). */
const MAX_CANDIDATES = 40;
const CACHE_SIZE = 16;
const cache = new Map<string, Promise<TrueTypeFont | undefined>>();

/**
 * The installed TrueType face that best matches the request and has a glyph for every one of
 * `codePoints`: fontconfig's sorted list for the pattern (its own substitutions: Arial → Liberation
 * Sans, unknown names → the default sans), first face with TrueType outlines that covers the text.
 * Fonts with CFF outlines (.otf, the Noto CJK collections) cannot be embedded without a CFF
 * subsetter: they are skipped as substitutes, and asking for such a family by name is refused.
 * Nothing suitable → `unsupported`, naming the characters.
 */
export async function locateFont(request: FontRequest, codePoints: ReadonlySet<number>, options: LocateOptions = {}): Promise<LocatedFont> {
  const candidates = await sortedCandidates(request, options);
  // An installed family that exists only with CFF outlines is not silently replaced by another one.
  const wanted = request.family.trim().toLowerCase();
  const sameFamily = candidates.filter((c) => c.family.toLowerCase() === wanted);
  if (sameFamily.length > 0 && sameFamily.every((c) => c.format !== 'TrueType')) {
    throw new PdfContentError('unsupported', `the font "${sameFamily[0]!.family}" is installed only with CFF outlines (OpenType .otf), which cannot be embedded; choose a TrueType font.`, {
      member: 'name',
    });
  }
  let tried = 0;
  for (const candidate of candidates) {
    if (candidate.format !== 'TrueType') continue;
    if (++tried > MAX_CANDIDATES) break;
    const font = await loadFace(candidate.file, candidate.index);
    if (!font) continue;
    if (![...codePoints].every((cp) => font.glyphFor(cp) !== 0)) continue;
    return { font, family: candidate.family, bold: candidate.weight >= 180, italic: candidate.slant >= 100 };
  }
  const missing = [...codePoints]
    .filter((cp) => cp > 0x7e)
    .slice(0, 10)
    .map((cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
  throw new PdfContentError(
    'unsupported',
    `no installed TrueType font has glyphs for every character of the text${missing.length ? ` (e.g. ${missing.join(', ')})` : ''}; fonts with CFF outlines (OpenType .otf) cannot be embedded.`,
  );
}

interface Candidate {
  file: string;
  index: number;
  family: string;
  format: string;
  weight: number;
  slant: number;
}

async function sortedCandidates(request: FontRequest, options: LocateOptions): Promise<Candidate[]> {
  // Escape fontconfig's pattern syntax so that a name like "Foo:bold" stays a family name.
  const family = request.family.replace(/([\\:,=-])/g, '\\$1');
  const pattern = `${family}${request.bold ? ':bold' : ''}${request.italic ? ':italic' : ''}`;
  const result = await run('fc-match', ['-s', '--format', '%{file}\\t%{index}\\t%{family[0]}\\t%{fontformat}\\t%{weight}\\t%{slant}\\n', pattern], {
    env: options.env ?? process.env,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxOutputBytes: 4 * 1024 * 1024,
  });
  if (result.exitCode !== 0) throw new PdfContentError('unsupported', `fontconfig could not list fonts: ${result.stderr.trim().slice(0, 200)}`);
  const candidates: Candidate[] = [];
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const [file, index, name, format, weight, slant] = line.split('\t');
    if (!file || !name) continue;
    candidates.push({ file, index: Number(index) || 0, family: name, format: format ?? '', weight: Number(weight) || 0, slant: Number(slant) || 0 });
  }
  return candidates;
}

async function loadFace(file: string, index: number): Promise<TrueTypeFont | undefined> {
  let key: string;
  try {
    const info = await stat(file);
    key = `${file}#${index}#${info.mtimeMs}#${info.size}`;
  } catch {
    return undefined;
  }
  let entry = cache.get(key);
  if (!entry) {
    entry = readFile(file)
      .then((data) => parseTrueType(data, index, file))
      .catch(() => undefined);
    cache.set(key, entry);
    while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  return entry;
}
