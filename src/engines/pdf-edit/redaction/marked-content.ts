import { PDFArray, PDFDict, type PDFContext } from '@cantoo/pdf-lib';
import { formatName, parseContent, type CsValue } from './content-lexer.js';
import { dictValue, N, nameValue, resolve } from '../pdf-objects.js';

/**
 * Marked content for `sanitize.layers` and `sanitize.tags` (§14.6, §8.11): content streams are
 * rewritten so that optional-content sequences of hidden layers disappear (with their XObjects), the
 * visible ones become plain content, and structure property lists (MCIDs, /ActualText, /Alt, ...) are
 * reduced to their bare tag. The transformation does not depend on where content is drawn, so each
 * stream is rewritten once, in place of the original.
 */

export interface MarkedContentPolicy {
  /** Visibility of an optional-content group or membership dictionary; absent: layers are kept. */
  visible?: (ocg: PDFDict | undefined) => boolean;
  /** Drop property lists of non-OC marked content. */
  tags: boolean;
}

export function rewriteMarkedContent(context: PDFContext, bytes: Uint8Array, resources: PDFDict | undefined, policy: MarkedContentPolicy): { bytes: Uint8Array; changed: boolean } {
  const { ops, tail } = parseContent(bytes);
  const chunks: Uint8Array[] = [];
  let changed = false;
  /** >0: inside a hidden layer, counting nested marked-content sequences. */
  let skipping = 0;
  const properties = dictValue(context, resources?.get(N('Properties')));
  const xobjects = dictValue(context, resources?.get(N('XObject')));
  for (const op of ops) {
    const original = bytes.subarray(op.start, op.end);
    if (skipping > 0) {
      changed = true;
      if (op.op === 'BDC' || op.op === 'BMC') skipping++;
      else if (op.op === 'EMC') skipping--;
      continue;
    }
    if (op.op === 'BDC') {
      const tag = op.args[0];
      const tagName = tag?.t === 'name' ? tag.v : 'Span';
      if (tagName === 'OC' && policy.visible) {
        const group = propertyList(context, op.args[1], properties);
        changed = true;
        if (!policy.visible(group)) {
          skipping = 1;
          continue;
        }
        chunks.push(Buffer.from(`\n${formatName('OC')} BMC`, 'latin1'));
        continue;
      }
      if (tagName !== 'OC' && policy.tags) {
        changed = true;
        chunks.push(Buffer.from(`\n${formatName(tagName)} BMC`, 'latin1'));
        continue;
      }
    }
    if (op.op === 'Do' && policy.visible) {
      const name = op.args[0];
      const xobject = name?.t === 'name' ? dictValue(context, xobjects?.get(N(name.v))) : undefined;
      const group = xobject ? dictValue(context, xobject.get(N('OC'))) : undefined;
      if (group && !policy.visible(group)) {
        changed = true;
        continue;
      }
    }
    chunks.push(original);
  }
  chunks.push(bytes.subarray(tail));
  return { bytes: changed ? Buffer.concat(chunks) : bytes, changed };
}

function propertyList(context: PDFContext, operand: CsValue | undefined, properties: PDFDict | undefined): PDFDict | undefined {
  if (operand?.t === 'name') return dictValue(context, properties?.get(N(operand.v)));
  return undefined;
}

/**
 * Visibility of layers in the default configuration (/OCProperties /D: /BaseState, /ON, /OFF), and
 * of membership dictionaries (/OCMD: /P over /OCGs, or a /VE expression).
 */
export function layerVisibility(context: PDFContext, catalog: PDFDict): (group: PDFDict | undefined) => boolean {
  const properties = dictValue(context, catalog.get(N('OCProperties')));
  const config = dictValue(context, properties?.get(N('D')));
  const baseOff = nameValue(context, config?.get(N('BaseState'))) === 'OFF';
  const listed = (key: string): Set<PDFDict> => {
    const out = new Set<PDFDict>();
    const array = resolve(context, config?.get(N(key)));
    if (array instanceof PDFArray)
      for (let i = 0; i < array.size(); i++) {
        const group = dictValue(context, array.get(i));
        if (group) out.add(group);
      }
    return out;
  };
  const on = listed('ON');
  const off = listed('OFF');
  const groupOn = (group: PDFDict): boolean => (baseOff ? on.has(group) : !off.has(group));

  const expression = (value: unknown, depth: number): boolean => {
    const item = resolve(context, value as never);
    if (item instanceof PDFDict) return groupOn(item);
    if (!(item instanceof PDFArray) || depth > 16) return true;
    const operator = nameValue(context, item.get(0));
    const operands = Array.from({ length: item.size() - 1 }, (_, i) => expression(item.get(i + 1), depth + 1));
    if (operator === 'Not') return !operands[0];
    if (operator === 'And') return operands.every(Boolean);
    return operands.some(Boolean);
  };

  return (group) => {
    if (!group || !properties) return true;
    if (nameValue(context, group.get(N('Type'))) !== 'OCMD') return groupOn(group);
    const ve = group.get(N('VE'));
    if (ve) return expression(ve, 0);
    const members = resolve(context, group.get(N('OCGs')));
    const states: boolean[] = [];
    if (members instanceof PDFDict) states.push(groupOn(members));
    else if (members instanceof PDFArray)
      for (let i = 0; i < members.size(); i++) {
        const member = dictValue(context, members.get(i));
        if (member) states.push(groupOn(member));
      }
    if (states.length === 0) return true;
    switch (nameValue(context, group.get(N('P')))) {
      case 'AllOn':
        return states.every(Boolean);
      case 'AnyOff':
        return states.some((s) => !s);
      case 'AllOff':
        return states.every((s) => !s);
      default:
        return states.some(Boolean);
    }
  };
}
