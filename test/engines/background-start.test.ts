import { describe, expect, it } from 'vitest';
import { BackgroundStart } from '../../src/engines/background-start.js';
import { PoolError } from '../../src/engines/pool/pool-errors.js';
import { rejection } from '../helpers/rejection.js';

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('BackgroundStart: an engine that warms up while the server already listens', () => {
  it('is starting until its start resolves; a call made meanwhile waits and gets the engine', async () => {
    const start = deferred<{ name: string }>();
    const engine = new BackgroundStart('libreoffice', () => start.promise, 60_000);
    const readyCalls: string[] = [];
    engine.onReady((e) => readyCalls.push(e.name));
    expect(engine.state).toBe('starting');
    expect(engine.engine).toBeUndefined();
    const waiting = engine.ready();
    start.resolve({ name: 'warm' });
    expect(await waiting).toEqual({ name: 'warm' });
    expect(engine.state).toBe('ready');
    expect(readyCalls).toEqual(['warm']);
    // Listeners added later are called at once.
    engine.onReady((e) => readyCalls.push(`${e.name} again`));
    expect(readyCalls).toEqual(['warm', 'warm again']);
    expect(await engine.settled).toEqual({ name: 'warm' });
  });

  it('answers busy (429, Retry-After) to a call whose queue timeout passes while the engine still starts', async () => {
    const start = deferred<object>();
    const engine = new BackgroundStart('chromium', () => start.promise, 50);
    const error = await rejection(engine.ready());
    expect(error).toBeInstanceOf(PoolError);
    expect(error).toMatchObject({ kind: 'busy', engine: 'chromium', retryAfterSeconds: 1 });
    expect(engine.state).toBe('starting');
    start.resolve({});
    expect(await engine.ready()).toEqual({});
  });

  it('answers unavailable (503) once the start failed, naming why; settled resolves with nothing', async () => {
    const engine = new BackgroundStart('libreoffice', () => Promise.reject(new Error('soffice.bin not found')), 60_000);
    expect(await engine.settled).toBeUndefined();
    expect(engine.state).toBe('failed');
    const error = await rejection(engine.ready());
    expect(error).toMatchObject({ kind: 'unavailable', engine: 'libreoffice' });
    expect((error as Error).message).toContain('soffice.bin not found');
  });

  it('lets a cancelled call go while the engine starts, with the cancellation as the reason', async () => {
    const start = deferred<object>();
    const engine = new BackgroundStart('chromium', () => start.promise, 60_000);
    const controller = new AbortController();
    const waiting = rejection(engine.ready(controller.signal));
    const reason = new Error('client gone');
    controller.abort(reason);
    expect(await waiting).toBe(reason);
    start.resolve({});
  });
});
