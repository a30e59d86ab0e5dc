import { dominantSize, listMarker, sameSize, textLines, type Line } from './blocks.js';
import type { Rect } from '../../redaction/geometry.js';
import type { TextRun, Unit } from './page-units.js';

/**
 * Tables where the page content shows one plainly: consecutive lines that each fall apart into two
 * or more cells (runs separated by a gap wider than a word space) and whose cells line up in shared
 * column x-ranges, at a steady row spacing. The rows become TR, their cells TD (the first row TH when
 * it is set apart by a bold face, a larger size or a rule under it alone), in reading order row by row.
 *
 * Conservative on purpose — a wrong Table is worse for a reader than paragraphs: text set in two
 * columns line by line (long cells), a list whose markers stand apart from their text (a first
 * column of markers), a cell spanning two columns, a row with a single cell (a wrapped or mostly
 * empty row) and tables written column by column all stay what they were (paragraphs, lists).
 * Ruling lines are painted paths and stay artifacts: the text decides what is a table, a rule only
 * whether its first row is a header.
 */

export interface Table {
  /** Rows of cells, each cell the units it shows, in column order. */
  rows: number[][][];
  /** The first row is a header row. */
  header: boolean;
}

/** Runs farther apart than this many sizes are two cells. */
const CELL_GAP = 1.0;
/**
 * The line right above a table may be its header row with narrower gaps (header words are longer
 * than the figures under them): split at this many sizes, it joins when its cells line up.
 */
const HEADER_CELL_GAP = 0.4;
/** Rows farther apart than this many sizes are two tables (or none). */
const MAX_ROW_GAP = 3;
/** The widest row spacing at most this many times the narrowest. */
const ROW_GAP_SPREAD = 2.5;
/** Cells longer than this on average are running text set in columns. */
const MAX_MEAN_CELL_CHARS = 30;
const LARGER_HEADER = 1.05;
/** A painted path this flat (points) is a rule. */
const RULE_HEIGHT = 3;
/** The height of capitals above the baseline, in sizes: a rule above a row's text stays above it. */
const CAP_HEIGHT = 0.6;

interface Cell {
  units: number[];
  x: number;
  endX: number;
  runs: TextRun[];
  text: string;
}

interface Row {
  y: number;
  size: number;
  cells: Cell[];
}

/** The page's tables, and the units they hold (the block grouping leaves those out). */
export function pageTables(units: readonly Unit[]): { tables: Table[]; inTables: Set<number> } {
  const tables: Table[] = [];
  const inTables = new Set<number>();
  const lines = textLines(units);
  // Horizontal rules: painted paths at most RULE_HEIGHT high.
  const rules = units.flatMap((unit) => (unit.kind === 'artifact' && unit.box && unit.box.y1 - unit.box.y0 <= RULE_HEIGHT ? [unit.box] : []));
  let run: Row[] = [];
  let runStart = 0;
  const close = (): void => {
    const above = lines[runStart - 1];
    const header = above && !inTables.has(above.units[0]!) ? rowOf(above, units, HEADER_CELL_GAP) : undefined;
    const table = (header && follows(header, run[0]) ? tableOf([header, ...run], rules) : undefined) ?? tableOf(run, rules);
    if (table) {
      tables.push(table);
      for (const row of table.rows) for (const cell of row) for (const unit of cell) inTables.add(unit);
    }
    run = [];
  };
  lines.forEach((line, index) => {
    const row = rowOf(line, units, CELL_GAP);
    if (!follows(run[run.length - 1], row)) close();
    if (row.cells.length < 2) return;
    if (run.length === 0) runStart = index;
    run.push(row);
  });
  close();
  return { tables, inTables };
}

/** `row` can be the row after `last`: two cells at least, one size, below it within the row gap. */
function follows(last: Row | undefined, row: Row | undefined): boolean {
  if (!last || !row || row.cells.length < 2) return false;
  const gap = last.y - row.y;
  return sameSize(row.size, last.size) && gap > 0 && gap <= MAX_ROW_GAP * row.size;
}

