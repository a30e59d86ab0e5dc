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
