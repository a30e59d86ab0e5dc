export interface Summary {
  runs: number[];
  best: number;
  median: number;
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Summary of throughputs: higher is better. */
export function summarizeRates(rates: number[]): Summary {
  return { runs: rates, best: Math.max(...rates), median: median(rates) };
}

/** Bytes per second → MB/s (1 MB = 10^6 bytes). */
export function mbPerSecond(bytes: number, seconds: number): number {
  return bytes / seconds / 1e6;
}

export function formatNumber(value: number, digits?: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const places = digits ?? (Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2);
  return value.toLocaleString('en-US', { minimumFractionDigits: places, maximumFractionDigits: places });
}

/** Bytes → "123.4 MB (117.7 MiB)". */
export function formatMemory(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'n/a';
  return `${formatNumber(bytes / 1e6, 1)} MB (${formatNumber(bytes / 1024 / 1024, 1)} MiB)`;
}

/** Per-item times (ms) as "p50 …, p90 …, p99 …, max …" (nearest-rank quantiles), with `digits` decimals. */
export function formatTimes(times: readonly number[], digits: number): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  const ms = (v: number): string => `${v.toFixed(digits)} ms`;
  return `p50 ${ms(at(0.5))}, p90 ${ms(at(0.9))}, p99 ${ms(at(0.99))}, max ${ms(sorted.at(-1) ?? 0)}`;
}
