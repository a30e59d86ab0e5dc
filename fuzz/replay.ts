/** Saved reproducers (results dir or test/fixtures/fuzz/crashers/) turned back into calls. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import type { Replayable } from './execute.js';
import type { Reproducer } from './results.js';

export interface SavedCase {
  name: string;
  reproducer: Reproducer;
  replay: Replayable;
}

/** Reads <name>.json and <name>.bin (or <name>.bin.gz); a payload reproducer's document is the committed seed it names. */
export function loadReproducer(jsonFile: string, seedsDir: string): SavedCase {
  const reproducer = JSON.parse(readFileSync(jsonFile, 'utf8')) as Reproducer;
  const bin = jsonFile.replace(/\.json$/, '.bin');
  const input = existsSync(bin) ? readFileSync(bin) : gunzipSync(readFileSync(`${bin}.gz`));
  const document = reproducer.document === 'input' ? input : readFileSync(path.join(seedsDir, reproducer.document.replace(/^seeds\//, '')));
  return {
    name: path.basename(jsonFile, '.json'),
    reproducer,
    replay: {
      target: reproducer.target,
      group: reproducer.group,
      call: reproducer.call,
      document,
      fileName: reproducer.fileName,
      ...(reproducer.payload ? { payload: input } : {}),
    },
  };
}

export function loadReproducers(dir: string, seedsDir: string): SavedCase[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  return files.sort().map((f) => loadReproducer(path.join(dir, f), seedsDir));
}
