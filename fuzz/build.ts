/** Builds the server (npm run build) when dist/ is older than its sources, as ./quire.sh does. */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function newestMtime(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

export function distIsStale(root: string): boolean {
  const stamp = path.join(root, 'dist/build-info.json');
  if (!existsSync(stamp) || !existsSync(path.join(root, 'dist/main.js'))) return true;
  const built = statSync(stamp).mtimeMs;
  return ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'].some((entry) => newestMtime(path.join(root, entry)) > built);
}

/** Sleeps synchronously (ensureBuilt runs before anything else and must stay synchronous). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Builds when stale. The two fuzz test files may start at once: a lock directory (mkdir is atomic)
 * lets one build while the other waits and then finds dist/ current. A failed build with an older
 * dist/ left in place is a warning, not an error.
 */
export function ensureBuilt(root: string, log: (line: string) => void): void {
  if (!distIsStale(root)) return;
  const lock = path.join(os.tmpdir(), `quire-fuzz-build-${createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 12)}.lock`);
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another build runs (or a stale lock from a killed one: given up after five minutes).
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      pause(500);
      if (!distIsStale(root)) return;
    }
  }
  try {
    if (!distIsStale(root)) return;
    log(`building ${root} (dist/ is older than its sources)`);
    const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    if (result.status === 0) return;
    const output = `${result.stdout}${result.stderr}`.trim().split('\n').slice(-20).join('\n');
    if (!existsSync(path.join(root, 'dist/main.js'))) throw new Error(`npm run build failed:\n${output}`);
    log(`warning: npm run build failed; running the dist/ that exists:\n${output}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
