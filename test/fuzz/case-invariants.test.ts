import { describe, expect, it } from 'vitest';
import { changedAfterFailure, judge, type CallRecord } from '../../fuzz/execute.js';
import type { Answer } from '../../fuzz/http.js';
import { useTestServer } from '../helpers/fixture.js';
import { numberedPdf } from '../helpers/toolbox.js';

/**
 * The per-answer invariants the fuzzer added for the web services beyond the toolbox: a failed call
 * leaves its document as uploaded (checked by downloading it from a real server), and a call that
 * must be refused (the urlconverter's internal URLs) is an error answer.
 */

const record = (status: number, failure?: CallRecord['failure']): CallRecord => ({ target: 'pdfa.convert', status, ms: 10, limitMs: 1_000, ...(failure ? { failure } : {}) });
const answer = (status: number): Answer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(status >= 400 ? JSON.stringify({ errorCode: -160, errorMessage: 'refused', stackTrace: '' }) : '{}'),
  ms: 10,
});

describe('the fuzzer’s refusal invariant', () => {
  it('wants an error answer where a refusal is owed, and only there', () => {
    expect(judge(record(303), answer(303), true).map((v) => v.kind)).toEqual(['accepted']);
    expect(judge(record(200), answer(200), true).map((v) => v.kind)).toEqual(['accepted']);
    expect(judge(record(400), answer(400), true)).toEqual([]);
    expect(judge(record(303), answer(303))).toEqual([]);
  });
});

describe('the fuzzer’s document-unchanged invariant', () => {
  const { server, session, upload, toolboxOk } = useTestServer();

  it('reports a failed call whose document is no longer the uploaded bytes, and passes one whose document is', async () => {
    const original = await numberedPdf(2);
    const { documentId } = await upload(original, 'two.pdf');
    expect(await changedAfterFailure(server.rest, session.token, documentId, original, record(400))).toBeUndefined();
    // Change the stored document behind the fuzzer's back: the same failed call is now a violation.
    await toolboxOk(documentId, [{ rotate: { pages: '*', degrees: 90 } }]);
    const changed = await changedAfterFailure(server.rest, session.token, documentId, original, record(400));
    expect(changed).toMatchObject({ kind: 'document-changed', target: 'pdfa.convert', status: 400 });
    // Not judged: a successful call (it may change the document) and a call without an answer.
    expect(await changedAfterFailure(server.rest, session.token, documentId, original, record(303))).toBeUndefined();
    expect(await changedAfterFailure(server.rest, session.token, documentId, original, record(0, 'timeout'))).toBeUndefined();
  });

  it('reports a document that cannot be read any more', async () => {
    const original = await numberedPdf(1);
    const { documentId } = await upload(original, 'one.pdf');
    const deleted = await fetch(`${server.rest}/documents/${documentId}`, { method: 'DELETE', headers: { authorization: `Bearer ${session.token}` } });
    await deleted.text();
    expect(deleted.status).toBe(200);
    expect(await changedAfterFailure(server.rest, session.token, documentId, original, record(400))).toMatchObject({ kind: 'document-changed', detail: expect.stringMatching(/cannot be read/) });
  });
});
