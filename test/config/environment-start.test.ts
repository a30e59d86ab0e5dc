import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { killAll, scaled, spawnQuire, startQuire, waitExit } from '../helpers/process.js';

/**
 * The real process (`node dist/main.js`) with stray QUIRE_ variables in its environment: it starts and
 * names them in one warning; a key the configuration file does not know still stops it.
 */
vi.setConfig({ testTimeout: await scaled(60_000) });

const dirs: string[] = [];
function newDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-env-'));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  await killAll();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('QUIRE_ variables that name no configuration key', () => {
  it('are named in one warning at start, and the server runs', async () => {
    const quire = await startQuire({ dataDir: newDataDir(), env: { QUIRE_VERSION: '3.1.0', QUIRE_DEPLOYED_BY: 'helm' } });
    const response = await fetch(`${quire.url}/webPDF/health`);
    expect(response.status).toBe(200);
    expect((await quire.stop()).code).toBe(0);
    const warnings = quire.stdout.split('\n').filter((line) => line.includes('environment variables ignored'));
    expect(warnings).toHaveLength(1);
    const entry = JSON.parse(warnings[0]!) as { level: number | string; variables: string[] };
    expect(entry.variables).toEqual(['QUIRE_DEPLOYED_BY', 'QUIRE_VERSION']);
    expect(entry.level === 40 || entry.level === 'warn').toBe(true);
  });

  it('do not excuse an unknown key in the configuration file', async () => {
    const dataDir = newDataDir();
    const file = path.join(dataDir, 'quire.yaml');
    writeFileSync(file, 'version: 3\n');
    const quire = await spawnQuire({ dataDir, env: { QUIRE_CONFIG: file, QUIRE_VERSION: '3.1.0' } });
    const exit = await waitExit(quire);
    expect(exit.code).toBe(2);
    expect(quire.stderr).toContain('version');
    expect(quire.stderr).toContain('unknown key');
    expect(quire.stderr).not.toContain('QUIRE_VERSION');
  });
});