function rowOf(line: Line, units: readonly Unit[], cellGap: number): Row {
  const cells: Cell[] = [];
  let cell: Cell | undefined;
  for (const index of line.units) {
    const unit = units[index]!;
    if (unit.kind !== 'text') continue;
    const r = unit.run;
    if (r.text.trim() === '') {
      cell?.units.push(index); // a space between words of a cell
      continue;
    }
    if (cell && r.x - cell.endX <= cellGap * r.size && r.x >= cell.x) {
      cell.units.push(index);
      cell.runs.push(r);
      cell.text += r.text;
      cell.endX = Math.max(cell.endX, r.endX);
      continue;
    }
    cell = { units: [index], x: r.x, endX: r.endX, runs: [r], text: r.text };
    cells.push(cell);
  }
  return { y: line.y, size: dominantSize(line.runs), cells };
}

function tableOf(rows: readonly Row[], rules: readonly Rect[]): Table | undefined {
  if (rows.length < 2) return undefined;
  const columns = columnRanges(rows);
  if (columns.length < 2) return undefined;
  // Every cell in one column, no column twice in a row: a cell spanning columns is no grid.
  const placed: number[][] = [];
  for (const row of rows) {
    const at = row.cells.map((cell) => columns.findIndex((c) => cell.x >= c.x && cell.endX <= c.endX));
    if (new Set(at).size !== at.length) return undefined;
    placed.push(at);
  }
  const gaps = rows.slice(1).map((row, i) => rows[i]!.y - row.y);
  if (Math.max(...gaps) > ROW_GAP_SPREAD * Math.min(...gaps)) return undefined;
  const cells = rows.flatMap((row) => row.cells);
  if (cells.reduce((sum, cell) => sum + cell.text.trim().length, 0) / cells.length > MAX_MEAN_CELL_CHARS) return undefined;
  // A list whose markers stand apart from their text: every row starts with a marker alone.
  if (rows.every((row) => isMarker(row.cells[0]!.text))) return undefined;
  return {
    rows: rows.map((row, r) =>
      row.cells
        .map((cell, c) => ({ cell, column: placed[r]![c]! }))
        .sort((a, b) => a.column - b.column)
        .map(({ cell }) => cell.units),
    ),
    header: isHeader(rows, rules),
  };
}

/** The x-ranges the rows' cells share: overlapping cells are one column. */
function columnRanges(rows: readonly Row[]): { x: number; endX: number }[] {
  const spans = rows.flatMap((row) => row.cells.map((cell) => ({ x: cell.x, endX: cell.endX }))).sort((a, b) => a.x - b.x);
  const columns: { x: number; endX: number }[] = [];
  for (const span of spans) {
    const last = columns[columns.length - 1];
    if (last && span.x <= last.endX) last.endX = Math.max(last.endX, span.endX);
    else columns.push({ ...span });
  }
  return columns;
}

function isMarker(text: string): boolean {
  const found = listMarker(text);
  return found !== undefined && found.marker.trim() === text.trim();
}

/**
 * The first row set apart from the second: in bold when the second is not, larger, or by a rule
 * between them that does not also stand between the second and the third (a grid rules every row).
 */
function isHeader(rows: readonly Row[], rules: readonly Rect[]): boolean {
  const [first, second, third] = rows as [Row, Row, Row | undefined];
  const bold = (row: Row): boolean => row.cells.every((cell) => cell.runs.every((r) => r.bold));
  const x0 = Math.min(...rows.map((row) => row.cells[0]!.x));
  const x1 = Math.max(...rows.map((row) => row.cells[row.cells.length - 1]!.endX));
  // A rule under `above`'s baseline, over `below`'s capitals, across the table's cells (within a size).
  const ruled = (above: Row, below: Row): boolean => rules.some((r) => r.y1 <= above.y && r.y0 >= below.y + CAP_HEIGHT * below.size && r.x0 <= x0 + below.size && r.x1 >= x1 - below.size);
  return (bold(first) && !bold(second)) || first.size >= second.size * LARGER_HEADER || (ruled(first, second) && (!third || !ruled(second, third)));
}
