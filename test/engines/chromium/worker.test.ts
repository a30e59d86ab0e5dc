import { readdirSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ChromiumWorker } from '../../../src/engines/chromium/index.js';
import { WorkerDiedError } from '../../../src/engines/pool/worker.js';
import { browserGroups, htmlJob, processesUnder, tempDir, testServer, waitFor } from './helpers.js';

const dir = tempDir();
const options = { executablePath: '/usr/bin/chromium', tempDir: dir, loadTimeoutMs: 10_000 };

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function profiles(): string[] {
  return readdirSync(dir).filter((name) => name.startsWith('quire-chromium-'));
}

describe('ChromiumWorker', () => {
  it('runs jobs, answers pings, measures its processes and closes without leftovers', async () => {
    const worker = await ChromiumWorker.launch(options);
    expect(profiles()).toHaveLength(1);
    const [group] = browserGroups(dir);
    expect(group).toBeDefined();
    // Puppeteer starts the browser as leader of its own group, and the helpers stay in it.
    const helpers = processesUnder(dir).filter((p) => p.name === 'chromium');
    expect(helpers.length).toBeGreaterThan(1);
    expect(helpers.every((p) => p.pgid === group)).toBe(true);

    await worker.ping();
    expect(await worker.run(htmlJob(dir, '<p>one</p>'))).toEqual({ blocked: [], failed: [] });
    const bytes = await worker.memoryBytes();
    expect(bytes).toBeGreaterThan(50 * 1024 * 1024);
    expect(bytes).toBeLessThan(2 * 1024 * 1024 * 1024);

    await worker.close();
    expect((await worker.ended).message).toBe('browser disconnected');
    await waitFor(() => processesUnder(dir).length === 0, 3_000);
    expect(profiles()).toEqual([]);
    await expect(worker.run(htmlJob(dir, '<p>late</p>'))).rejects.toBeInstanceOf(WorkerDiedError);
  });

  it('kill() ends the whole group at once and fails the running job with WorkerDiedError', async () => {
    const server = await testServer((request) => request.url === '/hang');
    try {
      const worker = await ChromiumWorker.launch(options);
      const [group] = browserGroups(dir);
      const job = htmlJob(dir, `<img src="${server.url('/hang')}">`, { network: { allowRemote: true, policy: { allowInternal: true } } });
      const running = worker.run(job);
      await waitFor(() => server.requests.includes('/hang'));
      const started = Date.now();
      worker.kill();
      await expect(running).rejects.toBeInstanceOf(WorkerDiedError);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect((await worker.ended).message).toBe('killed');
      await waitFor(() => processesUnder(dir).every((p) => p.pgid !== group));
      await worker.close(); // after kill: nothing left to do but wait for the cleanup
      expect(profiles()).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('fails to launch a missing executable and leaves no profile behind', async () => {
    await expect(ChromiumWorker.launch({ ...options, executablePath: '/nonexistent/chromium' })).rejects.toThrow();
    expect(profiles()).toEqual([]);
  });

  it('notices a browser that dies on its own', async () => {
    const worker = await ChromiumWorker.launch(options);
    const [group] = browserGroups(dir);
    process.kill(-group!, 'SIGKILL');
    expect((await worker.ended).message).toMatch(/browser (disconnected|exited)/);
    await expect(worker.ping()).rejects.toThrow();
    await worker.close();
    expect(profiles()).toEqual([]);
  });
});
