import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_SCRIPT, sandboxCommand } from '../../../src/engines/libreoffice/isolation.js';
import { startListener, type Listener } from './leak-check.js';

const PYTHON = '/usr/bin/python3';

function runIn(command: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command[0]!, command.slice(1), { timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

/** resources/sandbox.py on its own: what a command run through it may and may not touch. */
describe('the Landlock sandbox (resources/sandbox.py)', () => {
  let dir: string;
  let listener: Listener;
  let prefix: string[];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'quire-sandbox-'));
    for (const sub of ['readable', 'writable', 'outside']) mkdirSync(path.join(dir, sub));
    writeFileSync(path.join(dir, 'readable', 'file.txt'), 'inside');
    writeFileSync(path.join(dir, 'outside', 'secret.txt'), 'outside');
    listener = await startListener();
    prefix = sandboxCommand(PYTHON, { read: ['/usr', '/lib', '/lib64', '/etc', path.join(dir, 'readable')], write: [path.join(dir, 'writable')], socket: [] });
  });
  afterAll(async () => {
    await listener?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--probe prints the kernel Landlock ABI (this test machine has one)', async () => {
    const probe = await runIn([PYTHON, SANDBOX_SCRIPT, '--probe']);
    expect(probe.code).toBe(0);
    expect(Number(probe.stdout.trim())).toBeGreaterThanOrEqual(1);
  });

  it('reads inside the --read folders and nothing outside them', async () => {
    const inside = await runIn([...prefix, '/usr/bin/cat', path.join(dir, 'readable', 'file.txt')]);
    expect(inside).toMatchObject({ code: 0, stdout: 'inside' });
    const outside = await runIn([...prefix, '/usr/bin/cat', path.join(dir, 'outside', 'secret.txt')]);
    expect(outside.code).not.toBe(0);
    expect(outside.stdout).toBe('');
    expect(outside.stderr).toMatch(/Permission denied/);
  });

  it('writes only inside the --write folders', async () => {
    expect((await runIn([...prefix, '/usr/bin/touch', path.join(dir, 'writable', 'new')])).code).toBe(0);
    const refused = await runIn([...prefix, '/usr/bin/touch', path.join(dir, 'readable', 'new')]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Permission denied/);
  });

  it('opens no TCP connection, not even to loopback, without any network namespace (Landlock ABI 4+)', async () => {
    const [host, port] = listener.base.replace('http://', '').split(':');
    const connect = `import socket; socket.create_connection(("${host}", ${port}), timeout=5)`;
    const outside = await runIn([PYTHON, '-c', connect]);
    expect(outside.code).toBe(0); // the listener is reachable without the sandbox
    listener.hits.length = 0;
    const inside = await runIn([...prefix, PYTHON, '-c', connect]);
    expect(inside.code).not.toBe(0);
    expect(inside.stderr).toMatch(/PermissionError|Permission denied/);
    expect(listener.hits).toEqual([]);
  });

  it('runs nothing when it cannot set the sandbox up (exit 97)', async () => {
    const result = await runIn([PYTHON, SANDBOX_SCRIPT, '--read']);
    expect(result.code).toBe(97);
    expect(result.stderr).toMatch(/usage/);
  });
});
