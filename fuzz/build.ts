/** Builds the server (npm run build) when dist/ is older than its sources, as ./quire.sh does. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
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

/** Builds when stale. A failed build with an older dist/ left in place is a warning, not an error. */
export function ensureBuilt(root: string, log: (line: string) => void): void {
  if (!distIsStale(root)) return;
  log(`building ${root} (dist/ is older than its sources)`);
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.status === 0) return;
  const output = `${result.stdout}${result.stderr}`.trim().split('\n').slice(-20).join('\n');
  if (!existsSync(path.join(root, 'dist/main.js'))) throw new Error(`npm run build failed:\n${output}`);
  log(`warning: npm run build failed; running the dist/ that exists:\n${output}`);
}
