/**
 * The start-up sweep (leftovers.ts) called directly: what a dead owner left on the data dir goes,
 * with its descendants; what this process runs itself (an in-process restart sweeps while the new
 * instance's owner is the same process) and what runs for another data dir stay. Processes are
 * real and read back from /proc.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { descendantsOf, processesMentioning, readProc, type ProcInfo } from '../../../fuzz/proc.js';
import { sweepLeftovers } from '../../../src/engines/process/leftovers.js';
import { clearEngineOwner, setEngineOwner } from '../../../src/engines/process/parent-death.js';
import { run } from '../../../src/engines/process/run.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-leftovers-'));
const started: ProcInfo[] = [];

afterEach(() => clearEngineOwner());
afterAll(async () => {
  for (const proc of started) if (running(proc)) process.kill(proc.pid, 'SIGKILL');
  await sleep(100);
  rmSync(scratch, { recursive: true, force: true });
});

function running(proc: ProcInfo): boolean {
  try {
    const stat = readFileSync(`/proc/${proc.pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[19]) === proc.startTime && fields[0] !== 'Z' && fields[0] !== 'X';
  } catch {
    return false;
  }
}

async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 250; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await sleep(20);
  }
  throw new Error(`${what} did not appear`);
}

/**
 * An orphaned `sh` (its parent exits at once: `setsid -f`) that starts a `sleep` and waits, as a
 * dead server leaves its children; `args` end up on its command line.
 */
async function orphanTree(env: Record<string, string>, ...args: string[]): Promise<[ProcInfo, ProcInfo]> {
  const token = `quire-leftover-${randomUUID()}`;
  spawn('setsid', ['-f', 'sh', '-c', 'sleep 1000 & wait', token, ...args], { stdio: 'ignore', env: { PATH: process.env.PATH!, ...env } });
  const shell = await until(() => processesMentioning(token).find((p) => p.comm === 'sh'), 'the orphan');
  started.push(shell);
  const sleeper = await until(() => descendantsOf(shell.pid)[0], "the orphan's child");
  started.push(sleeper);
  return [shell, sleeper];
}

describe('sweepLeftovers', () => {
  it('kills what a dead owner left on this data dir and spares live owners, other data dirs and this process', async () => {
    const dataDir = path.join(scratch, 'data');
    const other = path.join(scratch, 'other');
    mkdirSync(path.join(dataDir, 'engines'), { recursive: true });
    const gone = spawn('true');
    await new Promise((resolve) => gone.once('exit', resolve));
    const self = readProc(process.pid)!;

    const deadOwner = await orphanTree({ QUIRE_ENGINE_OWNER: `${gone.pid}:1:${dataDir}` });
    const unmarkedEngine = await orphanTree({}, `-env:UserInstallation=file://${dataDir}/engines/libreoffice/profile-0-1`);
    const liveOwner = await orphanTree({ QUIRE_ENGINE_OWNER: `${self.pid}:${self.startTime}:${dataDir}` });
    const otherDir = await orphanTree({ QUIRE_ENGINE_OWNER: `${gone.pid}:1:${other}` });
    // A child this process starts through run() as the server would, naming the engines folder.
    setEngineOwner(dataDir);
    const own = run('sh', ['-c', 'sleep 1000; true', 'sh', `--user-data-dir=${dataDir}/engines/chromium/quire-chromium-x`], { timeoutMs: 60_000 });
    const ownProc = await until(() => descendantsOf(process.pid).find((p) => readFileSync(`/proc/${p.pid}/cmdline`, 'latin1').includes('quire-chromium-x')), 'the own child');
    started.push(ownProc);

    const sweep = await sweepLeftovers(dataDir);

    const killed = [...deadOwner, ...unmarkedEngine];
    expect(sweep.killed.map((k) => k.pid).sort()).toEqual(killed.map((p) => p.pid).sort());
    expect(killed.filter(running)).toEqual([]);
    for (const proc of [...liveOwner, ...otherDir, ownProc]) expect(running(proc), `${proc.pid} ${proc.comm}`).toBe(true);
    expect(sweep.inUse(`${dataDir}/engines/chromium/quire-chromium-x`)).toBe(true);
    expect(sweep.inUse(`file://${dataDir}/engines/libreoffice/profile-0-1`)).toBe(false);
    process.kill(-ownProc.pid, 'SIGKILL');
    await own;
  });
});
