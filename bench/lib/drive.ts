/** Runs `count` operations with `concurrency` in flight; returns the wall time and per-operation latencies (ms). */
export async function drive(count: number, concurrency: number, op: (i: number) => Promise<void>): Promise<{ seconds: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies };
}
