import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/** A directory of its own for one test file (quire-<prefix>-…): made now, removed after the file's tests. */
export function useTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `quire-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
