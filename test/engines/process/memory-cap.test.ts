import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withCancellation } from '../../../src/core/cancellation.js';
import { QuireError } from '../../../src/core/errors.js';
import { Ghostscript } from '../../../src/engines/ghostscript/ghostscript.js';
import { QpdfRunner } from '../../../src/engines/pdf/qpdf.js';
import { MemoryLimitError } from '../../../src/engines/process/memory-limit.js';
import { memoryCapsAvailable, run, RunError } from '../../../src/engines/process/run.js';
import { configureTools, resetTools } from '../../../src/engines/process/tools.js';
import { renderPages } from '../../../src/engines/poppler/index.js';
import { fromEngine } from '../../../src/operations/engine-errors.js';
import { childProcesses, waitForNoChildren, watchChildren, isAlive as alive } from '../../helpers/child-processes.js';
import { outlineCyclePdf } from '../../helpers/hostile-pdf.js';
import { numberedPdf } from '../../helpers/toolbox.js';

const MB = 1024 * 1024;
let dir: string;
let cycle: string;
let plain: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'quire-memcap-'));
  cycle = path.join(dir, 'cycle.pdf');
  plain = path.join(dir, 'plain.pdf');
  writeFileSync(cycle, outlineCyclePdf());
  writeFileSync(plain, await numberedPdf(3));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => resetTools());

describe('memory caps of child processes', () => {
  it('are available on this machine (util-linux prlimit)', () => {
    expect(memoryCapsAvailable()).toBe(true);
  });

  it('kill a qpdf that grows past engines.qpdf.maxMemory and report it as MemoryLimitError, then ENGINE_MEMORY_LIMIT (-109)', async () => {
    // qpdf 11 follows the outline cycle of issue 11 while writing the JSON of the pages, without end.
    configureTools({ qpdf: { maxMemoryBytes: 128 * MB } });
    const qpdf = new QpdfRunner({ qpdfPath: 'qpdf', timeoutMs: 60_000 });
    const watch = watchChildren('qpdf', 10);
    const error = await qpdf.run(['--json=2', '--json-key=pages', cycle], { maxOutputBytes: 1024 * MB }).catch((e: unknown) => e);
    watch.stop();
    expect(error).toBeInstanceOf(MemoryLimitError);
    expect((error as MemoryLimitError).message).toContain('engines.qpdf.maxMemory');
    expect((error as MemoryLimitError).message).toContain('128 MB');
    // Never above its cap (the kernel refuses the allocation that would pass it).
    for (const child of watch.seen.values()) expect(child.peakBytes).toBeLessThanOrEqual(128 * MB);
    const mapped = fromEngine(error);
    expect(mapped).toBeInstanceOf(QuireError);
    expect((mapped as QuireError).errorCode).toBe(-109);
    expect((mapped as QuireError).status).toBe(400);
  });

  it('reports a failed allocation that the tool survived (pdftoppm says "Out of memory" and exits 0) as the cap, not a blank page', async () => {
    configureTools({ poppler: { maxMemoryBytes: 64 * MB } });
    // 10,000 × 14,000 RGB pixels: 420 MB, far beyond 64 MB.
    const error = await renderPages(plain, 1, 1, {
      directory: path.join(dir, 'pages'),
      width: 10_000,
      height: 14_000,
      dpi: 1200,
      sideways: false,
      deadline: Date.now() + 60_000,
      toolTimeoutMs: 60_000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryLimitError);
    expect((error as Error).message).toMatch(/^pdftoppm needed more memory .*engines\.poppler\.maxMemory/);
  });

  it("reads Ghostscript's error report (on stdout) and names engines.ghostscript.maxMemory", async () => {
    configureTools({ ghostscript: { maxMemoryBytes: 48 * MB } });
    const big = path.join(dir, 'big.pdf');
    writeFileSync(big, await numberedPdf(400));
    const error = await new Ghostscript().downsample(big, path.join(dir, 'gs-out.pdf'), { dpi: 72, jpegQuality: 80, timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryLimitError);
    expect((error as Error).message).toMatch(/^Ghostscript needed more memory .*engines\.ghostscript\.maxMemory/);
  });

  it('leave ordinary runs alone under the default caps', async () => {
    const result = await run('qpdf', ['--show-npages', plain], { timeoutMs: 30_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.toString().trim()).toBe('3');
  });

  it('still report a missing or non-executable binary as such', async () => {
    const missing = await run('/nonexistent/qpdf', ['--version'], { maxMemoryBytes: 256 * MB }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(RunError);
    expect((missing as RunError).kind).toBe('notFound');
    const notExecutable = await run(plain, [], { maxMemoryBytes: 256 * MB }).catch((e: unknown) => e);
    expect(notExecutable).toBeInstanceOf(RunError);
    expect((notExecutable as RunError).kind).toBe('notExecutable');
  });

  it('use the configured executable for the default name', async () => {
    configureTools({ qpdf: { executable: '/nonexistent/configured-qpdf' } });
    const error = await run('qpdf', ['--version']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).message).toContain('/nonexistent/configured-qpdf');
  });

  it('report a cap too small to even load the program as the cap', async () => {
    const error = await run('qpdf', ['--version'], { maxMemoryBytes: 4 * MB, memorySetting: 'test.cap' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryLimitError);
    expect((error as Error).message).toContain('test.cap');
  });
});

describe('cancellation of child processes', () => {
  it("stops a tool when the call's ambient cancellation aborts, and leaves no process behind", async () => {
    const controller = new AbortController();
    const watch = watchChildren('qpdf', 10);
    const pending = withCancellation(controller.signal, () => run('qpdf', ['--json=2', '--json-key=pages', cycle], { timeoutMs: 60_000, maxOutputBytes: 1024 }));
    while (watch.seen.size === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort(new Error('client gone'));
    const error = await pending.catch((e: unknown) => e);
    watch.stop();
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).kind).toBe('aborted');
    expect(await waitForNoChildren('qpdf', 5000)).toEqual([]);
  });

  it('does not stop commands that are not document tools (their results may be shared)', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone already'));
    const result = await withCancellation(controller.signal, () => run('sh', ['-c', 'echo still-here']));
    expect(result.stdout.toString().trim()).toBe('still-here');
  });

  it('kills children still running when this process exits', async () => {
    // A Node process starts a long child through run() and exits without waiting for it.
    const file = path.join(dir, 'exit-hook.mts');
    writeFileSync(
      file,
      [`import { run } from ${JSON.stringify(path.resolve('src/engines/process/run.ts'))};`, "void run('sleep', ['300']).catch(() => undefined);", 'setTimeout(() => process.exit(0), 500);'].join(
        '\n',
      ),
    );
    const node = spawn(process.execPath, ['--import', 'tsx', file], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => node.on('close', () => resolve()));
    // The sleep's parent is that Node process: find it before the process exits.
    let sleeper: number | undefined;
    while (sleeper === undefined && node.exitCode === null) {
      sleeper = childProcesses(node.pid!).find((c) => c.name === 'sleep')?.pid;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await exited;
    expect(sleeper).toBeDefined();
    expect(await gone(sleeper!, 5000)).toBe(true);
  });
});

/** Whether the process ended (or is a zombie waiting to be reaped) within `ms`. */
async function gone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return !alive(pid);
}
