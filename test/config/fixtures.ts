import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';

/** A configuration file with this YAML text, in a directory of its own. */
export function yamlFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'quire-config-')), 'quire.yaml');
  writeFileSync(file, text);
  return file;
}

/** The problems the loader reports for this environment (it must refuse it). */
export function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/srv');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}
