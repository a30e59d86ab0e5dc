import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The import rule of docs/ARCHITECTURE.md: which top-level folder of src/ may import which. */
const ALLOWED: Record<string, string[]> = {
  core: ['core'],
  config: ['core', 'config'],
  observability: ['core', 'config', 'observability'],
  storage: ['core', 'config', 'storage'],
  auth: ['core', 'config', 'storage', 'auth'],
  sessions: ['core', 'config', 'auth', 'storage', 'sessions'],
  engines: ['core', 'config', 'engines'],
  operations: ['core', 'config', 'observability', 'engines', 'storage', 'auth', 'sessions', 'operations'],
  http: ['core', 'config', 'observability', 'operations', 'sessions', 'storage', 'http', 'version.ts'],
};

const SRC = path.resolve(import.meta.dirname, '../src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe('layering', () => {
  it('every import follows the rule of docs/ARCHITECTURE.md', () => {
    const violations: string[] = [];
    let checked = 0;
    for (const file of files(SRC)) {
      const layer = path.relative(SRC, file).split(path.sep)[0]!;
      const allowed = ALLOWED[layer];
      if (!allowed) continue; // app.ts, server.ts, main.ts, version.ts wire everything
      for (const match of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
        const target = path.relative(SRC, path.resolve(path.dirname(file), match[1]!)).split(path.sep)[0]!.replace(/\.js$/, '.ts');
        checked++;
        if (!allowed.includes(target)) violations.push(`${path.relative(SRC, file)} imports ${match[1]}`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(violations).toEqual([]);
  });
});
