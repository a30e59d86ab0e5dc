/**
 * The seed corpus: the committed seeds (test/fixtures/fuzz/seeds), the other test fixtures, and the
 * files generated at fuzz start into the cache dir. Seeds are sorted by name so that a run seed picks
 * the same files on the same corpus.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export type SeedKind = 'pdf' | 'office' | 'image' | 'zip' | 'xfdf' | 'xmp' | 'mail' | 'html' | 'svg' | 'text' | 'ps';

export interface Seed {
  /** Where it came from: seeds/…, fixtures/…, gen/… */
  name: string;
  kind: SeedKind;
  /** File extension without the dot (upload names keep it: detection may use it). */
  ext: string;
  bytes: Buffer;
}

const KIND_BY_EXT: Record<string, SeedKind> = {
  pdf: 'pdf',
  doc: 'office',
  docx: 'office',
  odt: 'office',
  rtf: 'office',
  xls: 'office',
  xlsx: 'office',
  ods: 'office',
  csv: 'office',
  ppt: 'office',
  pptx: 'office',
  odp: 'office',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  bmp: 'image',
  tif: 'image',
  tiff: 'image',
  webp: 'image',
  zip: 'zip',
  xfdf: 'xfdf',
  fdf: 'xfdf',
  xmp: 'xmp',
  eml: 'mail',
  msg: 'mail',
  html: 'html',
  htm: 'html',
  svg: 'svg',
  txt: 'text',
  json: 'text',
  md: 'text',
  xml: 'text',
  ps: 'ps',
  eps: 'ps',
};

/** Seeds larger than this are left out: mutation cost grows with size, and bugs do not need bulk. */
const MAX_SEED_BYTES = 2 * 1024 * 1024;

export function kindOf(fileName: string): { kind: SeedKind; ext: string } | undefined {
  const ext = path.extname(fileName).slice(1).toLowerCase();
  const kind = KIND_BY_EXT[ext];
  return kind ? { kind, ext } : undefined;
}

function walk(dir: string, skip: (full: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (skip(full)) continue;
    if (entry.isDirectory()) out.push(...walk(full, skip));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** The seeds of a directory, named `<label>/<relative path>`. */
export function loadSeedDir(dir: string, label: string, skip: (full: string) => boolean = () => false): Seed[] {
  const seeds: Seed[] = [];
  for (const file of walk(dir, skip)) {
    const kind = kindOf(file);
    if (!kind || statSync(file).size > MAX_SEED_BYTES) continue;
    seeds.push({ name: `${label}/${path.relative(dir, file).split(path.sep).join('/')}`, ...kind, bytes: readFileSync(file) });
  }
  return seeds.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Named files (for the slice: an explicit list keeps its case list stable when fixtures are added). */
export function loadSeedFiles(root: string, files: string[], label: string): Seed[] {
  return files.map((file) => {
    const kind = kindOf(file);
    if (!kind) throw new Error(`unknown seed type: ${file}`);
    return { name: `${label}/${file}`, ...kind, bytes: readFileSync(path.join(root, file)) };
  });
}

export class Corpus {
  readonly byKind = new Map<SeedKind, Seed[]>();

  constructor(readonly seeds: Seed[]) {
    if (seeds.length === 0) throw new Error('the seed corpus is empty');
    for (const seed of seeds) {
      const list = this.byKind.get(seed.kind) ?? [];
      list.push(seed);
      this.byKind.set(seed.kind, list);
    }
  }

  kinds(): SeedKind[] {
    return [...this.byKind.keys()].sort();
  }

  of(kind: SeedKind): Seed[] {
    return this.byKind.get(kind) ?? [];
  }

  named(name: string): Seed | undefined {
    return this.seeds.find((s) => s.name === name);
  }

  summary(): string {
    return this.kinds()
      .map((k) => `${k} ${this.of(k).length}`)
      .join(', ');
  }
}
