import { readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { syncDirectory, writeFileAtomic } from '../core/atomic-write.js';
import { buildConfig, ConfigError, type ConfigIssue } from './load.js';

/** One change of the configuration file: the key path (`['limits', 'user', 'maxFiles']`) and its new value; undefined removes the key (its default applies). */
export interface ConfigFileEdit {
  key: string[];
  value: unknown;
}

/** The configuration file's text; undefined when it does not exist yet. */
export async function readConfigText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The file's text with the edits applied. The YAML is edited as a document, so the operator's
 * comments, key order and every key the edits do not name stay as they were.
 */
export function editConfigText(text: string | undefined, edits: readonly ConfigFileEdit[]): string {
  const doc = YAML.parseDocument(text ?? '');
  if (doc.errors.length > 0) throw new Error(`the configuration file is not valid YAML: ${doc.errors[0]!.message}`);
  for (const edit of edits) {
    if (edit.value === undefined) doc.deleteIn(edit.key);
    else doc.setIn(edit.key, edit.value);
  }
  return doc.toString();
}

/**
 * The problems the loader would report for this file content on its own: defaults plus the file,
 * without environment overrides (so the file stays valid when an override is removed).
 */
export function checkConfigText(text: string): ConfigIssue[] {
  let parsed: unknown;
  try {
    parsed = YAML.parse(text);
  } catch (error) {
    return [{ key: '(file)', origin: '', message: `not valid YAML: ${(error as Error).message}` }];
  }
  if (parsed === null || parsed === undefined) parsed = {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) return [{ key: '(file)', origin: '', message: 'the top level must be a mapping of keys' }];
  try {
    buildConfig(parsed as Record<string, unknown>, { configFile: undefined, env: {}, cwd: process.cwd() });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
}

/**
 * Replaces the configuration file so that a reader (or a crash) sees the old or the new content,
 * never a part (core/atomic-write.ts; the directory is flushed too). The previous content is kept as
 * `<file>.bak` (written the same way). A new file gets mode 0600 (it holds password hashes); an
 * existing one keeps its mode.
 */
export async function writeConfigFile(file: string, text: string): Promise<{ backup: string | undefined }> {
  let mode = 0o600;
  let backup: string | undefined;
  try {
    mode = (await stat(file)).mode & 0o777;
    await writeFileAtomic(`${file}.bak`, await readFile(file), mode, { exactMode: true });
    backup = `${file}.bak`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await writeFileAtomic(file, text, mode, { durable: true, dirMode: 0o700 });
  return { backup };
}

/**
 * Undoes a `writeConfigFile`: the backup it made goes back in place (one rename), or the file it
 * created is removed.
 */
export async function restoreConfigFile(file: string, backup: string | undefined): Promise<void> {
  if (backup) await rename(backup, file);
  else await rm(file, { force: true });
  await syncDirectory(path.dirname(file));
}
