import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, login, multipartBody } from '../helpers/client.js';
import { list, locationId, type Outcome, parseError, pdfOfSize, postDocument, send, sha256, storedDocuments, uploadFile } from '../helpers/documents.js';
import { ALICE_AND_ROOT_YAML, type TestServer } from '../helpers/server.js';
import { startTwoApps, type TwoApps } from './helpers/two-apps.js';

/**
 * The limits race of cluster mode (docs/cluster.md, "What is shared"): each node serialises the final
 * limit check of a session's commits on its own, so uploads of one session committing at the same
 * instant on A and B could each pass it. The Redis index checks the limits in the same script that adds
 * the document: exactly the limit is stored, the others are refused as a single node refuses them.
 * Two applications in this process on one real redis-server and one data dir.
 */
let apps: TwoApps;
let a: TestServer;
let b: TestServer;

// Odd limits: the two nodes tend to commit in step, two at a time, and would meet the edge of an even one exactly.
const MAX_FILES = 3;
const FILE_BYTES = 10 * 1024;
/** Room for exactly DISK_FILES files of FILE_BYTES (alice's session; her maxFiles stays the default 1000). */
const DISK_FILES = 3;
const DISK_LIMIT = DISK_FILES * FILE_BYTES + FILE_BYTES / 2;
const UPLOADS = 12;
const SESSIONS = 4;

beforeAll(async () => {
  apps = await startTwoApps({
    keyPrefix: 'limits-race:',
    yaml: ALICE_AND_ROOT_YAML,
    env: {
      QUIRE_LIMITS__ANONYMOUS__MAX_FILES: String(MAX_FILES),
      QUIRE_LIMITS__USER__DISK_SPACE_LIMIT: `${DISK_LIMIT}B`,
    },
  });
  ({ a, b } = apps);
}, 60_000);
afterAll(async () => {
  await apps?.stop();
});

/** The session id of a token (names its storage directory). */
async function sessionId(token: string): Promise<string> {
  const response = await fetch(`${a.rest}/authentication/user/info`, { headers: bearer(token) });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { uniqueId: string }).uniqueId;
}

/**
 * UPLOADS uploads of distinct files of one session, half through A and half through B. `allAtOnce`: every
 * upload at the same time; otherwise one after the other on each node (the two nodes still at the same
 * time): a node reserves the bytes of its own uploads in flight while they arrive, so uploads in flight
 * on one node can refuse each other before the stored usage reaches the limit, and only one at a time
 * per node lets exactly the limit be stored.
 */
async function race(token: string, size: number, allAtOnce: boolean): Promise<Array<{ content: Buffer; outcome: Outcome }>> {
  const files = Array.from({ length: UPLOADS }, () => pdfOfSize(size));
  const upload = (i: number) => postDocument((i % 2 === 0 ? a : b).rest, token, files[i]!, `race-${i}.pdf`);
  const outcomes: Outcome[] = [];
  if (allAtOnce) {
    outcomes.push(...(await Promise.all(files.map((_, i) => upload(i)))));
  } else {
    const chain = async (first: number) => {
      for (let i = first; i < UPLOADS; i += 2) outcomes[i] = await upload(i);
    };
    await Promise.all([chain(0), chain(1)]);
  }
  return files.map((content, i) => ({ content, outcome: outcomes[i]! }));
}

interface Refusal {
  status: number;
  errorCode: number;
  errorMessage: string;
}

function expectRefusal(outcome: Outcome, refusal: Refusal): void {
  const response = outcome.response!;
  expect(response.status, response.body.toString()).toBe(refusal.status);
  expect(response.headers['content-type']).toBe('application/json');
  const error = parseError(response.body);
  expect({ errorCode: error.errorCode, errorMessage: error.errorMessage }).toEqual({ errorCode: refusal.errorCode, errorMessage: refusal.errorMessage });
}

function diskRefusal(): Refusal {
  return { status: 413, errorCode: -73, errorMessage: `Storing the upload would exceed the session's disk space limit of ${DISK_LIMIT} bytes.` };
}

