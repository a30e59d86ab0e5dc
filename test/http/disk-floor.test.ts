import { execFileSync } from 'node:child_process';
import { readFileSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectError, multipartBody } from '../helpers/client.js';
import { convert, downloadToFile } from '../helpers/converter.js';
import { sha256, uploadFile, type TestSession } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { numberedPdf, runToolbox } from '../helpers/toolbox.js';

/** Free bytes of the test machine's disk under `dir`, as the server's statfs sees them. */
function freeBytes(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/** An upload as a fetch Response (the error helpers read it). */
function upload(server: TestServer, session: TestSession, content: Buffer, method = 'POST', target = '/documents'): Promise<Response> {
  const { body, contentType } = multipartBody(content, 'floor.pdf');
  return fetch(`${server.rest}${target}`, { method, headers: { ...session.headers, 'content-type': contentType }, body, redirect: 'manual' });
}

/** Rotation of page 1 as pdfinfo reports it (an independent reader). */
function rotationOfPageOne(file: string): number {
  const text = execFileSync('pdfinfo', ['-f', '1', '-l', '1', file], { encoding: 'utf8' });
  return Number(/Page\s+1 rot:\s+(\d+)/.exec(text)?.[1]);
}

describe('the free-disk floor (documents.minFreeSpace)', () => {
  const { server, session } = useTestServer({ yaml: "documents: { minFreeSpace: '0' }\n" });
  let documentId: string;
  let original: Buffer;

  /** Writes the configuration file with this floor and restarts (sessions and documents survive). */
  async function restartWithFloor(floor: string): Promise<void> {
    writeFileSync(path.join(server.dataDir, 'quire.yaml'), `documents: { minFreeSpace: '${floor}' }\n`);
    await server.restart();
  }

  beforeAll(async () => {
    original = await numberedPdf(2);
    documentId = (await uploadFile(server.rest, session.token, original, 'kept.pdf')).documentId;
  });

  it('below the floor: uploads, content replacement, toolbox and converter results are refused with 507 -152; the stored document is untouched and still readable', async () => {
    // A floor larger than the free space of this machine's disk: no disk has to be filled.
    await restartWithFloor(`${freeBytes(server.dataDir) + 2 ** 40}B`);

    const refused = await expectError(await upload(server, session, await numberedPdf(1)), 507, -152);
    expect(refused.errorMessage).toMatch(/minFreeSpace/);
    await expectError(await upload(server, session, await numberedPdf(1), 'PUT', `/documents/${documentId}`), 507, -152);

    const toolbox = await runToolbox(server.rest, session.token, documentId, [{ rotate: { pages: '1', degrees: 90 } }]);
    expect(toolbox.status).toBe(507);
    expect(toolbox.contentType).toBe('application/json');
    expect(toolbox.error?.errorCode).toBe(-152);
    const created = await fetch(`${server.rest}/toolbox/new`, {
      method: 'POST',
      headers: { ...session.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ toolbox: [{ merge: { data: { source: 'value', value: original.toString('base64') } } }] }),
    });
    await expectError(created, 507, -152);
    const converted = await convert(server.rest, session.token, documentId);
    expect(converted.status).toBe(507);
    expect(converted.error?.errorCode).toBe(-152);

    // Reading goes on: info and download work, and the content is the original upload's.
    expect((await fetch(`${server.rest}/documents/${documentId}/info`, { headers: bearer(session.token) })).status).toBe(200);
    const file = await downloadToFile(server.rest, session.token, documentId);
    expect(sha256(readFileSync(file))).toBe(sha256(original));
    expect(rotationOfPageOne(file)).toBe(0);
  });

  it('a percentage floor: 100% of the disk is never free', async () => {
    await restartWithFloor('100%');
    await expectError(await upload(server, session, await numberedPdf(1)), 507, -152);
  });

  it('normal operation resumes once the floor is lowered', async () => {
    await restartWithFloor('1MB');
    expect((await upload(server, session, await numberedPdf(1))).status).toBe(303);
    const toolbox = await runToolbox(server.rest, session.token, documentId, [{ rotate: { pages: '1', degrees: 90 } }]);
    expect(toolbox.status).toBe(303);
    expect(rotationOfPageOne(await downloadToFile(server.rest, session.token, documentId))).toBe(90);
  });
});
