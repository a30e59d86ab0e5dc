import { describe, expect, it } from 'vitest';
import { ambientCancellation, holdCancellationScope, openCancellationScopes, withCancellation } from '../../src/core/cancellation.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ambient cancellation scopes', () => {
  it('carries the signal across awaits while another, shorter scope ends', async () => {
    const long = new AbortController();
    const short = new AbortController();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = withCancellation(long.signal, async () => {
      await gate;
      await tick();
      return ambientCancellation();
    });
    const second = await withCancellation(short.signal, async () => {
      await tick();
      return ambientCancellation();
    });
    expect(second).toBe(short.signal);
    expect(openCancellationScopes()).toBe(1);
    open();
    expect(await first).toBe(long.signal);
    expect(openCancellationScopes()).toBe(0);
  });

  it('an inner scope replaces the outer signal, and undefined clears it', async () => {
    const outer = new AbortController();
    const seen = await withCancellation(outer.signal, async () => {
      const inner = await withCancellation(undefined, async () => {
        await tick();
        return ambientCancellation();
      });
      await tick();
      return { inner, outer: ambientCancellation() };
    });
    expect(seen).toEqual({ inner: undefined, outer: outer.signal });
  });

  it('a held scope keeps the signal for work that goes on after withCancellation returned', async () => {
    const controller = new AbortController();
    const release = holdCancellationScope();
    const later = new Promise<AbortSignal | undefined>((resolve) => {
      withCancellation(controller.signal, () => {
        setTimeout(() => resolve(ambientCancellation()), 5);
      });
    });
    expect(await later).toBe(controller.signal);
    release();
    release();
    expect(openCancellationScopes()).toBe(0);
  });

  it('closes a scope whose work throws or rejects, and outside any scope there is no signal', async () => {
    const controller = new AbortController();
    expect(() =>
      withCancellation(controller.signal, () => {
        throw new Error('sync failure');
      }),
    ).toThrow('sync failure');
    await expect(withCancellation(controller.signal, async () => Promise.reject(new Error('async failure')))).rejects.toThrow('async failure');
    await tick();
    expect(openCancellationScopes()).toBe(0);
    expect(await Promise.resolve().then(() => ambientCancellation())).toBeUndefined();
  });
});
