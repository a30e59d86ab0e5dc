/**
 * A JSON text read from a store another process wrote (Redis records, job logs): the value when it
 * parses and passes `valid`, else nothing — as a list, so that `flatMap` drops the unreadable ones.
 */
export function jsonRecord<T>(text: string, valid: (value: T) => boolean): T[] {
  try {
    const value = JSON.parse(text) as T;
    return value !== null && typeof value === 'object' && valid(value) ? [value] : [];
  } catch {
    return [];
  }
}
