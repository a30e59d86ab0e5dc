/**
 * Children die with the process that started them, however it dies (parent-death.ts). A separate
 * Node process (fixtures/busy-children.ts) starts what the engines start — a capped tool through
 * run() (setpriv, prlimit, gs), an uncapped one (setpriv, sleep), a warm LibreOffice (python3
 * uno_worker.py, soffice.bin in its network namespace and Landlock sandbox), the one-shot fallback
 * (soffice.bin through unshare and sandbox.py) and Chromium — keeps them busy and is killed with
 * SIGKILL: no exit handler runs, so only the kernel can end them. Processes are read from /proc.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { descendantsOf, readProc, type ProcInfo } from '../../../fuzz/proc.js';
import { clearEngineOwner, OWNER_ENV, setEngineOwner } from '../../../src/engines/process/parent-death.js';
import { run } from '../../../src/engines/process/run.js';
import { PROJECT_DIR } from '../../helpers/process.js';

const FIXTURE = path.join(PROJECT_DIR, 'test/engines/process/fixtures/busy-children.ts');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-parent-death-'));
const strays: ProcInfo[] = [];

afterAll(async () => {
  for (const stray of strays) if (running(stray)) process.kill(stray.pid, 'SIGKILL');
  await sleep(200);
  rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
});

function stat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Still the same process: not gone, not reused, not a zombie waiting to be reaped. */
function running(proc: ProcInfo): boolean {
  const fields = stat(proc.pid);
  return fields !== undefined && Number(fields[19]) === proc.startTime && fields[0] !== 'Z' && fields[0] !== 'X';
}

/** CPU time (user + system) so far, in clock ticks. */
function cpuTicks(pid: number): number {
  const fields = stat(pid);
  return fields ? Number(fields[11]) + Number(fields[12]) : 0;
}

async function until(probe: () => boolean, ms: number, what: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await sleep(100);
  }
}

function bigCsv(rows: number): string {
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) lines.push(Array.from({ length: 8 }, (_, j) => String(i * j)).join(','));
  return `${lines.join('\n')}\n`;
}

describe('children of a killed process', () => {
  it('die with it: tools, LibreOffice (warm and one-shot) and Chromium, all busy', async () => {
    const dir = mkdtempSync(path.join(scratch, 'busy-'));
    writeFileSync(path.join(dir, 'endless.ps'), '%!PS-Adobe-3.0\n{ 1 pop } loop\n');
    writeFileSync(path.join(dir, 'big.csv'), bigCsv(100_000));
    writeFileSync(path.join(dir, 'busy.html'), '<p>busy</p><script>for (;;) {}</script>');
    const parent = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dir], { cwd: PROJECT_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    parent.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    parent.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    const exited = new Promise<void>((resolve) => parent.once('exit', () => resolve()));
    try {
      await until(
        () => output.includes('"chromium"') || parent.exitCode !== null,
        180_000,
        () => `the children to start:\n${output}`,
      );
      expect(parent.exitCode, output).toBeNull();
      const tree = (): ProcInfo[] => descendantsOf(parent.pid!);
      const named = (comm: string): ProcInfo[] => tree().filter((p) => p.comm === comm);
      // Busy: both soffice.bin convert the sheet, a renderer spins in the script.
      await until(
        () => named('soffice.bin').filter((p) => cpuTicks(p.pid) > 150).length === 2 && named('gs').length === 1 && named('sleep').length === 1 && named('python3').length === 1,
        180_000,
        () =>
          `busy children: ${tree()
            .map((p) => `${p.comm}:${cpuTicks(p.pid)}`)
            .join(' ')}`,
      );
      await until(
        () => named('chromium').some((p) => cpuTicks(p.pid) > 100),
        60_000,
        () => 'a busy renderer',
      );

      const before = tree();
      parent.kill('SIGKILL');
      await exited;
      const deadline = Date.now() + 5_000;
      let left = before.filter(running);
      while (left.length > 0 && Date.now() < deadline) {
        await sleep(50);
        left = left.filter(running);
      }
      strays.push(...left);
      expect(left.map((p) => `${p.pid} ${p.comm}`).join(', ')).toBe('');
    } finally {
      if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
      await exited;
    }
  }, 420_000);
});

describe('run()', () => {
  afterEach(() => clearEngineOwner());

  it('names the server that started a child in its environment once an owner is set', async () => {
    setEngineOwner(scratch);
    const self = readProc(process.pid)!;
    const result = await run('sh', ['-c', `tr '\\0' '\\n' < /proc/$$/environ | grep '^${OWNER_ENV}='`], { timeoutMs: 10_000 });
    expect(result.stdout.toString().trim()).toBe(`${OWNER_ENV}=${process.pid}:${self.startTime}:${scratch}`);
    // With an environment of the caller's own too.
    const explicit = await run('sh', ['-c', `echo "$${OWNER_ENV}|$ONLY"`], { env: { PATH: process.env.PATH, ONLY: 'x' }, timeoutMs: 10_000 });
    expect(explicit.stdout.toString().trim()).toBe(`${process.pid}:${self.startTime}:${scratch}|x`);
    clearEngineOwner();
    const none = await run('sh', ['-c', `echo "[$${OWNER_ENV}]"`], { timeoutMs: 10_000 });
    expect(none.stdout.toString().trim()).toBe('[]');
  });
});
