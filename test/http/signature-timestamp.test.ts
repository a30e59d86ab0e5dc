import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openssl } from '../helpers/certificates.js';
import { startLocalTsa } from '../helpers/local-tsa.js';
import { bearer, json, login } from '../helpers/client.js';
import { ADMIN_PASSWORD } from '../helpers/server.js';
import { realPdf } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';

// A local RFC 3161 authority: `openssl ts -reply` behind a tiny HTTP handler on 127.0.0.1.
const tsa = await startLocalTsa();
const dir = tsa.dir;
afterAll(() => tsa.close());

function pdfsig(file: string): string {
  const result = spawnSync('pdfsig', ['-nocert', file], { encoding: 'utf8' });
  return `${result.stdout}${result.stderr}`;
}

/** The CMS of the (last) signature of a file, printed by openssl. */
function printedCms(file: string): string {
  const text = readFileSync(file).toString('latin1');
  const ranges = [...text.matchAll(/\/ByteRange\s*\[0 (\d+) (\d+) (\d+)\]/g)];
  const last = ranges.at(-1)!;
  const hex = text.slice(Number(last[1]) + 1, Number(last[2]) - 1);
  const cms = path.join(dir, 'sig.der');
  writeFileSync(cms, Buffer.from(hex, 'hex'));
  return openssl('cms', '-cmsout', '-print', '-inform', 'DER', '-in', cms);
}

const sign = (rest: string, headers: Record<string, string>, documentId: string) =>
  fetch(`${rest}/signature/${documentId}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ signature: { add: { certificationLevel: 'none' } } }),
  });

/** The official clients' TSA check: the application envelope as read, mode validate; the result's error code. */
async function tsaCheck(rest: string): Promise<unknown> {
  const { token } = await login(rest, { name: 'admin', password: ADMIN_PASSWORD });
  const headers = { ...bearer(token), accept: 'application/json' };
  const read = await json(await fetch(`${rest}/admin/configuration/application`, { headers }));
  const response = await fetch(`${rest}/admin/configuration/`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ ...read, configurationMode: 'validate', configurationChecks: [{ checkType: 'tsa' }] }),
  });
  expect(response.status).toBe(200);
  return ((await json(response)).error as Record<string, unknown>).code;
}

describe('B-T signatures with a time-stamp authority', () => {
  const { server, session, upload, download } = useTestServer({
    yaml: `network:\n  allowHosts: ['127.0.0.1']\nsignature:\n  tsa:\n    url: ${tsa.url}\n    hashAlgorithm: SHA-384\n`,
  });

  it('embeds the authority token over the signature value as an unsigned attribute; the signature stays valid', async () => {
    const document = await upload(await realPdf(1), 'timestamped.pdf');
    const before = tsa.requests;
    expect((await sign(server.rest, session.headers, document.documentId)).status).toBe(303);
    expect(tsa.requests).toBe(before + 1);
    const file = await download(document.documentId, 'pdf');
    expect(pdfsig(file)).toContain('Signature is Valid.');
    const printed = printedCms(file);
    expect(printed).toMatch(/id-smime-aa-timeStampToken/);
    expect(printed).toContain('Quire Test TSA');
    // One signing-time only: the token's own (the authority's SignerInfo); ours has none.
    expect(printed.match(/signingTime/g) ?? []).toHaveLength(1);
    // The query the authority got: a SHA-384 imprint, with a nonce, asking for the certificate.
    const query = openssl('ts', '-query', '-in', path.join(dir, `q${tsa.requests}.tsq`), '-text');
    expect(query).toMatch(/Hash Algorithm: sha384/);
    expect(query).toMatch(/Nonce: 0x/);
    expect(query).toMatch(/Certificate required: yes/);
  });

  it("passes the administration's TSA check, which really asks the authority for a token", async () => {
    const before = tsa.requests;
    expect(await tsaCheck(server.rest)).toBe(0);
    expect(tsa.requests).toBe(before + 1);
  });
});

describe('an authority that does not answer', () => {
  const { server, session, upload, download } = useTestServer({
    yaml: `network:\n  allowHosts: ['127.0.0.1']\nsignature:\n  tsa:\n    url: http://127.0.0.1:9/tsa\n    timeout: 3\n`,
  });

  it('fails the call with -182 and leaves the document as it was', async () => {
    const original = await realPdf(1);
    const document = await upload(original, 'no-tsa.pdf');
    const response = await sign(server.rest, session.headers, document.documentId);
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(((await response.json()) as { errorCode: number }).errorCode).toBe(-182);
    expect(readFileSync(await download(document.documentId, 'pdf')).equals(original)).toBe(true);
  });

  it("fails the administration's TSA check with -34", async () => {
    expect(await tsaCheck(server.rest)).toBe(-34);
  });
});
