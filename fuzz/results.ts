/**
 * The results dir of a run: failures.jsonl (one line per failing case), reproducers/ (the input
 * bytes plus a JSON description per distinct failure, replayable by test/fuzz/crashers.test.ts),
 * summary.md. `--save-crashers` copies the reproducers into test/fixtures/fuzz/crashers/.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { HttpCall, TargetGroup } from './targets.js';
import type { Violation } from './execute.js';

/** A saved failing case: everything needed to send it again. */
export interface Reproducer {
  /** The failure's signature (what "the same failure" means when minimising and deduplicating). */
  signature: string;
  target: string;
  group: TargetGroup;
  /** The call; "@@DOCID@@" in the path is the uploaded document, other markers as in fuzz/targets.ts. */
  call: HttpCall;
  /** "input": the reproducer file is the uploaded document; otherwise the committed seed uploaded as carrier. */
  document: 'input' | string;
  /** Upload name of the document (its extension may steer detection). */
  fileName: string;
  /** Whether the reproducer file travels inside the call (@@PAYLOAD@@). */
  payload: boolean;
  broke: Violation[];
  foundBy: { runSeed: number; caseIndex: number; seed: string; mutations: string[]; originalSize: number; minimisedSize: number };
}

/** What makes two failures "the same": kind, target, status, error code and the message's gist. */
export function signatureOf(v: Violation): string {
  const gist = (v.cause ?? v.message ?? v.detail)
    .replace(/[0-9a-f]{32}/g, 'ID')
    .replace(/\d+/g, 'N')
    .replace(/\s+/g, ' ')
    .slice(0, 100);
  const message = v.kind === 'crash' || v.kind === 'unresponsive' || v.kind === 'hang' || v.kind === 'slow' || v.kind === 'memory' || v.kind === 'stray-process' ? '' : gist;
  return [v.kind, v.target, v.status ?? '', v.errorCode ?? '', message].join('|');
}

export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);
}

export class ResultsDir {
  readonly reproducers: string;

  constructor(readonly dir: string) {
    this.reproducers = path.join(dir, 'reproducers');
    mkdirSync(this.reproducers, { recursive: true });
  }

  appendFailure(line: Record<string, unknown>): void {
    appendFileSync(path.join(this.dir, 'failures.jsonl'), `${JSON.stringify(line)}\n`);
  }

  /** Writes <name>.bin (the input) and <name>.json; returns the path of the input file. */
  saveReproducer(name: string, input: Buffer, reproducer: Reproducer): string {
    const file = path.join(this.reproducers, `${name}.bin`);
    writeFileSync(file, input);
    writeFileSync(path.join(this.reproducers, `${name}.json`), `${JSON.stringify(reproducer, null, 2)}\n`);
    return file;
  }

  writeText(name: string, text: string): string {
    const file = path.join(this.dir, name);
    writeFileSync(file, text);
    return file;
  }
}

/** Committed inputs above this size are stored gzipped (<name>.bin.gz). */
const GZIP_ABOVE = 64 * 1024;

/** Copies every reproducer of a results dir into the committed crashers dir; returns the names copied. */
export function saveCrashers(resultsDir: string, crashersDir: string): string[] {
  const from = path.join(resultsDir, 'reproducers');
  if (!existsSync(from)) return [];
  mkdirSync(crashersDir, { recursive: true });
  // What is there already: by signature, and by input and call (one input that broke two invariants is one crasher).
  const signatures = new Set<string>();
  const inputs = new Set<string>();
  const key = (input: Buffer, reproducer: Reproducer) => `${createHash('sha256').update(input).digest('hex')}:${JSON.stringify(reproducer.call)}`;
  for (const file of readdirSync(crashersDir).filter((f) => f.endsWith('.json'))) {
    const reproducer = JSON.parse(readFileSync(path.join(crashersDir, file), 'utf8')) as Reproducer;
    const bin = path.join(crashersDir, file.replace(/\.json$/, '.bin'));
    const input = existsSync(bin) ? readFileSync(bin) : gunzipSync(readFileSync(`${bin}.gz`));
    signatures.add(reproducer.signature);
    inputs.add(key(input, reproducer));
  }
  const copied: string[] = [];
  for (const file of readdirSync(from)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const name = file.slice(0, -5);
    const reproducer = JSON.parse(readFileSync(path.join(from, file), 'utf8')) as Reproducer;
    const input = readFileSync(path.join(from, `${name}.bin`));
    if (signatures.has(reproducer.signature) || inputs.has(key(input, reproducer))) continue;
    signatures.add(reproducer.signature);
    inputs.add(key(input, reproducer));
    // Large inputs (page trees repeating a page 100,000 times) are highly repetitive: kept gzipped.
    if (input.length > GZIP_ABOVE) writeFileSync(path.join(crashersDir, `${name}.bin.gz`), gzipSync(input, { level: 9 }));
    else writeFileSync(path.join(crashersDir, `${name}.bin`), input);
    copyFileSync(path.join(from, file), path.join(crashersDir, file));
    copied.push(name);
  }
  return copied;
}
