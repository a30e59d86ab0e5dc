import { describe, expect, it } from 'vitest';
import { wellFormedError, type Answer } from '../../fuzz/http.js';

const answer = (status: number, contentType: string, body: object): Answer => ({ status, headers: { 'content-type': contentType }, body: Buffer.from(JSON.stringify(body)), ms: 1 });
const error = { errorCode: -81, errorMessage: 'This endpoint does not accept a body of this content type.', stackTrace: '' };

// The fuzzer's error-shape invariant follows docs/errors.md: 415 is the clients' transport error (problem details), every other status the exception structure.
describe('the fuzzer’s error-shape invariant', () => {
  it('wants application/problem+json for 415 and application/json for every other error', () => {
    expect(wellFormedError(answer(415, 'application/problem+json', { type: 'about:blank', title: 'Unsupported Media Type', status: 415, ...error }))).toBe(true);
    expect(wellFormedError(answer(415, 'application/json', error))).toBe(false);
    expect(wellFormedError(answer(400, 'application/json', { ...error, errorCode: -2 }))).toBe(true);
    expect(wellFormedError(answer(400, 'application/problem+json', { ...error, errorCode: -2 }))).toBe(false);
    expect(wellFormedError(answer(415, 'application/problem+json', { title: 'no code' }))).toBe(false);
  });
});
