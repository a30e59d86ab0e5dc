/**
 * Investigation helper, not part of `npm run bench`: starts the server, then times the same 1 GiB
 * transfers with curl and with node:http clients, so that client-side and server-side costs can be
 * told apart (and compared with `cat`, which only reads the page cache).
 *
 *   node --import tsx bench/investigate.ts [--dist] [--size=1024] [--repeat=3] [--only=upload|download] [--cpu-prof]
 *
 * The test file is taken from (or left in) $TMPDIR/quire-bench-cache/, like `npm run bench -- --keep`.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { deleteDocument, loginAnonymous } from './lib/api.js';
import { cpuTimesOf, memoryOf, resetPeak } from './lib/memory.js';
import { startBenchServer } from './lib/server.js';
import { ensureSourceFile, syncDisks, timedDownload, timedDownloadToSink, timedUpload } from './lib/transfer.js';

const { values } = parseArgs({
  options: {
    dist: { type: 'boolean', default: false },
    size: { type: 'string', default: '1024' },
    repeat: { type: 'string', default: '3' },
    only: { type: 'string', default: 'all' },
    'cpu-prof': { type: 'boolean', default: false },
  },
});
const root = fileURLToPath(new URL('..', import.meta.url));
const cacheDir = path.join(os.tmpdir(), 'quire-bench-cache');
await mkdir(cacheDir, { recursive: true });
const tempDir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-run-'));
const source = await ensureSourceFile(path.join(cacheDir, `source-${Number(values.size)}MiB.bin`), Number(values.size));
const profileDir = path.join(root, 'bench', 'results', 'profiles', `investigate-${Date.now()}`);
const server = await startBenchServer({
  root,
  tempDir,
  dist: values.dist,
  nodeFlags: values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
});
const target = path.join(tempDir, 'target.bin');

/** Times one transfer; prints MB/s, the server's CPU use and its peak RSS. */
async function time(label: string, work: () => unknown): Promise<void> {
  syncDisks();
  resetPeak(server.pid);
  const cpu = cpuTimesOf(server.pid);
  const start = process.hrtime.bigint();
  await work();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const used = cpuTimesOf(server.pid);
  console.log(
    `${label.padEnd(40)} ${seconds.toFixed(3)} s ${(source.size / seconds / 1e6).toFixed(0).padStart(6)} MB/s  ` +
      `server CPU ${(used.user - cpu.user).toFixed(2)} user + ${(used.system - cpu.system).toFixed(2)} sys, VmHWM ${(memoryOf(server.pid).hwm / 1e6).toFixed(1)} MB`,
  );
  await rm(target, { force: true });
}

try {
  const token = await loginAnonymous(server.rest);
  const { documentId } = await timedUpload(server.rest, token, source.path, source.size);
  const url = `${server.rest}/documents/${documentId}`;
  const auth = `authorization: Bearer ${token}`;
  for (let run = 0; run < Number(values.repeat); run++) {
    if (values.only !== 'upload') {
      await time('download: curl -o /dev/null', () => spawnSync('curl', ['-sS', '-o', '/dev/null', '-H', auth, url]));
      await time('download: curl -o file', () => spawnSync('curl', ['-sS', '-o', target, '-H', auth, url]));
      await time('download: node:http → byte counter', () => timedDownloadToSink(server.rest, token, documentId));
      await time('download: node:http → file (writeSync)', () => timedDownload(server.rest, token, documentId, target));
      await time('baseline: cat source > /dev/null', () => spawnSync('sh', ['-c', `cat '${source.path}' > /dev/null`]));
    }
    if (values.only !== 'download') {
      let id = '';
      await time('upload: node:http multipart', async () => {
        id = (await timedUpload(server.rest, token, source.path, source.size)).documentId;
      });
      await deleteDocument(server.rest, token, id);
      await time('upload: curl -F filedata=@file', () => {
        const out = spawnSync('curl', ['-sS', '-o', '/dev/null', '-w', '%{redirect_url}', '-H', auth, '-H', 'Expect:', '-F', `filedata=@${source.path}`, `${server.rest}/documents`]);
        id = /documents\/([0-9a-f]+)\/info/.exec(out.stdout.toString())?.[1] ?? '';
      });
      if (id) await deleteDocument(server.rest, token, id);
    }
  }
  await deleteDocument(server.rest, token, documentId);
} finally {
  await server.stop();
  await rm(tempDir, { recursive: true, force: true });
  if (values['cpu-prof']) console.log(`profile: ${path.relative(root, profileDir)}`);
}
