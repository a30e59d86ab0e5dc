import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RunError, run } from '../../../src/engines/process/run.js';

/** True when the process no longer runs: gone entirely, or a zombie waiting for a parent that does not reap. */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 3, after the parenthesised command name.
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

async function waitUntilGone(pid: number, ms = 2000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (isGone(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return isGone(pid);
}

describe('run', () => {
  it('captures output and the exit code', async () => {
    const result = await run('sh', ['-c', 'printf out; printf err >&2; exit 7']);
    expect(result.exitCode).toBe(7);
    expect(result.signal).toBeNull();
    expect(result.stdout.toString()).toBe('out');
    expect(result.stderr).toBe('err');
    expect(result.timedOut).toBe(false);
    expect(result.truncated).toBe(false);
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('passes arguments without a shell', async () => {
    const result = await run('printf', ['%s|', '$HOME', '; echo no', '`id`']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.toString()).toBe('$HOME|; echo no|`id`|');
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    // The shell starts a background sleep (the grandchild), reports its pid, then sleeps itself.
    const started = Date.now();
    const pending = run('sh', ['-c', 'sleep 100 & echo $!; sleep 100'], { timeoutMs: 300 });
    const result = await pending;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    const grandchild = Number(result.stdout.toString().trim());
    expect(grandchild).toBeGreaterThan(1);
    expect(await waitUntilGone(grandchild)).toBe(true);
  });

  it('by default ends background children left behind when the child exits', async () => {
    const result = await run('sh', ['-c', 'sleep 100 >/dev/null 2>&1 & echo $!']);
    expect(result.exitCode).toBe(0);
    expect(result.timedOut).toBe(false);
    expect(await waitUntilGone(Number(result.stdout.toString().trim()))).toBe(true);
  });

  it('bounds captured output and drains the rest', async () => {
    // 4 MiB on stdout, 3 MiB on stderr; the child must not block on a full pipe.
    const result = await run('sh', ['-c', 'head -c 4194304 /dev/zero; head -c 3145728 /dev/zero >&2'], {
      maxOutputBytes: 1000,
      timeoutMs: 20_000,
    });
    expect(result.exitCode).toBe(0);
    expect(result.timedOut).toBe(false);
    expect(result.stdout.length).toBe(1000);
    expect(result.stderr.length).toBe(1000);
    expect(result.truncated).toBe(true);
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stderrTruncated).toBe(true);
  });

  it('keeps output of exactly the limit untruncated; the default limit is 1 MiB', async () => {
    const exact = await run('head', ['-c', '1000', '/dev/zero'], { maxOutputBytes: 1000 });
    expect(exact.truncated).toBe(false);
    const big = await run('head', ['-c', String(2 * 1024 * 1024), '/dev/zero']);
    expect(big.stdout.length).toBe(1024 * 1024);
    expect(big.stdoutTruncated).toBe(true);
    expect(big.stderrTruncated).toBe(false);
  });

  it('delivers stdin (string and Buffer) and closes it', async () => {
    const text = await run('cat', [], { stdin: 'secret\nline two' });
    expect(text.stdout.toString()).toBe('secret\nline two');
    const bytes = Buffer.from([0, 1, 2, 255]);
    const binary = await run('cat', [], { stdin: bytes });
    expect(binary.stdout.equals(bytes)).toBe(true);
    // Without stdin the child reads end-of-file at once instead of hanging.
    const none = await run('cat', [], { timeoutMs: 5000 });
    expect(none.timedOut).toBe(false);
    expect(none.stdout.length).toBe(0);
  });

  it('survives a child that does not read its stdin', async () => {
    const result = await run('true', [], { stdin: Buffer.alloc(4 * 1024 * 1024) });
    expect(result.exitCode).toBe(0);
  });

  it('reports a signal death', async () => {
    const result = await run('sh', ['-c', 'kill -TERM $$']);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGTERM');
  });

  it('rejects with a clear error for a missing binary', async () => {
    const error = await run('quire-no-such-binary-x', ['--version']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).kind).toBe('notFound');
    expect((error as RunError).message).toMatch(/command not found: quire-no-such-binary-x/);
  });

  it('aborts: kills the group and rejects', async () => {
    const controller = new AbortController();
    const pending = run('sh', ['-c', 'sleep 100 & echo $!; sleep 100'], { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).kind).toBe('aborted');

    const early = new AbortController();
    early.abort();
    await expect(run('true', [], { signal: early.signal })).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('uses cwd and env', async () => {
    const result = await run('sh', ['-c', 'pwd; printf "%s" "$QUIRE_RUN_TEST"'], { cwd: '/tmp', env: { PATH: process.env.PATH, QUIRE_RUN_TEST: 'v' } });
    expect(result.stdout.toString()).toBe('/tmp\nv');
  });
});
