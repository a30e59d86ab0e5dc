import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../config/load.js';
import { QuireError } from '../../core/errors.js';
import { detectFormat } from '../../engines/format/detect-format.js';

/** Reference `Admin_FileGroupDataStore`. */
export const DATASTORE_GROUPS = ['generic', 'theme', 'logo', 'background'] as const;
export type DataStoreGroup = (typeof DATASTORE_GROUPS)[number];

/** One file of the data store. `name` is set for the `generic` group only. */
export interface DataStoreEntry {
  group: DataStoreGroup;
  name?: string;
  content: Buffer;
}

export interface DataStoreDeps {
  dataDir: string;
  config: Pick<Config, 'datastore'>;
}

/** What a logo or background may be: formats every browser shows (detected from the content). */
const IMAGE_TYPES: ReadonlySet<string> = new Set(['png', 'jpeg', 'gif', 'webp', 'bmp', 'svg']);
/** A generic file's name is a plain file name we can use on disk as it is: never a path, never hidden. */
const GENERIC_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** The reference's default `fileName` of a generic file. */
const DEFAULT_GENERIC_NAME = 'unknown.txt';
/** Where the single-file groups (theme, logo, background) keep their file inside their folder. */
const SINGLE_FILE = 'content';
/** Prefix of files being written; a leading dot keeps them apart from every valid generic name. */
const STAGED_PREFIX = '.staged-';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const DEFAULT_LOGO = readFileSync(fileURLToPath(new URL('../../../resources/default-logo.svg', import.meta.url)));

/**
 * The administration's file data store (reference §11.3): a theme, a logo, a background image and
 * generic named files, kept under `<dataDir>/datastore/<group>/`. Files are at most
 * `datastore.maxFileSize` bytes and checked against their group from their content. A write goes to
 * a staged file that is checked, flushed and renamed into place, so a reader sees the old or the new
 * file, never a part; without a stored logo the built-in default is answered.
 */
export class DataStore {
  private readonly root: string;

  private constructor(private readonly deps: DataStoreDeps) {
    this.root = path.join(deps.dataDir, 'datastore');
  }

  static async open(deps: DataStoreDeps): Promise<DataStore> {
    const store = new DataStore(deps);
    for (const group of DATASTORE_GROUPS) {
      const dir = store.groupDir(group);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      // Writes cut short by a crash leave staged files behind; nothing refers to them.
      for (const name of await readdir(dir)) {
        if (name.startsWith(STAGED_PREFIX)) await rm(path.join(dir, name), { force: true });
      }
    }
    return store;
  }

  /** The stored file; for `logo` the built-in default, for `theme`/`background` empty content, when none is stored. */
  async read(group: DataStoreGroup, name?: string): Promise<DataStoreEntry> {
    const file = this.fileOf(group, name);
    try {
      return { group, ...(group === 'generic' ? { name: name! } : {}), content: await readFile(file) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (group === 'generic') throw new QuireError('DATASTORE_NOT_FOUND', `The data store has no generic file "${name}".`);
    return { group, content: group === 'logo' ? DEFAULT_LOGO : Buffer.alloc(0) };
  }

  /** Stores `base64Content` for the group (a generic file under `name`, default unknown.txt) and returns the stored entry. */
  async write(group: DataStoreGroup, base64Content: string, name?: string): Promise<DataStoreEntry> {
    const fileName = group === 'generic' ? (name === undefined || name === '' ? DEFAULT_GENERIC_NAME : name) : undefined;
    const target = this.fileOf(group, fileName);
    const content = this.decode(base64Content);
    const staged = path.join(path.dirname(target), `${STAGED_PREFIX}${randomBytes(8).toString('hex')}`);
    const handle = await open(staged, 'w', 0o600);
    try {
      try {
        await handle.writeFile(content);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await checkContent(group, staged, content);
      await rename(staged, target);
    } catch (error) {
      await rm(staged, { force: true });
      throw error;
    }
    return { group, ...(fileName === undefined ? {} : { name: fileName }), content };
  }

  /** Removes the group's file (a logo falls back to the default). A generic file that does not exist is an error. */
  async delete(group: DataStoreGroup, name?: string): Promise<void> {
    const file = this.fileOf(group, name);
    if (group === 'generic') {
      try {
        await rm(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new QuireError('DATASTORE_NOT_FOUND', `The data store has no generic file "${name}".`);
        throw error;
      }
      return;
    }
    await rm(file, { force: true });
  }

  private groupDir(group: DataStoreGroup): string {
    return path.join(this.root, group);
  }

  /** The file on disk; a generic name is used only when it is a safe plain name (no separators, no dot files). */
  private fileOf(group: DataStoreGroup, name: string | undefined): string {
    if (group !== 'generic') return path.join(this.groupDir(group), SINGLE_FILE);
    if (name === undefined || !GENERIC_NAME.test(name)) {
      throw new QuireError('DATASTORE_NAME_INVALID', `A generic data-store file needs a name of letters, digits, ".", "-" and "_" (got "${(name ?? '').slice(0, 64)}").`);
    }
    return path.join(this.groupDir(group), name);
  }

  /** Base64 → bytes, refusing what is not Base64 and what would exceed the size limit before decoding it. */
  private decode(base64: string): Buffer {
    const compact = base64.replace(/\s+/g, '');
    if (compact.length % 4 !== 0 || !BASE64.test(compact)) {
      throw new QuireError('DATASTORE_WRONG_TYPE', 'fileContent is not Base64-encoded data.');
    }
    const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
    const size = (compact.length / 4) * 3 - padding;
    const limit = this.deps.config.datastore.maxFileSize;
    if (size > limit) {
      throw new QuireError('DATASTORE_FILE_TOO_LARGE', `The file has ${size} bytes; the data store takes files of at most ${limit} bytes.`);
    }
    return Buffer.from(compact, 'base64');
  }
}

/** Refuses content that does not suit the group: images for logo/background, a JSON object or CSS for a theme. */
async function checkContent(group: DataStoreGroup, file: string, content: Buffer): Promise<void> {
  if (group === 'generic') return;
  if (group === 'theme') {
    if (!isTheme(content)) throw new QuireError('DATASTORE_WRONG_TYPE', 'A theme must be a JSON object or a CSS style sheet in UTF-8.');
    return;
  }
  const type = await detectFormat(file);
  if (!IMAGE_TYPES.has(type.key)) {
    throw new QuireError('DATASTORE_WRONG_TYPE', `A ${group} must be a PNG, JPEG, GIF, WebP, BMP or SVG image; this file is ${type.key === 'unknown' ? 'of an unknown type' : type.key}.`);
  }
}

/**
 * CSS has a rule (`selector { ... }`) or starts with an at-rule (`@import ...;`). Checked with
 * indexOf rather than a regular expression: the text may be megabytes long.
 */
function looksLikeCss(text: string): boolean {
  if (text.startsWith('@')) return true;
  const open = text.indexOf('{');
  return open > 0 && /[^\s{}]/.test(text.slice(0, open)) && text.indexOf('}', open) > open;
}

function isTheme(content: Buffer): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(content).trim();
  } catch {
    return false;
  }
  // Controls other than tab, line feed, form feed and carriage return mean binary data.
  if (text === '' || /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text) || text.startsWith('<')) return false;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return looksLikeCss(text);
  }
}
