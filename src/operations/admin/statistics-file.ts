import { readFile, rename } from 'node:fs/promises';
import { WEBSERVICES } from '../../core/webservices.js';
import { writeFileAtomic } from '../../storage/atomic.js';
import { AGGREGATIONS, FrameTable, type FrameTotals } from './statistics-frames.js';

/**
 * The persistent statistics on disk: one JSON file, rewritten whole (temp + fsync + rename) so that
 * a crash leaves either the previous or the new state. Each frame is a row of numbers under the
 * column names written into the file, which keeps a year of frames a few MB and readable.
 */
const FORMAT_VERSION = 1;
const COLUMNS = ['start', 'jobs', 'errors', 'durationMs', 'minDurationMs', 'maxDurationMs', 'bytesIn', 'bytesOut'] as const;

interface StatisticsFile {
  version: number;
  savedAt: string;
  columns: readonly string[];
  /** web service → aggregation → rows of COLUMNS. */
  frames: Record<string, Record<string, number[][]>>;
}

export function serialize(table: FrameTable, savedAt: number): string {
  const frames: StatisticsFile['frames'] = {};
  for (const webservice of WEBSERVICES) {
    const byAggregation: Record<string, number[][]> = {};
    for (const aggregation of AGGREGATIONS) {
      const rows: number[][] = [];
      for (const [start, t] of table.frames(webservice, aggregation)) {
        rows.push([start, t.jobs, t.errors, t.durationMs, t.minDurationMs, t.maxDurationMs, t.bytesIn, t.bytesOut]);
      }
      if (rows.length > 0) byAggregation[aggregation] = rows.sort((a, b) => a[0]! - b[0]!);
    }
    if (Object.keys(byAggregation).length > 0) frames[webservice] = byAggregation;
  }
  const file: StatisticsFile = { version: FORMAT_VERSION, savedAt: new Date(savedAt).toISOString(), columns: COLUMNS, frames };
  return `${JSON.stringify(file)}\n`;
}

/**
 * Fills `table` from the file's text. Entries of unknown web services or aggregations and rows that
 * are not all finite, non-negative numbers are skipped; a file that is not ours at all throws.
 */
export function deserialize(text: string, table: FrameTable): void {
  const file = JSON.parse(text) as Partial<StatisticsFile>;
  if (file.version !== FORMAT_VERSION || typeof file.frames !== 'object' || file.frames === null) {
    throw new Error(`not a statistics file of version ${FORMAT_VERSION}`);
  }
  for (const webservice of WEBSERVICES) {
    const byAggregation = file.frames[webservice];
    if (typeof byAggregation !== 'object' || byAggregation === null) continue;
    for (const aggregation of AGGREGATIONS) {
      const rows = byAggregation[aggregation];
      if (!Array.isArray(rows)) continue;
      for (const row of rows) {
        const totals = toTotals(row);
        if (totals) table.restore(webservice, aggregation, totals.start, totals.totals);
      }
    }
  }
}

function toTotals(row: unknown): { start: number; totals: FrameTotals } | undefined {
  if (!Array.isArray(row) || row.length !== COLUMNS.length) return undefined;
  if (!row.every((value) => typeof value === 'number' && Number.isFinite(value) && value >= 0)) return undefined;
  const [start, jobs, errors, durationMs, minDurationMs, maxDurationMs, bytesIn, bytesOut] = row as number[];
  return { start: start!, totals: { jobs: jobs!, errors: errors!, durationMs: durationMs!, minDurationMs: minDurationMs!, maxDurationMs: maxDurationMs!, bytesIn: bytesIn!, bytesOut: bytesOut! } };
}

/** Reads the file into `table`; false when there is none yet. A damaged file is moved aside (kept for inspection) and thrown about. */
export async function loadStatisticsFile(file: string, table: FrameTable): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  try {
    deserialize(text, table);
    return true;
  } catch (error) {
    await rename(file, `${file}.damaged-${Date.now()}`);
    throw error;
  }
}

export async function saveStatisticsFile(file: string, table: FrameTable, savedAt: number): Promise<void> {
  await writeFileAtomic(file, serialize(table, savedAt), 0o600);
}
