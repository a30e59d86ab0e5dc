import { formatOp, type CsOp, type CsValue } from '../../redaction/content-lexer.js';

/**
 * Cuts each TJ whose array moves the text on by at least `MIN_GAP_EM` em between two strings into
 * several TJ operations at those moves: Ghostscript writes a table's row as one TJ, its cells
 * separated by large negative adjustments, and a mark can only hold whole operations. Consecutive
 * TJs continue from where the previous one ended (ISO 32000-1 §9.4.3), so the page shows exactly
 * what it showed; every other operation is copied byte for byte. Returns undefined when no TJ has
 * such a move.
 */

/**
 * Moves of at least this many ems (the adjustment is in thousandths of an em) split a TJ: the
 * narrowest gap between a table's header cells (tables.ts), wider than a plain word space (about a
 * quarter em). A stretched space of justified text may reach it: the cut shows and extracts the same.
 */
export const MIN_GAP_EM = 0.4;

export function splitWideTJ(bytes: Uint8Array, ops: readonly CsOp[]): Uint8Array | undefined {
  const parts: Uint8Array[] = [];
  let copied = 0;
  for (const op of ops) {
    const pieces = op.op === 'TJ' ? piecesOf(op.args[0]) : undefined;
    if (!pieces || pieces.length < 2) continue;
    parts.push(bytes.subarray(copied, op.start));
    parts.push(Buffer.from(pieces.map((piece) => formatOp([{ t: 'arr', v: piece }], 'TJ')).join('') + '\n', 'latin1'));
    copied = op.end;
  }
  if (copied === 0) return undefined;
  parts.push(bytes.subarray(copied));
  return Buffer.concat(parts);
}

function piecesOf(array: CsValue | undefined): CsValue[][] | undefined {
  if (array?.t !== 'arr') return undefined;
  const pieces: CsValue[][] = [[]];
  let shown = false;
  for (const item of array.v) {
    if (item.t === 'num' && item.v <= -1000 * MIN_GAP_EM && shown) {
      pieces.push([]);
      shown = false;
    }
    if (item.t === 'str') shown = true;
    pieces[pieces.length - 1]!.push(item);
  }
  return pieces;
}
