/**
 * Summarises V8 .cpuprofile files (from `npm run bench -- --cpu-prof`): self time per function and
 * per package/file, so that the cost of the upload/download path can be read without DevTools.
 *
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile | directory> [--top=30]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const top = Number(/^--top=(\d+)$/.exec(args.find((a) => a.startsWith('--top=')) ?? '')?.[1] ?? 30);
const target = args.find((a) => !a.startsWith('--'));
if (!target) {
  process.stderr.write('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile | directory> [--top=30]\n');
  process.exit(2);
}
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => path.join(target, f))
  : [target];

function where(url: string): string {
  if (!url) return '(native / V8)';
  const clean = url.replace(/^file:\/\//, '');
  const nm = clean.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = clean.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (clean.startsWith('node:')) return clean;
  const src = clean.indexOf('/src/');
  return src >= 0 ? clean.slice(src + 1) : clean;
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = profile.endTime - profile.startTime;
  const perFunction = new Map<string, number>();
  const perPlace = new Map<string, number>();
  let idle = 0;
  for (const [id, micros] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') idle += micros;
    const fn = `${functionName || '(anonymous)'} ${url ? `${where(url)}:${lineNumber + 1}` : ''}`.trim();
    perFunction.set(fn, (perFunction.get(fn) ?? 0) + micros);
    const place = functionName.startsWith('(') ? functionName : where(url);
    perPlace.set(place, (perPlace.get(place) ?? 0) + micros);
  }
  const ms = (micros: number) => `${(micros / 1000).toFixed(0).padStart(7)} ms ${((micros / total) * 100).toFixed(1).padStart(5)} %`;
  process.stdout.write(`\n# ${file}\nwall ${(total / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s, busy ${((total - idle) / 1e6).toFixed(2)} s\n`);
  process.stdout.write('\n## self time by package / file\n');
  for (const [place, micros] of [...perPlace].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${ms(micros)}  ${place}\n`);
  process.stdout.write('\n## self time by function\n');
  for (const [fn, micros] of [...perFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${ms(micros)}  ${fn}\n`);
}
