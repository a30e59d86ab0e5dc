import { expect } from 'vitest';

/** The error a promise rejects with; a promise that resolves fails the test (outside the catch, so it is not taken for the rejection). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    return error;
  }
  throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
}

/** The error a promise rejects with, which must be a `type` (an engine's error class, say). */
export async function rejectionOf<E extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(type);
  return error as E;
}
