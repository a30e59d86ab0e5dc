import type { CsOp } from '../../redaction/content-lexer.js';
import type { Unit } from './page-units.js';

/**
 * Writes the marks into a page's content (ISO 32000-1 §14.6, §14.7.4): each run of units that
 * belong to one structure element becomes `/Tag <</MCID n>> BDC … EMC`, each run of artifacts
 * `/Artifact BMC … EMC`. The operations themselves are copied byte for byte; only the marks are new.
 *
 * A mark never spans a barrier (q/Q, BT/ET, the input's own marked content), so every sequence
 * opens and closes at the same nesting and text-object level; state operators between two units
 * of one run stay inside it, state operators after the last one stay outside. An element whose
 * units are interrupted gets several marked-content identifiers, in order.
 */

export type Label = { element: number; tag: string } | 'artifact';

export interface MarkedPage {
  bytes: Uint8Array;
  /** The element of each marked-content identifier (the page's ParentTree array). */
  elementOfMcid: number[];
}

export function markContent(bytes: Uint8Array, ops: readonly CsOp[], units: readonly Unit[], labelOf: (unitIndex: number) => Label | undefined): MarkedPage {
  const parts: Uint8Array[] = [];
  const elementOfMcid: number[] = [];
  let open: Label | undefined;
  let copied = 0; // bytes before this offset are written
  let openEnd = 0; // where the open sequence's last unit ends

  const copyTo = (offset: number): void => {
    if (offset > copied) parts.push(bytes.subarray(copied, offset));
    copied = Math.max(copied, offset);
  };
  const close = (): void => {
    if (open === undefined) return;
    copyTo(openEnd);
    parts.push(Buffer.from('\nEMC\n', 'latin1'));
    open = undefined;
  };

  units.forEach((unit, index) => {
    const start = ops[unit.first]!.start;
    const end = ops[unit.last]!.end;
    const label = unit.kind === 'barrier' || unit.kind === 'neutral' ? undefined : labelOf(index);
    if (unit.kind === 'barrier') close();
    if (label !== undefined) {
      if (!sameLabel(open, label)) {
        close();
        copyTo(start);
        if (label === 'artifact') parts.push(Buffer.from('\n/Artifact BMC\n', 'latin1'));
        else {
          parts.push(Buffer.from(`\n/${label.tag} <</MCID ${elementOfMcid.length}>> BDC\n`, 'latin1'));
          elementOfMcid.push(label.element);
        }
        open = label;
      }
      openEnd = end;
    }
    copyTo(label !== undefined || open === undefined ? end : copied);
  });
  close();
  copyTo(bytes.length);
  return { bytes: Buffer.concat(parts), elementOfMcid };
}

function sameLabel(a: Label | undefined, b: Label): boolean {
  if (a === undefined) return false;
  if (a === 'artifact' || b === 'artifact') return a === b;
  return a.element === b.element;
}