async function download(server: TestServer, token: string, documentId: string): Promise<Buffer> {
  const response = await fetch(`${server.rest}/documents/${documentId}`, { headers: bearer(token) });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** The uploads that were stored (303) and the refusals; any other outcome fails the test. */
async function judge(token: string, results: Array<{ content: Buffer; outcome: Outcome }>, refusal: Refusal, expected: number) {
  const stored = new Map<string, Buffer>();
  for (const { content, outcome } of results) {
    const response = outcome.response;
    expect(response, outcome.error?.message).toBeDefined();
    if (response!.status === 303) {
      stored.set(locationId(response!.headers), content);
      continue;
    }
    expectRefusal(outcome, refusal);
  }
  expect(stored.size).toBe(expected);
  // Both nodes list exactly the stored ones; the data dir holds exactly their content (a refused add left no file behind).
  for (const server of [a, b]) expect(new Set((await list(server.rest, token)).map((d) => d.documentId))).toEqual(new Set(stored.keys()));
  const onDisk = storedDocuments(apps.dataDir, await sessionId(token));
  expect(new Set(onDisk.keys())).toEqual(new Set(stored.keys()));
  for (const files of onDisk.values()) expect(files).toHaveLength(1);
  // Each stored document is the file that was uploaded for it, read back from the node that did not store it too.
  for (const [documentId, content] of stored) {
    for (const server of [a, b]) expect(sha256(await download(server, token, documentId))).toBe(sha256(content));
  }
}

describe('uploads of one session committing on two nodes at once', () => {
  // Several sessions at once, each racing on its own: without the atomic check most runs overrun in at least one.
  it('store exactly maxFiles documents; the others are refused with MAX_FILES', async () => {
    await Promise.all(
      Array.from({ length: SESSIONS }, async () => {
        const { token } = await login(a.rest);
        const results = await race(token, 1024, true);
        await judge(token, results, { status: 409, errorCode: -72, errorMessage: `The session already holds its limit of ${MAX_FILES} documents.` }, MAX_FILES);
      }),
    );
  });

  it('store exactly what the diskSpaceLimit holds; the others are refused with DISK_SPACE_LIMIT', async () => {
    await Promise.all(
      Array.from({ length: SESSIONS }, async () => {
        const { token } = await login(a.rest, { name: 'alice', password: 'wonderland' });
        const results = await race(token, FILE_BYTES, false);
        await judge(token, results, diskRefusal(), DISK_FILES);
      }),
    );
  });

  it('store exactly the new history states the diskSpaceLimit holds; a refused one leaves its document as it was', async () => {
    await Promise.all(
      Array.from({ length: SESSIONS }, async () => {
        const { token } = await login(a.rest, { name: 'alice', password: 'wonderland' });
        // Two documents in history mode (2 KiB together): room for DISK_FILES new states of FILE_BYTES.
        const documents = [await uploadFile(a.rest, token, pdfOfSize(1024), 'one.pdf', '?history=true'), await uploadFile(b.rest, token, pdfOfSize(1024), 'two.pdf', '?history=true')];
        expect(2 * 1024 + DISK_FILES * FILE_BYTES).toBeLessThanOrEqual(DISK_LIMIT);
        expect(2 * 1024 + (DISK_FILES + 1) * FILE_BYTES).toBeGreaterThan(DISK_LIMIT);
        // New content for the first document through A, for the second through B, one after the other on each.
        const latest = new Map<string, Buffer>();
        let stored = 0;
        await Promise.all(
          documents.map(async (document, n) => {
            const server = n === 0 ? a : b;
            for (let i = 0; i < UPLOADS / 2; i++) {
              const content = pdfOfSize(FILE_BYTES);
              const { body, contentType } = multipartBody(content, `state-${i}.pdf`);
              const outcome = await send(`${server.rest}/documents/${document.documentId}`, {
                method: 'PUT',
                headers: { ...bearer(token), 'content-type': contentType, 'content-length': body.length },
                body,
              });
              expect(outcome.response, outcome.error?.message).toBeDefined();
              if (outcome.response!.status === 303) {
                latest.set(document.documentId, content);
                stored++;
              } else {
                expectRefusal(outcome, diskRefusal());
              }
            }
          }),
        );
        expect(stored).toBe(DISK_FILES);
        // Each document keeps its upload and its accepted states (on both nodes), one content file each, and
        // shows the last accepted state: a refused state left no record and no file behind.
        const onDisk = storedDocuments(apps.dataDir, await sessionId(token));
        let states = 0;
        for (const document of documents) {
          for (const server of [a, b]) {
            const response = await fetch(`${server.rest}/documents/${document.documentId}/history`, { headers: bearer(token) });
            const text = await response.text();
            expect(response.status, text).toBe(200);
            const history = JSON.parse(text) as unknown[];
            expect(onDisk.get(document.documentId)).toHaveLength(history.length);
            if (server === a) states += history.length;
            const expected = latest.get(document.documentId);
            if (expected) expect(sha256(await download(server, token, document.documentId))).toBe(sha256(expected));
          }
        }
        expect(states).toBe(2 + DISK_FILES);
      }),
    );
  });
});
