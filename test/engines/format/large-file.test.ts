import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../../src/engines/format/detect-format.js';
import { useTempDir } from '../../helpers/temp-dir.js';

/**
 * Detection must read a bounded prefix, never the whole file. The files are sparse, so they cost
 * no disk space, but reading one through would still take seconds and gigabytes of read().
 */
const SIZE = 3 * 1024 ** 3;

const dir = useTempDir('format');

function sparseFile(name: string, head: Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, head);
  fs.truncateSync(file, SIZE);
  return file;
}

/** Bytes this process has read so far (Linux); undefined elsewhere. */
function bytesRead(): number | undefined {
  try {
    const match = /^rchar:\s*(\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

async function timedDetect(file: string, clientFileName?: string): Promise<{ key: string; ms: number; read: number | undefined }> {
  const before = bytesRead();
  const start = performance.now();
  const type = await detectFormat(file, clientFileName);
  const ms = performance.now() - start;
  const after = bytesRead();
  return { key: type.key, ms, read: before === undefined || after === undefined ? undefined : after - before };
}

describe('detecting a 3 GB file', () => {
  it('reads only the head of a PDF', async () => {
    const file = sparseFile('huge.pdf', Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n', 'latin1'));
    expect(fs.statSync(file).size).toBe(SIZE);
    const { key, ms, read } = await timedDetect(file, 'huge.pdf');
    expect(key).toBe('pdf');
    expect(ms).toBeLessThan(1000);
    if (read !== undefined) expect(read).toBeLessThan(4 * 1024 * 1024);
  });

  it('reads only a bounded sample of content it cannot recognise', async () => {
    const file = sparseFile('huge.bin', Buffer.from('just some text at the start, then NULs for ever'));
    const { key, ms, read } = await timedDetect(file, 'huge.txt');
    expect(key).toBe('unknown');
    expect(ms).toBeLessThan(1000);
    if (read !== undefined) expect(read).toBeLessThan(4 * 1024 * 1024);
  });
});
