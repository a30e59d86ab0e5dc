/**
 * Tokens of a content stream (ISO 32000-1 §7.8.2): operands are COS values, operators are keywords.
 * Inline images (BI … ID data EI, §8.9.7) come as one token holding their dictionary entries and raw
 * data, because their data is not PDF syntax. The walk with graphics state and resources is the PD
 * layer's; this only reads the syntax, bounded by the document's work budget.
 */
import { CosParser, type ParseEnv } from './parser.js';
import { isWhite } from './syntax.js';
import type { CosDict, CosValue } from './types.js';

export type ContentToken =
  | { readonly kind: 'operand'; readonly value: CosValue }
  | { readonly kind: 'operator'; readonly name: string }
  | { readonly kind: 'inlineImage'; readonly dict: CosDict; readonly data: Buffer };

export function* contentTokens(data: Buffer, env: ParseEnv): Generator<ContentToken> {
  const parser = new CosParser(data, env, 0);
  for (;;) {
    parser.skipSpace();
    if (parser.pos >= data.length) return;
    if (env.tokensLeft <= 0) {
      env.limitsHit.add('maxTokens');
      return;
    }
    const v = parser.readValue(0);
    if (v.kind !== 'keyword') {
      yield { kind: 'operand', value: v };
      continue;
    }
    if (v.value !== 'BI') {
      yield { kind: 'operator', name: v.value };
      continue;
    }
    // BI: key/value pairs up to ID, then the data up to an EI between white-space.
    const entries = new Map<string, CosValue>();
    for (;;) {
      parser.skipSpace();
      if (parser.pos >= data.length) return;
      const key = parser.readValue(0);
      if (key.kind === 'keyword' && key.value === 'ID') break;
      if (key.kind !== 'name') continue;
      const value = parser.readValue(0);
      if (value.kind !== 'keyword') entries.set(key.value, value);
      else if (value.value === 'ID') break;
    }
    const start = parser.pos + (isWhite(data[parser.pos]) ? 1 : 0);
    let end = start;
    for (;;) {
      end = data.indexOf('EI', end, 'latin1');
      if (end < 0) {
        end = data.length;
        break;
      }
      if ((end === start || isWhite(data[end - 1])) && (end + 2 >= data.length || isWhite(data[end + 2]))) break;
      end += 2;
    }
    const raw = data.subarray(start, end > start && isWhite(data[end - 1]) ? end - 1 : end);
    parser.pos = Math.min(data.length, end + 2);
    yield { kind: 'inlineImage', dict: { kind: 'dict', entries }, data: raw };
  }
}
