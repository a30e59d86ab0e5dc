import { run } from '../process/run.js';

export interface FontCheck {
  /** Requested families that are installed. */
  installed: string[];
  /** Not installed, replaced by a metric-compatible font (e.g. Calibri → Carlito): the layout stays. */
  aliased: { font: string; replacement: string }[];
  /** Not installed and without a metric-compatible replacement: line breaks and page count may change. */
  missing: { font: string; replacement: string }[];
}

/**
 * Replacements with the same character widths (the fonts Debian ships for that purpose): a document
 * set in the original lays out identically. fontconfig's other substitutions (any sans for a sans)
 * do not keep the layout, so they count as missing fonts.
 */
const METRIC_COMPATIBLE = new Map<string, string[]>([
  ['arial', ['liberation sans']],
  ['helvetica', ['liberation sans']],
  ['arial narrow', ['liberation sans narrow']],
  ['times new roman', ['liberation serif']],
  ['times', ['liberation serif']],
  ['courier new', ['liberation mono']],
  ['courier', ['liberation mono']],
  ['calibri', ['carlito']],
  ['cambria', ['caladea']],
]);

/**
 * What fontconfig (and so LibreOffice and Chromium) has: the installed families, and what a
 * missing family is replaced with. Uses the engines' fontconfig file, so the data dir's fonts
 * folder counts; the family list is cached until `invalidate()` (the fonts folder changed).
 */
export class FontInventory {
  private families?: Promise<Set<string>>;

  constructor(private readonly env: Record<string, string>) {}

  invalidate(): void {
    this.families = undefined;
  }

  async check(requested: readonly string[]): Promise<FontCheck> {
    const families = await (this.families ??= this.listFamilies());
    const result: FontCheck = { installed: [], aliased: [], missing: [] };
    for (const font of requested) {
      if (families.has(font.toLowerCase())) {
        result.installed.push(font);
        continue;
      }
      const replacement = await this.match(font);
      const compatible = METRIC_COMPATIBLE.get(font.toLowerCase())?.includes(replacement.toLowerCase()) ?? false;
      (compatible ? result.aliased : result.missing).push({ font, replacement });
    }
    return result;
  }

  private async listFamilies(): Promise<Set<string>> {
    const result = await run('fc-list', ['--format', '%{family}\\n'], { env: { ...process.env, ...this.env }, timeoutMs: 30_000, maxOutputBytes: 8 * 1024 * 1024 });
    const families = new Set<string>();
    // A font lists all its family names separated by commas ("DejaVu Sans,DejaVu Sans Condensed").
    for (const line of result.stdout.toString('utf8').split('\n')) {
      for (const name of line.split(',')) if (name.trim()) families.add(name.trim().toLowerCase());
    }
    return families;
  }

  private async match(font: string): Promise<string> {
    // Escape fontconfig's pattern syntax, so that "Arial:bold" or "-x" stay family names.
    const pattern = font.replace(/([\\:,=-])/g, '\\$1');
    const result = await run('fc-match', ['--format', '%{family[0]}', pattern], { env: { ...process.env, ...this.env }, timeoutMs: 10_000 });
    return result.stdout.toString('utf8').trim();
  }
}
